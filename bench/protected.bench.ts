// The cost of treating hard links as the files they link to, measured in one run:
//   read_file of a 50 MB file with two links (the identity lookup runs)   vs the same read without it
//   read_file of a 50 MB file with one link                               vs the same read without it
//   the identity set of a home with 10,000 files under its credential dirs (absolute: < 50 ms;
//   and against a bare readdir + lstat walk of the same dirs, the floor any such scan pays)
//   the root scan of a 20,000-file workspace                               vs rg --files
//   find_files with 20,000 matches, with the link check                    vs without it
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CHAIN_LOCAL_FS, parseFsPolicy } from '../src/core/local_fs/policy.ts';
import { findRipgrep } from '../src/core/local_fs/ripgrep.ts';
import { LocalFsToolset } from '../src/core/local_fs/toolset.ts';
import { IdentityIndex, identitiesChanged, type IdentityHit } from '../src/core/protect/identity.ts';
import { pairMs, report } from './report.ts';

/** Today's read: an index that is never consulted. */
class NoLinks extends IdentityIndex {
  override lookup(): IdentityHit | undefined {
    return undefined;
  }
  override lookupPath(): IdentityHit | undefined {
    return undefined;
  }
}

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-prot-')));
try {
  // ---- a fake home: 10,000 files under its credential dirs (a browser profile is most of them)
  const home = path.join(base, 'home');
  let n = 0;
  const put = (rel: string, text = 'x') => {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.writeFileSync(path.join(home, rel), text);
    n++;
  };
  for (let i = 0; i < 20; i++) put(`.ssh/key${i}`);
  for (let i = 0; i < 30; i++) put(`.aws/cli/cache/${i}.json`);
  for (let i = 0; i < 50; i++) put(`.config/gh/x${i}.yml`);
  for (let d = 0; d < 99 && n < 10_000; d++) for (let i = 0; i < 100 && n < 10_000; i++) put(`.mozilla/firefox/p.default/cache2/entries/d${d}/f${i}`);
  put('notes.md'); // an ordinary home file: not scanned
  const root = path.join(base, 'root');
  fs.mkdirSync(root);
  const bareWalk = () => {
    let c = 0;
    const stack = ['.ssh', '.aws', '.config/gh', '.mozilla'].map((d) => path.join(home, d));
    while (stack.length) {
      const d = stack.pop()!;
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = `${d}/${e.name}`;
        if (e.isDirectory()) stack.push(p);
        else if (fs.lstatSync(p).ino > 0) c++;
      }
    }
    return c;
  };
  // every tenth file also has a second name elsewhere (what a scan must keep)
  const spare = path.join(base, 'spare');
  fs.mkdirSync(spare);
  let k = 0;
  for (const d of ['.ssh', '.aws/cli/cache', '.config/gh']) for (const f of fs.readdirSync(path.join(home, d))) if (k++ % 10 === 0) fs.linkSync(path.join(home, d, f), path.join(spare, `${k}`));
  for (let d = 0; d < 99; d++) {
    const dir = path.join(home, `.mozilla/firefox/p.default/cache2/entries/d${d}`);
    if (!fs.existsSync(dir)) break;
    for (const f of fs.readdirSync(dir)) if (k++ % 10 === 0) fs.linkSync(path.join(dir, f), path.join(spare, `${k}`));
  }
  const build = () => {
    const r = new IdentityIndex({ home }).build(root);
    if (r.home.entries < 10_000 || r.home.known !== 1000) throw new Error(`the home scan looked at ${r.home.entries} entries and knows ${r.home.known} linked files`);
  };
  const [buildOurs, buildRef] = await pairMs(build, bareWalk, 15);
  report({ name: 'identity set of a home with 10,000 files under its credential dirs', ours: buildOurs, reference: buildRef, unit: 'ms', against: 'readdir + lstat of the same dirs', target: '< 50 ms (absolute)' });

  // ---- read_file of a 50 MB file, through the identity check and without it
  const line = 'const value = result.index + string.length; // some ordinary source text\n';
  const fifty = Buffer.alloc(50 * 1024 * 1024);
  for (let off = 0; off < fifty.length; off += line.length) fifty.write(line, off);
  fs.writeFileSync(path.join(root, 'big.txt'), fifty);
  fs.writeFileSync(path.join(root, 'single.txt'), fifty);
  fs.linkSync(path.join(root, 'big.txt'), path.join(root, 'big-link.txt')); // two links: the lookup runs
  fs.writeFileSync(path.join(root, '.env'), 'A=1\n'); // something for the root scan to know (it has a second name)
  fs.linkSync(path.join(root, '.env'), path.join(spare, 'env'));
  const policy = parseFsPolicy({ ...DEFAULT_CHAIN_LOCAL_FS, _max_read_bytes: '0' }).policy;
  const checked = new LocalFsToolset({ root, policy, identity: new IdentityIndex({ home }) });
  const today = new LocalFsToolset({ root, policy, identity: new NoLinks({ home }) });
  const read = (ts: LocalFsToolset, p: string) => async () => {
    const r = await ts.call('read_file', { path: p, force: true });
    if (typeof r !== 'string' || !r.startsWith('const value')) throw new Error(`unexpected read of ${p}`);
  };
  const [linkedOurs, linkedRef] = await pairMs(read(checked, 'big.txt'), read(today, 'big.txt'), 41);
  report({ name: 'read_file 50 MB, two links (identity lookup)', ours: linkedOurs, reference: linkedRef, unit: 'ms', against: 'the same read without the check', target: '≤ 1.05x' });
  const [singleOurs, singleRef] = await pairMs(read(checked, 'single.txt'), read(today, 'single.txt'), 41);
  report({ name: 'read_file 50 MB, one link', ours: singleOurs, reference: singleRef, unit: 'ms', against: 'the same read without the check', target: '≤ 1.05x' });
  fs.rmSync(path.join(root, 'big.txt'));
  fs.rmSync(path.join(root, 'big-link.txt'));
  fs.rmSync(path.join(root, 'single.txt'));

  // ---- the root scan of a 20,000-file workspace (what a lookup after a shell command pays once)
  const rg = await findRipgrep();
  for (let i = 0; i < 20_000; i++) {
    const dir = path.join(root, `pkg${i % 40}`, `mod${Math.floor(i / 40) % 25}`);
    if (i < 1000) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `file${i}.ts`), '');
  }
  const index = new IdentityIndex({ home });
  index.build(root);
  const rootScan = () => {
    identitiesChanged();
    const r = index.build(root);
    if (r.root.known !== 1) throw new Error(`the root scan knows ${r.root.known} files`);
  };
  if (rg) {
    const rgFiles = () => {
      const r = spawnSync(rg, ['--files', '--no-ignore', '--hidden', '.'], { cwd: root, maxBuffer: 1 << 28 });
      if (r.status !== 0) throw new Error('rg --files failed');
    };
    const [scanOurs, scanRef] = await pairMs(rootScan, rgFiles, 9);
    report({ name: 'root scan (home and workspace), 20,000-file workspace', ours: scanOurs, reference: scanRef, unit: 'ms', against: 'rg --files' });
    // a traversal pays one lstat per matching file for the link check
    const fsPolicy = parseFsPolicy({ ...DEFAULT_CHAIN_LOCAL_FS }).policy;
    const withCheck = new LocalFsToolset({ root, policy: fsPolicy, rgPath: rg, identity: index });
    const without = new LocalFsToolset({ root, policy: fsPolicy, rgPath: rg, identity: new NoLinks({ home }) });
    const find = (ts: LocalFsToolset) => async () => {
      const r = (await ts.call('find_files', { pattern: '**/*.ts' })) as { count: number };
      if (r.count !== 20_000) throw new Error(`find_files found ${r.count}`);
    };
    const [findOurs, findRef] = await pairMs(find(withCheck), find(without), 9);
    report({ name: 'find_files **/*.ts, 20,000 matches, with the link check', ours: findOurs, reference: findRef, unit: 'ms', against: 'the same without it' });
  }
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
