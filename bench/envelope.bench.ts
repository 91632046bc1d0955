// Envelope decisions per second for a realistic envelope: `team` extends the shipped `default`
// and adds 50 rules of its own (always_deny, deny/approve paths on both axes, tools patterns,
// always_allow, a shell blacklist and ask list, extra prefixes), on top of the 13-rule floor and
// default's 35 prefixes. The calls mix reads, writes, compound shell lines and MCP tools.
// Reference, measured in the same run: JSON.parse of each call's JSON text (the least work any
// caller does to receive a tool call), over the same calls.
import { performance } from 'node:perf_hooks';
import { buildEnvelope, decide, type CallFacts, type EnvelopeSpec } from '../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../src/core/envelope/shipped.ts';
import { median, report } from './report.ts';

const team: EnvelopeSpec = {
  extends: 'default',
  default_action: { grant: 'approve' },
  always_deny: [
    { tool: '*', path: '**/secrets/**' },
    { tool: '*', path: '**/*.tfstate' },
    { tool: '*', path: 'infra/prod/**' },
    { tool: 'local_shell', program: 'curl,wget' },
    { tool: 'github.delete_repo' },
    { tool: '*', path: '**/.terraform/**' },
  ], // 6
  always_allow: [
    { tool: 'local_fs', path: 'docs/**' },
    { tool: 'local_fs.read_file', path: 'src/**' },
    { tool: 'local_fs.grep', path: 'src' },
    { tool: 'github.list_issues' },
  ], // 4
  files: {
    read: { deny_paths: ['**/*.sqlite', 'data/raw/**', '**/private/**', 'vendor/**'], approve_paths: ['**/{*.pem,*.key,.env,.env.*}', '**/*.crt', 'config/prod.yaml'] }, // 7
    write: { deny_paths: ['**/package-lock.json', '**/*.lock', 'migrations/**', 'LICENSE', '**/generated/**'], approve_paths: ['**/Makefile', '**/*.sh', '**/Dockerfile', '.github/**'] }, // 9
  },
  tools: {
    github: { grant: 'approve' },
    'github.get_issue': { grant: 'allow' },
    'github.search_code': { grant: 'allow' },
    jira: { grant: 'deny' },
    slack: { grant: 'approve', timeoutMs: 60_000 },
    'slack.read_channel': { grant: 'allow' },
  }, // 6
  shell: {
    grant: { grant: 'approve' },
    blacklist: ['mkfs', 'shred', 'dd', 'nc', 'ssh', 'scp'], // 6
    ask_always: ['rm', 'mv', 'cp', 'chmod', 'git push', 'npm publish'].map((s) => s.split(' ')[0]), // 6
    prefix_allowlist: [...(SHIPPED_ENVELOPES.default.shell!.prefix_allowlist ?? []), 'npm run lint', 'npm run build', 'tsc --noEmit', 'git fetch', 'git stash list', 'cargo clippy'], // +6
  },
};
const ownRules = 6 + 4 + 7 + 9 + 6 + 6 + 6 + 6;
if (ownRules !== 50) throw new Error(`the bench envelope should add 50 rules, it adds ${ownRules}`);

const env = buildEnvelope('team', { ...SHIPPED_ENVELOPES, team }, FLOOR_RULES);
const fs = (tool: string, p: string, r = p): CallFacts => ({ toolset: 'local_fs', tool, paths: [p], resolved: [r], absolute: [`/home/dev/work/app/${r}`] });
const sh = (...steps: string[][]): CallFacts => ({ toolset: 'local_shell', tool: 'local_shell', shell: { command: steps.map((s) => s.join(' ')).join(' && '), steps: steps.map((argv) => ({ argv })) } });
const calls: CallFacts[] = [
  fs('read_file', 'src/app/main.ts'),
  fs('read_file', 'README.md'),
  fs('grep', 'src'),
  fs('list_dir', '.'),
  fs('read_file', 'notes', '.ssh/id_ed25519'),
  fs('read_file', 'config/.env'),
  fs('write_file', 'src/app/main.ts'),
  fs('edit_file', 'Makefile'),
  fs('sed', 'package-lock.json'),
  fs('write_file', '.git/hooks/pre-commit'),
  fs('stat_file', 'data/raw/dump.csv'),
  fs('find_files', 'docs'),
  sh(['git', 'status']),
  sh(['git', 'status'], ['go', 'test', './...']),
  sh(['ls', '-la'], ['rm', '-rf', 'build']),
  sh(['npm', 'run', 'lint'], ['npm', 'run', 'build'], ['npm', 'test']),
  sh(['curl', 'https://example.com']),
  sh(['cat', '.env']),
  sh(['make', 'deploy']),
  { toolset: 'github', tool: 'create_issue' },
  { toolset: 'github', tool: 'get_issue' },
  { toolset: 'slack', tool: 'post_message' },
  { toolset: 'linear', tool: 'create_ticket' },
];
const texts = calls.map((c) => JSON.stringify({ tool: `${c.toolset}.${c.tool}`, args: c }));

/** Calls per second of `fn` over one slice of `ms`. */
function slice(fn: (i: number) => unknown, ms: number): number {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let k = 0; k < 1000; k++) fn(n++);
    t = performance.now();
  }
  return (n / (t - t0)) * 1000;
}

let sink = 0;
const oursFn = (i: number) => {
  sink += decide(env, calls[i % calls.length]).sentence.length;
};
const refFn = (i: number) => {
  sink += (JSON.parse(texts[i % texts.length]) as { tool: string }).tool.length;
};
// Warm up, then alternate 100 ms slices of each so that load on the machine hits both alike;
// report the median slice of each.
slice(oursFn, 300);
slice(refFn, 300);
const a: number[] = [];
const b: number[] = [];
for (let r = 0; r < 15; r++) {
  a.push(slice(oursFn, 100));
  b.push(slice(refFn, 100));
}
const ours = median(a);
const reference = median(b);
if (sink === 0) throw new Error('unreachable');
report({ name: 'envelope decisions, 50-rule envelope over default + floor', ours, reference, unit: 'decisions/s', against: 'JSON.parse of the same calls', target: '> 100000 decisions/s' });
