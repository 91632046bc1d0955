// The generated source tree the grep/find benchmarks search: 20,000 files of ~200 MB in
// pkg*/mod* directories, a few holding the needle `NEEDLE_7f3a`. Deterministic (a fixed LCG).
import fs from 'node:fs';
import path from 'node:path';

export const NEEDLE = 'NEEDLE_7f3a';

export interface Tree {
  /** lines of words the files are cut from (also handy for other generated text) */
  lines: string[];
  pool: Buffer;
  bytes: number;
}

export function writeTree(dir: string, files = 20_000): Tree {
  const words = ['const', 'function', 'return', 'import', 'export', 'value', 'result', 'index', 'string', 'number', 'await', 'async', 'class', 'this', 'that', 'error'];
  let seed = 1;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const lines: string[] = [];
  for (let i = 0; i < 40_000; i++) lines.push(Array.from({ length: 4 + rand(10) }, () => words[rand(words.length)]).join(' '));
  const pool = Buffer.from(`${lines.join('\n')}\n`);
  const exts = ['.ts', '.js', '.md', '.json', '.txt'];
  let bytes = 0;
  for (let i = 0; i < files; i++) {
    const sub = path.join(dir, `pkg${i % 40}`, `mod${Math.floor(i / 40) % 25}`);
    if (i < 1000) fs.mkdirSync(sub, { recursive: true });
    const size = 6000 + rand(8000);
    const start = rand(pool.length - size);
    let chunk = pool.subarray(start, start + size);
    if (i % 1000 === 7) chunk = Buffer.concat([chunk, Buffer.from(`\nconst ${NEEDLE} = 1;\n`)]);
    fs.writeFileSync(path.join(sub, `file${i}${exts[i % exts.length]}`), chunk);
    bytes += chunk.length;
  }
  return { lines, pool, bytes };
}
