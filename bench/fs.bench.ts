// local_fs against reference tools, measured in one run on a generated tree (removed after):
//   grep (literal, few matches) on 20,000 files / ~200 MB        vs rg -F
//   find_files **/*.ts on the same tree                          vs rg --files -g
//   edit_file of one line in a 50 MB file                        vs read + sha256 + write
//   approval diff of a one-line edit in a 200,000-line file      vs a plain read (< 5 ms, ≤ 2x)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { buildApprovalDiff } from '../src/core/local_fs/approval_diff.ts';
import { DEFAULT_CHAIN_LOCAL_FS, parseFsPolicy } from '../src/core/local_fs/policy.ts';
import { findRipgrep } from '../src/core/local_fs/ripgrep.ts';
import { LocalFsToolset } from '../src/core/local_fs/toolset.ts';
import { pairMs, report } from './report.ts';
import { writeTree } from './tree.ts';

const rg = await findRipgrep();
if (!rg) throw new Error('bench/fs needs @vscode/ripgrep');
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-fs-')));
const policy = (extra: Record<string, string> = {}) => parseFsPolicy({ ...DEFAULT_CHAIN_LOCAL_FS, ...extra }).policy;

try {
  // ---- a 20,000-file tree of ~200 MB, a few files holding the needle
  const tree = path.join(base, 'tree');
  const { lines, pool, bytes } = writeTree(tree);
  process.stderr.write(`tree: 20000 files, ${(bytes / 1e6).toFixed(0)} MB\n`);
  const ts = new LocalFsToolset({ root: tree, policy: policy(), rgPath: rg });
  const builtin = new LocalFsToolset({ root: tree, policy: policy(), grepEngine: 'builtin' });

  const rgRun = (args: string[]) => () => {
    const r = spawnSync(rg, args, { cwd: tree, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`rg ${args.join(' ')} exited ${r.status}`);
    return r.stdout;
  };
  const grepArgs = { path: '.', pattern: 'NEEDLE_7f3a' };
  const hits = String(await ts.call('grep', grepArgs)).split('\n').length;
  const rgHits = rgRun(['-F', '-n', 'NEEDLE_7f3a', '.'])().trim().split('\n').length;
  if (hits !== rgHits) throw new Error(`grep found ${hits} lines, rg ${rgHits}`);
  const [grepOurs, grepRef] = await pairMs(() => ts.call('grep', grepArgs), rgRun(['-F', '-n', 'NEEDLE_7f3a', '.']), 9);
  report({ name: 'grep literal, 20k files / 200 MB (ripgrep engine)', ours: grepOurs, reference: grepRef, unit: 'ms', against: 'rg -F', target: '≤ 2x' });
  const [grepBuiltin, grepRef2] = await pairMs(() => builtin.call('grep', grepArgs), rgRun(['-F', '-n', 'NEEDLE_7f3a', '.']), 3);
  report({ name: 'grep literal, same tree (in-process fallback)', ours: grepBuiltin, reference: grepRef2, unit: 'ms', against: 'rg -F' });

  const findArgs = { pattern: '**/*.ts' };
  const found = ((await ts.call('find_files', findArgs)) as { count: number }).count;
  const rgFound = rgRun(['--files', '-g', '**/*.ts'])().trim().split('\n').length;
  if (found !== rgFound) throw new Error(`find_files found ${found}, rg ${rgFound}`);
  const [findOurs, findRef] = await pairMs(() => ts.call('find_files', findArgs), rgRun(['--files', '-g', '**/*.ts']), 15);
  report({ name: 'find_files **/*.ts, same tree', ours: findOurs, reference: findRef, unit: 'ms', against: 'rg --files -g', target: '≤ 1.5x' });
  const [findBuiltin, findRef2] = await pairMs(() => builtin.call('find_files', findArgs), rgRun(['--files', '-g', '**/*.ts']), 5);
  report({ name: 'find_files **/*.ts (in-process fallback)', ours: findBuiltin, reference: findRef2, unit: 'ms', against: 'rg --files -g' });
  fs.rmSync(tree, { recursive: true, force: true });

  // ---- edit_file of one line in a 50 MB file
  // the tree's 200 MB are still being written back: an fdatasync now would wait behind them
  spawnSync('sync');
  const big = path.join(base, 'big.txt');
  const fifty = Buffer.alloc(50 * 1024 * 1024);
  for (let off = 0; off < fifty.length; off += pool.length) pool.copy(fifty, off, 0, Math.min(pool.length, fifty.length - off));
  fifty.write('\nMARKER_A\n', 25 * 1024 * 1024);
  fs.writeFileSync(big, fifty);
  const editTs = new LocalFsToolset({ root: base, policy: policy({ _max_read_bytes: '0' }) });
  await editTs.call('read_file_range', { path: 'big.txt', start_line: 1, end_line: 1 });
  let flip = false;
  // the references read the file and write a sibling of the same size (the same work as writing
  // it in place), so the edited file is as the previous edit left it, as in a session; one
  // written by someone else just before the edit is the last row
  const sibling = `${big}.ref`;
  const plainWrite = (to = sibling) => {
    const b = fs.readFileSync(big);
    createHash('sha256').update(b).digest('hex');
    fs.writeFileSync(to, b);
  };
  const durableWrite = () => {
    const b = fs.readFileSync(big);
    createHash('sha256').update(b).digest('hex');
    const fd = fs.openSync(sibling, 'w');
    fs.writeSync(fd, b);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
  };
  const atomicWrite = () => {
    const b = fs.readFileSync(big);
    createHash('sha256').update(b).digest('hex');
    const tmp = `${sibling}.tmp`;
    const fd = fs.openSync(tmp, 'w');
    fs.writeSync(fd, b);
    fs.fdatasyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, sibling);
  };
  const edit = async () => {
    flip = !flip;
    await editTs.call('edit_file', { path: 'big.txt', old_string: flip ? 'MARKER_A' : 'MARKER_B', new_string: flip ? 'MARKER_B' : 'MARKER_A' });
  };
  const [editOurs, editRef] = await pairMs(edit, () => plainWrite(), 9);
  report({ name: 'edit_file one line in 50 MB (atomic, fsync, re-verify)', ours: editOurs, reference: editRef, unit: 'ms', against: 'read + sha256 + write', target: '≤ 1.3x' });
  const [editOurs2, editRefSync] = await pairMs(edit, durableWrite, 9);
  report({ name: 'edit_file one line in 50 MB, vs a durable write', ours: editOurs2, reference: editRefSync, unit: 'ms', against: 'read + sha256 + write + fsync' });
  const [editOurs3, editRefAtomic] = await pairMs(edit, atomicWrite, 9);
  report({ name: 'edit_file one line in 50 MB, vs a bare atomic write', ours: editOurs3, reference: editRefAtomic, unit: 'ms', against: 'read + sha256 + temp + fdatasync + rename' });
  // the reference rewrites the edited file itself just before each edit: too recent for its
  // timestamps to vouch for the read, so the last check compares the bytes (a second read)
  const [editOurs4, editRefSame] = await pairMs(edit, () => plainWrite(big), 9);
  report({ name: 'edit_file one line in 50 MB, the file rewritten just before (bytes re-verified)', ours: editOurs4, reference: editRefSame, unit: 'ms', against: 'read + sha256 + write of that file' });
  fs.rmSync(big);
  fs.rmSync(sibling, { force: true });

  // ---- approval diff of a one-line edit in a 200,000-line file
  const lf = path.join(base, 'lines.txt');
  fs.writeFileSync(lf, Array.from({ length: 200_000 }, (_, i) => `line ${i} ${lines[i % lines.length]}`).join('\n') + '\n');
  const diffTs = new LocalFsToolset({ root: base, policy: policy() });
  const file = await diffTs.resolve('edit_file', 'lines.txt');
  const args = { path: 'lines.txt', old_string: 'line 150000 ', new_string: 'LINE 150000 ' };
  const d = await buildApprovalDiff(diffTs.io, file, 'edit_file', args);
  if (!d.diff?.includes('@@ -149998,7 +149998,7 @@')) throw new Error(`unexpected diff: ${d.diff}`);
  // a discarded round first: the first dozen 12 MB reads of a process take fresh pages from the
  // allocator (7-10 ms each instead of 1-2) and would otherwise set the median
  await pairMs(() => buildApprovalDiff(diffTs.io, file, 'edit_file', args), () => fs.readFileSync(lf), 9);
  const [diffOurs, diffRef] = await pairMs(() => buildApprovalDiff(diffTs.io, file, 'edit_file', args), () => fs.readFileSync(lf), 21);
  report({ name: 'approval diff, one-line edit in 200,000 lines', ours: diffOurs, reference: diffRef, unit: 'ms', against: 'reading the file', target: '< 5 ms, ≤ 2x' });
  // the gate builds the diff from the bytes its read-before-write check has just read: what the
  // approval adds to an edit is this
  const checked = await diffTs.io.read(file, { maxBytes: 64 << 20 });
  const [fromCheck, diffRef3] = await pairMs(() => buildApprovalDiff(diffTs.io, file, 'edit_file', args, checked), () => fs.readFileSync(lf), 21);
  report({ name: "approval diff, same edit, from the contract check's read (the gate's path)", ours: fromCheck, reference: diffRef3, unit: 'ms', against: 'reading the file' });
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
