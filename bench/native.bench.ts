// The in-process toolsets against the binaries they stand in for, measured in one run:
//   git_status on a 20,000-file repository (5 files changed, 1 untracked)   vs git status --porcelain
//   git_diff on the same repository                                        vs git diff HEAD
//   jq_query of a select over a 5 MB JSON file                             vs jq -c
// Each pair is checked to agree first (the same changed paths, the same values).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { parseGitPolicy } from '../src/core/native_git/policy.ts';
import { NativeGitToolset } from '../src/core/native_git/toolset.ts';
import { NativeJqToolset } from '../src/core/native_jq/toolset.ts';
import { pairMs, report } from './report.ts';
import { writeTree } from './tree.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-native-')));
// the reference git runs with no user or system config and nothing a repository could make it run
const gitEnv = { PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
const git = (cwd: string, ...args: string[]): string => {
  const r = spawnSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

try {
  // ---- a 20,000-file repository, committed, then 5 files edited and 1 added
  const repo = path.join(base, 'repo');
  const { bytes } = writeTree(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'tree');
  const changed = [0, 4001, 8002, 12003, 16004].map((i) => path.join(`pkg${i % 40}`, `mod${Math.floor(i / 40) % 25}`, `file${i}${['.ts', '.js', '.md', '.json', '.txt'][i % 5]}`));
  for (const f of changed) fs.appendFileSync(path.join(repo, f), 'one more line\n');
  fs.writeFileSync(path.join(repo, 'NEW.md'), 'new\n');
  process.stderr.write(`repository: 20000 files, ${(bytes / 1e6).toFixed(0)} MB\n`);

  const ts = new NativeGitToolset({ root: repo, policy: parseGitPolicy({}).policy });
  const status = (await ts.call('git_status', {})) as { unstaged: { path: string }[]; untracked: string[] };
  const porcelain = git(repo, 'status', '--porcelain').split('\n').filter(Boolean).map((l) => l.slice(3)).sort();
  const ours = [...status.unstaged.map((e) => e.path), ...status.untracked].sort();
  if (JSON.stringify(ours) !== JSON.stringify(porcelain)) throw new Error(`git_status saw ${ours.join(', ')}; git status ${porcelain.join(', ')}`);
  const [stOurs, stRef] = await pairMs(() => ts.call('git_status', {}), () => git(repo, 'status', '--porcelain'), 5);
  report({ name: 'git_status, 20k-file repository, 5 changed + 1 new', ours: stOurs, reference: stRef, unit: 'ms', against: 'git status --porcelain' });

  const diff = ((await ts.call('git_diff', {})) as { text: string }).text;
  const refDiff = git(repo, 'diff', 'HEAD');
  for (const f of changed) if (!diff.includes(`+++ b/${f}`) || !refDiff.includes(`+++ b/${f}`)) throw new Error(`git_diff and git diff disagree on ${f}`);
  const [dfOurs, dfRef] = await pairMs(() => ts.call('git_diff', {}), () => git(repo, 'diff', 'HEAD'), 5);
  report({ name: 'git_diff, same repository', ours: dfOurs, reference: dfRef, unit: 'ms', against: 'git diff HEAD' });
  fs.rmSync(repo, { recursive: true, force: true });

  // ---- jq over a 5 MB JSON array of records
  const items: unknown[] = [];
  for (let i = 0, size = 2; size < 5 * 1024 * 1024; i++) {
    const item = { id: `item-${i}`, n: i, tags: ['alpha', 'beta', i % 7 === 0 ? 'seven' : 'other'], nested: { ok: i % 2 === 0, score: (i * 37) % 101 } };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  const file = path.join(base, 'data.json');
  fs.writeFileSync(file, JSON.stringify(items));
  process.stderr.write(`jq input: ${(fs.statSync(file).size / 1e6).toFixed(1)} MB, ${items.length} records\n`);
  const filter = '.[] | select(.nested.score == 100 and (.tags | index("seven"))) | .id';
  const jq = new NativeJqToolset({ root: base });
  const jqRef = () => {
    const r = spawnSync('jq', ['-c', filter, file], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) throw new Error(`jq: ${r.stderr || r.error?.message}`);
    return r.stdout;
  };
  const got = ((await jq.call('jq_query', { path: 'data.json', filter, max: 5000, deadline_ms: 30000 })) as { values: string[] }).values;
  const want = jqRef().trim().split('\n');
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`jq_query gave ${got.length} values, jq ${want.length}`);
  const [jqOurs, jqRefMs] = await pairMs(() => jq.call('jq_query', { path: 'data.json', filter, max: 5000, deadline_ms: 30000 }), jqRef, 5);
  report({ name: 'jq_query select over a 5 MB JSON file', ours: jqOurs, reference: jqRefMs, unit: 'ms', against: 'jq -c (binary)' });
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
