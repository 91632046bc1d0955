// Cold starts of the commands people script, whole process, against `node -e 0` spawned the same
// way (alternated, so a busy machine slows both alike): `cxl --version`, `cxl tool stat_file`,
// `cxl check "git status"`, `cxl config` (their code cache warmed by the untimed first run, as
// after any earlier use; one row without it); and whole-process `cxl tool grep` and
// `cxl tool find_files` over the 20k-file bench tree against `rg -F` and `rg --files` over the
// same tree. Run as a person runs it: the built bin, a colour terminal's environment (no
// NO_COLOR, COLORTERM set), all rows in one run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { findRipgrep } from '../src/core/local_fs/ripgrep.ts';
import { pairMs, report } from './report.ts';
import { NEEDLE, writeTree } from './tree.ts';

const bin = fileURLToPath(new URL('../bin/cxl.js', import.meta.url));
const node = process.execPath;
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-startup-')));
// no agents.toml of the user's: the figures are the product's own
const env: Record<string, string | undefined> = { ...process.env, HOME: base, XDG_DATA_HOME: path.join(base, 'data'), XDG_STATE_HOME: path.join(base, 'state'), COLORTERM: 'truecolor', TERM: 'xterm-256color' };
delete env.NO_COLOR;

const spawnRun = (cmd: string, args: string[], cwd = base) => () => {
  const r = spawnSync(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
};

try {
  fs.writeFileSync(path.join(base, 'file.txt'), 'hello\n');
  const bare = spawnRun(node, ['-e', '0']);
  const rows: Array<[string, string[], string]> = [
    ['cxl --version (Node)', ['--version'], '< 150 ms'],
    ['cxl tool stat_file, cold, whole process', ['tool', 'stat_file', '{"path":"file.txt"}'], '≤ 1.3x'],
    ['cxl check "git status", cold', ['check', 'git status'], '≤ 1.3x'],
    ['cxl config, cold', ['config'], '≤ 1.3x'],
  ];
  for (const [name, args, target] of rows) {
    const [ours, ref] = await pairMs(spawnRun(node, [bin, ...args]), bare, 21);
    report({ name, ours, reference: ref, unit: 'ms', against: 'node -e 0', ...(target ? { target } : {}) });
  }
  // the trust check: a folder with its own .contenox/agents.toml (untrusted: read, hashed, held
  // back) against the same call in a folder with none, alternated
  const project = path.join(base, 'project');
  fs.mkdirSync(path.join(project, '.contenox'), { recursive: true });
  fs.writeFileSync(path.join(project, 'file.txt'), 'hello\n');
  fs.writeFileSync(path.join(project, '.contenox', 'agents.toml'), 'default_envelope = "acme"\n[envelopes.acme]\nextends = "default"\n[mcp_servers.x]\ncommand = "true"\n');
  const stat = ['tool', 'stat_file', '{"path":"file.txt"}'];
  const [withProject, without] = await pairMs(spawnRun(node, [bin, ...stat], project), spawnRun(node, [bin, ...stat]), 21);
  report({ name: 'cxl tool stat_file, cold, in an untrusted project (trust check)', ours: withProject, reference: without, unit: 'ms', against: 'the same, no project config' });
  // the same without the code cache (its first start after an install or upgrade)
  env.CXL_NO_CODE_CACHE = '1';
  const [nocache, bareRef] = await pairMs(spawnRun(node, [bin, 'tool', 'stat_file', '{"path":"file.txt"}']), bare, 21);
  delete env.CXL_NO_CODE_CACHE;
  report({ name: 'cxl tool stat_file, cold, no code cache', ours: nocache, reference: bareRef, unit: 'ms', against: 'node -e 0' });

  const rg = await findRipgrep();
  if (!rg) throw new Error('bench/startup needs @vscode/ripgrep');
  const tree = path.join(base, 'tree');
  writeTree(tree);
  const ours = spawnRun(node, [bin, 'tool', 'grep', JSON.stringify({ path: '.', pattern: NEEDLE })], tree);
  const ref = spawnRun(rg, ['-F', '-n', NEEDLE, '.'], tree);
  const hits = JSON.parse(String(ours())).result;
  const rgHits = String(ref()).trim().split('\n').length;
  const ourHits = String(typeof hits === 'string' ? hits : JSON.stringify(hits)).split('\n').filter((l) => l.includes(NEEDLE)).length;
  if (ourHits !== rgHits) throw new Error(`cxl tool grep found ${ourHits} lines, rg ${rgHits}`);
  const [grepOurs, grepRef] = await pairMs(ours, ref, 9);
  report({ name: 'cxl tool grep literal, whole process, 20k files', ours: grepOurs, reference: grepRef, unit: 'ms', against: 'rg -F', target: '≤ 1.5x' });
  // the floor of any Node program that runs rg: Node's own start, then rg (what cxl adds is the rest)
  const floor = (run: () => unknown) => () => {
    bare();
    return run();
  };
  const [grepOurs2, grepFloor] = await pairMs(ours, floor(ref), 9);
  report({ name: 'cxl tool grep literal, whole process, 20k files', ours: grepOurs2, reference: grepFloor, unit: 'ms', against: 'node -e 0, then rg -F' });
  // find_files lists (and sorts) the whole tree before its cap of 200 names; rg lists the same files
  const findArgs = JSON.stringify({ path: '.', pattern: '**/*.ts' });
  const findOurs = spawnRun(node, [bin, 'tool', 'find_files', findArgs], tree);
  const findRef = spawnRun(rg, ['--files', '-g', '**/*.ts', '.'], tree);
  const listed = JSON.parse(String(findOurs())).result as { count: number };
  const rgListed = String(findRef()).trim().split('\n').length;
  if (listed.count !== rgListed) throw new Error(`cxl tool find_files counted ${listed.count} files, rg ${rgListed}`);
  const [findMs, findRefMs] = await pairMs(findOurs, findRef, 9);
  report({ name: 'cxl tool find_files **/*.ts, whole process, 20k files', ours: findMs, reference: findRefMs, unit: 'ms', against: 'rg --files -g', target: '≤ 1.5x' });
  const [findMs2, findFloor] = await pairMs(findOurs, floor(findRef), 9);
  report({ name: 'cxl tool find_files **/*.ts, whole process, 20k files', ours: findMs2, reference: findFloor, unit: 'ms', against: 'node -e 0, then rg --files -g' });
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
