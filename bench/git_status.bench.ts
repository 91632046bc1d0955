// native-git's status against the git binary as a repository grows, in one run:
//   git_status at 20,000 and 60,000 files (3 files changed, 1 untracked)   vs git status --porcelain
//   the per-file slope of each side between the two, (t60k - t20k) / 40,000, and their ratio
//   git_diff of the 3 changed files in the 20,000-file tree                  vs git diff
// The tree has the layout of bench/tree.ts (pkg*/mod*, 1,000 directories) with small files: a
// clean file's size does not enter a status, only the count does. The repository is packed as
// `git gc` leaves one. Each pair is checked to agree first. Beside wall time, the CPU time of each
// side (ours from process.cpuUsage, git's from the finished children's time in /proc/self/stat,
// Linux only) gives a slope a loaded machine does not swamp.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { parseGitPolicy } from '../src/core/native_git/policy.ts';
import { NativeGitToolset } from '../src/core/native_git/toolset.ts';
import { pairMs, report } from './report.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-git-status-')));
// the reference git runs with no user or system config and nothing a repository could make it run
const gitEnv = { PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
const git = (cwd: string, ...args: string[]): string => {
  const r = spawnSync('git', ['-c', 'gc.auto=0', ...args], { cwd, env: gitEnv, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const WORDS = ['const', 'function', 'return', 'import', 'export', 'value', 'result', 'index', 'string', 'number'];
const rel = (i: number) => `pkg${i % 40}/mod${Math.floor(i / 40) % 25}/file${i}${['.ts', '.js', '.md', '.json', '.txt'][i % 5]}`;

/** Files [from, to) of the tree, each a few lines of words (deterministic). */
function writeFiles(dir: string, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    if (i < 1000) fs.mkdirSync(path.join(dir, path.dirname(rel(i))), { recursive: true });
    const lines: string[] = [];
    for (let l = 0; l < 3 + (i % 17); l++) lines.push(`${WORDS[(i + l) % WORDS.length]} ${WORDS[(i * 7 + l) % WORDS.length]} ${i}.${l}`);
    fs.writeFileSync(path.join(dir, rel(i)), `${lines.join('\n')}\n`);
  }
}

const CHANGED = [7, 8_011, 15_013].map(rel);

/** Commits every file, packs the repository, then edits CHANGED and adds one untracked file. */
function commitAndEdit(dir: string, n: number): void {
  fs.rmSync(path.join(dir, 'NEW.md'), { force: true });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', `${n} files`);
  git(dir, 'repack', '-a', '-d', '-q', '--window=0');
  for (const f of CHANGED) fs.appendFileSync(path.join(dir, f), 'one more line\n');
  fs.writeFileSync(path.join(dir, 'NEW.md'), 'new\n');
  // git refreshes its index once (as a user's first status does); native-git never writes it
  git(dir, 'status', '--porcelain');
}

/** CPU ms of the children this process has waited for (Linux); undefined elsewhere. */
function childCpuMs(): number | undefined {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // cutime and cstime, fields 16 and 17, in clock ticks of 10 ms
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return undefined;
  }
}

/** Mean CPU ms of `runs` calls of each side, alternated; undefined where the children's time cannot be read. */
async function cpuPair(ours: () => unknown, ref: () => unknown, runs: number): Promise<[number, number] | undefined> {
  let a = 0;
  let b = 0;
  for (let i = 0; i < runs; i++) {
    const u = process.cpuUsage();
    await ours();
    const d = process.cpuUsage(u);
    a += (d.user + d.system) / 1000;
    const c0 = childCpuMs();
    await ref();
    const c1 = childCpuMs();
    if (c0 === undefined || c1 === undefined) return undefined;
    b += c1 - c0;
  }
  return [a / runs, b / runs];
}

const cpu: Record<number, [number, number] | undefined> = {};

async function statusPair(dir: string, n: number): Promise<[number, number]> {
  const ts = new NativeGitToolset({ root: dir, policy: parseGitPolicy({}).policy });
  const status = (await ts.call('git_status', {})) as { unstaged: { path: string }[]; untracked: string[] };
  const ours = [...status.unstaged.map((e) => e.path), ...status.untracked].sort();
  const porcelain = git(dir, 'status', '--porcelain').split('\n').filter(Boolean).map((l) => l.slice(3)).sort();
  if (JSON.stringify(ours) !== JSON.stringify(porcelain)) throw new Error(`git_status saw ${ours.join(', ')}; git status ${porcelain.join(', ')}`);
  const [o, r] = await pairMs(() => ts.call('git_status', {}), () => git(dir, 'status', '--porcelain'), RUNS);
  report({ name: `git_status, ${n / 1000}k files, 3 changed + 1 new`, ours: o, reference: r, unit: 'ms', against: 'git status --porcelain' });
  cpu[n] = await cpuPair(() => ts.call('git_status', {}), () => git(dir, 'status', '--porcelain'), RUNS);
  if (cpu[n]) report({ name: `git_status CPU, ${n / 1000}k files`, ours: cpu[n][0], reference: cpu[n][1], unit: 'ms cpu', against: 'git status --porcelain' });
  return [o, r];
}

try {
  const dir = path.join(base, 'repo');
  git(base, 'init', '-q', '-b', 'main', dir);
  writeFiles(dir, 0, 20_000);
  commitAndEdit(dir, 20_000);
  const [o20, r20] = await statusPair(dir, 20_000);

  const ts = new NativeGitToolset({ root: dir, policy: parseGitPolicy({}).policy });
  const diff = ((await ts.call('git_diff', {})) as { text: string }).text;
  const refDiff = git(dir, 'diff');
  for (const f of CHANGED) if (!diff.includes(`+++ b/${f}\n`) || !refDiff.includes(`+++ b/${f}\n`) || !diff.includes('+one more line')) throw new Error(`git_diff and git diff disagree on ${f}`);
  const [dOurs, dRef] = await pairMs(() => ts.call('git_diff', {}), () => git(dir, 'diff'), RUNS);
  report({ name: 'git_diff, 3 changed files in 20k', ours: dOurs, reference: dRef, unit: 'ms', against: 'git diff' });

  writeFiles(dir, 20_000, 60_000);
  commitAndEdit(dir, 60_000);
  const [o60, r60] = await statusPair(dir, 60_000);
  const slope = (a: number, b: number) => ((b - a) * 1000) / 40_000;
  process.stderr.write(`per-file slope 20k->60k: native-git ${slope(o20, o60).toFixed(2)} us, git ${slope(r20, r60).toFixed(2)} us\n`);
  report({ name: 'git_status per-file slope, (t60k - t20k) / 40k', ours: slope(o20, o60), reference: slope(r20, r60), unit: 'us/file', against: 'git status --porcelain', target: '<= 1.5x' });
  const [c20, c60] = [cpu[20_000], cpu[60_000]];
  if (c20 && c60) {
    process.stderr.write(`per-file CPU slope 20k->60k: native-git ${slope(c20[0], c60[0]).toFixed(2)} us, git ${slope(c20[1], c60[1]).toFixed(2)} us\n`);
    report({ name: 'git_status per-file CPU slope', ours: slope(c20[0], c60[0]), reference: slope(c20[1], c60[1]), unit: 'us cpu/file', against: 'git status --porcelain', target: '<= 1.5x' });
  }
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
