// The ceiling of a mission unit (docs/missions.md, "The ceiling"): a unit's envelope with the
// firing session's as its ceiling decides every call as the stricter of the two (allow > ask >
// deny), runs commands under the stricter settings, and goes through the real gate and file
// tools so; `widerThan` finds the calls an envelope lets through further than another, from the
// rules either names, and finds none for an envelope equal or narrower (the control).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { buildEnvelope, decide, describeWidening, widerThan, withCeiling, type CallFacts, type EnvelopeSpec, type Grant } from '../../../src/core/envelope/index.ts';
import { DEFAULT_PREFIX_ALLOWLIST, FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError } from '../../../src/core/errors.ts';
import { Gate, type ApprovalRequest } from '../../../src/core/gate/gate.ts';
import { LocalFsToolset } from '../../../src/core/local_fs/toolset.ts';

const EXTRA: Record<string, EnvelopeSpec> = {
  // the envelope of the report: default, with missions.fire allowed
  boss: { extends: 'default', missions: { fire: { grant: 'allow' }, answer: { grant: 'allow' } } },
  // commands unasked, out of any sandbox, with the network and a token passed
  yolo: { extends: 'default', shell: { bare: true, grant: { grant: 'allow' }, sandbox: 'off', env: ['GH_TOKEN', 'CI'] } },
  offline: { extends: 'default', shell: { network: false, sandbox: 'required', env: ['CI'] } },
  // each wider than default by one rule only
  make_too: { extends: 'default', shell: { prefix_allowlist: [...DEFAULT_PREFIX_ALLOWLIST, 'make'] } },
  docs_free: { extends: 'default', always_allow: [{ tool: 'local_fs.write_file', path: 'docs/**' }] },
  sed_free: { extends: 'default', tools: { 'local_fs.sed': { grant: 'allow' } } },
  no_env_reads: { extends: 'default', files: { read: { deny_paths: ['config/*.secret'] } } },
};
const SPECS = { ...SHIPPED_ENVELOPES, ...EXTRA };
const env = (name: string) => buildEnvelope(name, SPECS, FLOOR_RULES);
const RANK: Record<Grant, number> = { deny: 0, approve: 1, allow: 2 };

const fsCall = (tool: string, p: string): CallFacts => ({ toolset: 'local_fs', tool, paths: [p], resolved: [p] });
const sh = (line: string, opaque?: string): CallFacts => ({ toolset: 'local_shell', tool: 'local_shell', shell: { command: line, steps: [{ argv: line.split(' ') }], ...(opaque ? { opaque } : {}) } });
const CALLS: Array<[string, CallFacts]> = [
  ['read a.txt', fsCall('read_file', 'a.txt')],
  ['read .env', fsCall('read_file', '.env')],
  ['read config/x.secret', fsCall('read_file', 'config/x.secret')],
  ['write a.txt', fsCall('write_file', 'a.txt')],
  ['write docs/x.md', fsCall('write_file', 'docs/x.md')],
  ['edit a.txt', fsCall('edit_file', 'a.txt')],
  ['sed a.txt', fsCall('sed', 'a.txt')],
  ['write .vscode/tasks.json', fsCall('write_file', '.vscode/tasks.json')],
  ['write .husky/pre-commit', fsCall('write_file', '.husky/pre-commit')],
  ['ls', sh('ls')],
  ['make', sh('make all')],
  ['rm', sh('rm a.txt')],
  ['opaque', sh('echo $(date)', 'command substitution')],
  ['fire', { toolset: 'mission', tool: 'mission_start', axis: 'missions.fire' }],
  ['mcp tool', { toolset: 'some_server', tool: 'do_it', axis: null }],
  ['remote POST', { toolset: 'api', tool: 'post', axis: null, access: 'write' }],
];

test('the meet is computed per decision: under a ceiling every call is decided as the stricter of the two envelopes (allow > ask > deny), for every pair of envelopes', () => {
  const names = Object.keys(SPECS);
  let capped = 0;
  for (const own of names) {
    for (const ceiling of names) {
      const met = withCeiling(env(own), env(ceiling));
      for (const [what, facts] of CALLS) {
        const a = decide(env(own), facts).action;
        const b = decide(env(ceiling), facts).action;
        const d = decide(met, facts);
        assert.equal(RANK[d.action], Math.min(RANK[a], RANK[b]), `${what}: ${own} (${a}) under the ceiling ${ceiling} (${b}) decided ${d.action}: ${d.sentence}`);
        assert.equal(d.envelope, own, 'the decision is still the unit envelope\'s');
        if (RANK[b] < RANK[a]) {
          capped++;
          assert.equal(d.ceiling, ceiling, `${what}: the capped decision names its ceiling`);
          assert.match(d.sentence, /the ceiling of this unit/);
        } else if (RANK[b] > RANK[a]) assert.equal(d.ceiling, undefined, `${what}: ${own} under ${ceiling} is its own decision`);
      }
    }
  }
  assert.ok(capped > 50, `the pairs cap some calls: ${capped}`);
});

test('the report\'s case: auto_edit under the ceiling boss asks before a write, where auto_edit alone allows it; an equal ceiling changes nothing (control)', () => {
  const write = fsCall('write_file', 'a.txt');
  assert.equal(decide(env('auto_edit'), write).action, 'allow');
  const d = decide(withCeiling(env('auto_edit'), env('boss')), write);
  assert.deepEqual([d.action, d.rule, d.ceiling], ['approve', 'files.write', 'boss']);
  assert.deepEqual(decide(withCeiling(env('boss'), env('boss')), write), decide(env('boss'), write));
  // narrower than its ceiling: its own decisions stand
  assert.equal(decide(withCeiling(env('read_only'), env('boss')), write).action, 'deny');
  assert.equal(decide(withCeiling(env('read_only'), env('boss')), fsCall('read_file', 'a.txt')).action, 'allow');
});

test('two allows: a line the ceiling lets run only read-only (its prefix allowlist) runs read-only under it', () => {
  const ls = sh('ls');
  assert.equal(decide(env('yolo'), ls).rule, 'shell');
  const d = decide(withCeiling(env('yolo'), env('default')), ls);
  assert.deepEqual([d.action, d.rule, d.ceiling], ['allow', 'shell.prefix_allowlist', 'default']);
});

test('commands run under the stricter settings of the two: the sandbox, the network, the environment passed', () => {
  const met = withCeiling(env('yolo'), env('offline')).resolved.shell;
  assert.deepEqual([met.sandbox?.value, met.network?.value, met.env?.value], ['required', false, ['CI']]);
  // an `off` meets an unset sandbox as auto (unset), never as off
  const underDefault = withCeiling(env('yolo'), env('default')).resolved.shell;
  assert.equal(underDefault.sandbox, undefined);
  assert.equal(underDefault.env, undefined, 'default passes no variable beyond the built-in allowlist');
  // control: the envelope alone keeps its own
  const own = env('yolo').resolved.shell;
  assert.deepEqual([own.sandbox?.value, own.env?.value], ['off', ['GH_TOKEN', 'CI']]);
});

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

test('through the real gate and file tools: auto_edit under the ceiling default asks before writing (refused with nobody to answer, the file unchanged), while auto_edit alone writes', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-ceiling-')));
  roots.push(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'before\n');
  const gateFor = (e: ReturnType<typeof env>, approver?: (req: ApprovalRequest) => void) => {
    const gate = new Gate({ envelope: e, ...(approver ? { approver: async (req) => (approver(req), { outcome: 'reject' as const }) } : {}) });
    gate.add(new LocalFsToolset({ root, approvals: 'ask', grepEngine: 'builtin' }));
    return gate;
  };
  const capped = gateFor(withCeiling(env('auto_edit'), env('default')));
  await capped.call('read_file', { path: 'a.txt' });
  await assert.rejects(capped.call('write_file', { path: 'a.txt', content: 'after\n' }), (e: unknown) => isToolError(e) && e.code === 'approval_required' && /ceiling/.test(e.message));
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'before\n');
  // the person asked sees the ceiling's decision
  const asked: ApprovalRequest[] = [];
  const withPerson = gateFor(withCeiling(env('auto_edit'), env('default')), (req) => asked.push(req));
  await withPerson.call('read_file', { path: 'a.txt' });
  await assert.rejects(withPerson.call('write_file', { path: 'a.txt', content: 'after\n' }), (e: unknown) => isToolError(e) && e.code === 'rejected');
  assert.equal(asked.length, 1);
  assert.equal(asked[0].decision.ceiling, 'default');
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'before\n');
  // control: the same envelope with no ceiling writes unasked
  const alone = gateFor(env('auto_edit'));
  await alone.call('read_file', { path: 'a.txt' });
  await alone.call('write_file', { path: 'a.txt', content: 'after\n' });
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'after\n');
});

test('widerThan names what an envelope lets through further than the session\'s, rule by rule; an equal or narrower one has nothing (control)', () => {
  const wider = (own: string, ceiling: string) => widerThan(env(own), env(ceiling)).map(describeWidening);
  assert.ok(wider('auto_edit', 'boss').some((w) => /^local_fs\.write_file on file\.txt: allow, where the session's envelope says ask$/.test(w)), wider('auto_edit', 'boss').join('\n'));
  assert.ok(wider('make_too', 'default').some((w) => /^local_shell `make`: allow/.test(w)), 'one prefix more');
  assert.ok(wider('docs_free', 'default').some((w) => /^local_fs\.write_file on docs\/x: allow/.test(w)), 'an always_allow path rule');
  assert.ok(wider('sed_free', 'default').some((w) => /local_fs\.sed.*: allow/.test(w)), 'a tools pattern');
  assert.ok(wider('default', 'no_env_reads').some((w) => /^local_fs\.read_file on config\/x\.secret: allow, where the session's envelope says deny$/.test(w)), 'a path the session may not read');
  assert.ok(wider('yolo', 'default').some((w) => /^shell\.sandbox: shell\.sandbox is `off`/.test(w)), wider('yolo', 'default').join('\n'));
  assert.ok(wider('default', 'offline').some((w) => /^shell\.network/.test(w)));
  assert.ok(wider('default', 'auto_edit').some((w) => /^local_shell `ls`: allow, where the session's envelope says ask$/.test(w)), 'default runs ls unasked, auto_edit asks');
  // controls: equal, narrower, and an envelope that runs no command is not wider for the sandbox it would not use
  for (const [own, ceiling] of [['boss', 'boss'], ['default', 'boss'], ['read_only', 'boss'], ['ask_always', 'default'], ['strict', 'default'], ['read_only', 'offline'], ['no_env_reads', 'default']]) {
    assert.deepEqual(wider(own, ceiling), [], `${own} is no wider than ${ceiling}`);
  }
});
