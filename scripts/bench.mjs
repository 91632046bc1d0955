// `npm run bench [-- name-filter]`: runs every bench/*.bench.ts under Node (tsx) and prints one
// table row per benchmark: name, our figure, the reference measured in the same run, the ratio.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const filter = process.argv[2] ?? '';
const files = readdirSync('bench').filter((f) => f.endsWith('.bench.ts') && f.includes(filter)).sort();
const rows = [];
let failed = false;
for (const f of files) {
  process.stderr.write(`running bench/${f} ...\n`);
  const out = await new Promise((resolve) => {
    let text = '';
    const child = spawn(process.execPath, ['--import', 'tsx', `bench/${f}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (d) => (text += d));
    child.on('close', (code) => {
      if (code !== 0) { failed = true; process.stderr.write(`bench/${f} exited ${code}\n`); }
      resolve(text);
    });
  });
  for (const line of out.split('\n')) if (line.startsWith('BENCH ')) rows.push(JSON.parse(line.slice(6)));
}
const fmt = (n) => (n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toPrecision(3));
const table = [['benchmark', 'ours', 'reference', 'ratio', 'target']];
for (const r of rows) {
  table.push([r.name, `${fmt(r.ours)} ${r.unit}`, `${fmt(r.reference)} ${r.unit} (${r.against})`, `${(r.ours / r.reference).toFixed(2)}x`, r.target ?? '']);
}
const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
for (const [i, row] of table.entries()) {
  console.log(row.map((c, j) => c.padEnd(widths[j])).join('  ').trimEnd());
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
process.exit(failed ? 1 : 0);
