import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemPrompt } from '../../src/agent/loop/system_prompt.ts';
import { DEFAULT_CHAIN, fillChain, loadChain, readChainFile, taskPolicies, TOOL_PREFERENCE_ADDENDUM, type Chain } from '../../src/config/chain.ts';
import { ConfigError, loadConfig } from '../../src/config/load.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-chain-')));
  dirs.push(d);
  return d;
}

test('the default chain: local_fs and local_shell, conservative limits, the tool-preference addendum, qwen3:8b on ollama', () => {
  const home = tmp();
  const cfg = loadConfig({ home, cwd: home });
  const { chain, label } = loadChain(cfg.data, cfg.sources);
  assert.equal(label, 'built-in default chain');
  const task = chain.tasks[0];
  assert.deepEqual(task.execute_config.tools, ['local_fs', 'local_shell', 'native-git', 'native-jq', 'native-go']);
  assert.equal(task.execute_config.model, 'qwen3:8b');
  assert.equal(task.execute_config.provider, 'ollama');
  // the tool preference is said once, by the agent's system prompt; the chain adds nothing of its own
  assert.equal(task.system_prompt, undefined);
  assert.equal(systemPrompt('/w', task.system_prompt).split(TOOL_PREFERENCE_ADDENDUM).length, 2);
  assert.match(TOOL_PREFERENCE_ADDENDUM, /local_fs tools.*rather than shell/s);
  assert.match(TOOL_PREFERENCE_ADDENDUM, /local_shell for .*tests and builds, git operations the git\s+tools do not offer/s);
  assert.match(TOOL_PREFERENCE_ADDENDUM, /git tools \(git_status, .*\) rather than git in\s+local_shell/s);
  const fsPol = task.execute_config.tools_policies!.local_fs!;
  assert.equal(fsPol._max_read_bytes, '1048576');
  assert.equal(fsPol._max_output_bytes, '32768');
  assert.equal(fsPol._denied_path_substrings, 'node_modules,.git/,dist/,/.next/,/out/,package-lock.json');
  const shPol = task.execute_config.tools_policies!.local_shell!;
  // no shipped allowlist: every program not denied reaches the envelope, which allows, asks or denies
  assert.equal(shPol._allowed_commands, undefined);
  for (const p of ['sudo', 'doas', 'pkexec', 'dd', 'mkfs.ext4', 'wipefs']) assert.ok(shPol._denied_commands.split(',').includes(p), p);
  // the template is in the shipped chain, the value comes from config
  assert.equal(DEFAULT_CHAIN.tasks[0].execute_config.model, '{{var:model}}');
});

test('templates fill from [vars], model/provider and flags, flags last', () => {
  const chain: Chain = { id: 'c', tasks: [{ id: 't', system_prompt: 'repo {{var:repo}}', execute_config: { model: '{{var:model}}', provider: '{{ var:provider }}', tools: ['local_fs'], tools_policies: { local_fs: { _allowed_dir: '{{var:root}}' } } } }] };
  const filled = fillChain(chain, { model: 'm1', provider: 'p1', repo: 'cxl', root: '/w' });
  assert.equal(filled.tasks[0].execute_config.model, 'm1');
  assert.equal(filled.tasks[0].execute_config.provider, 'p1');
  assert.equal(filled.tasks[0].system_prompt, 'repo cxl');
  assert.equal(filled.tasks[0].execute_config.tools_policies?.local_fs?._allowed_dir, '/w');
  const home = tmp();
  fs.mkdirSync(path.join(home, '.contenox'));
  fs.writeFileSync(path.join(home, '.contenox', 'agents.toml'), 'model = "from-config"\n[vars]\nprovider = "from-vars"\n');
  const cfg = loadConfig({ home, cwd: home });
  const { chain: d } = loadChain(cfg.data, cfg.sources, { vars: { model: 'from-flag' } });
  assert.equal(d.tasks[0].execute_config.model, 'from-flag');
  assert.equal(d.tasks[0].execute_config.provider, 'from-vars');
});

test('an unfilled template is an error naming it and where it is', () => {
  const chain: Chain = { id: 'c', tasks: [{ id: 't', execute_config: { model: '{{var:model}}', provider: '{{var:prov}}', tools: [] } }] };
  assert.throws(
    () => fillChain(chain, { model: 'x' }, 'my.json'),
    (e: Error) => e instanceof ConfigError && e.issues.length === 1 && e.issues[0].file === 'my.json' &&
      e.issues[0].message === 'tasks[0] (t).execute_config.provider: template {{var:prov}} has no value; set prov under [vars] in agents.toml or pass --var prov=VALUE.',
  );
});

test('a chain file named in agents.toml is read relative to that file, and checked', () => {
  const home = tmp();
  const dir = path.join(home, '.contenox');
  fs.mkdirSync(path.join(dir, 'chains'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'agents.toml'), 'chain = "chains/review.json"\n[vars]\nmodel = "m"\nprovider = "p"\n');
  fs.writeFileSync(path.join(dir, 'chains', 'review.json'), JSON.stringify({ id: 'review', tasks: [{ id: 'r', execute_config: { model: '{{var:model}}', provider: '{{var:provider}}', tools: ['local_fs'], tools_policies: { local_fs: { _max_read_bytes: '10' } } } }] }));
  const cfg = loadConfig({ home, cwd: home });
  const { chain, label } = loadChain(cfg.data, cfg.sources);
  assert.equal(label, path.join(dir, 'chains', 'review.json'));
  assert.equal(chain.id, 'review');
  assert.deepEqual(chain.tasks[0].execute_config.tools, ['local_fs']);

  const bad = path.join(home, 'bad.json');
  fs.writeFileSync(bad, '{"tasks": [{"id": "a", "execute_config": {"model": "m", "provider": "p", "tools": [], "tool_policies": {}}}]');
  assert.throws(() => readChainFile(bad), /malformed JSON/);
  fs.writeFileSync(bad, '{"tasks": [{"id": "a", "execute_config": {"model": "m", "provider": "p", "tools": [], "tool_policies": {}}}]}');
  assert.throws(() => readChainFile(bad), /tasks\[0\]\.execute_config: unknown key `tool_policies`; valid keys: model, provider, tools, tools_policies\./);
  fs.writeFileSync(bad, '{"tasks": [{"id": "a", "execute_config": {"model": "m", "provider": "p", "tools": [], "tools_policies": {"local_fs": {"_max_read_bytes": 5}}}}]}');
  assert.throws(() => readChainFile(bad), /_max_read_bytes must be a string \(values are strings, even numbers\)/);
  fs.writeFileSync(bad, '{"tasks": [{"id": "a", "execute_config": {"model": "m", "provider": "p", "tools": [], "tools_policies": {"__proto__": {"_x": "1"}}}}]}');
  assert.throws(() => readChainFile(bad), /tasks\[0\]\.execute_config\.tools_policies: `__proto__` is a reserved name/);
});

test('agents.toml tools_policies override the task\'s, key by key, and say where each came from', () => {
  const home = tmp();
  fs.mkdirSync(path.join(home, '.contenox'));
  const file = path.join(home, '.contenox', 'agents.toml');
  fs.writeFileSync(file, '[tools_policies.local_shell]\n_allowed_commands = "git,ls"\n');
  const cfg = loadConfig({ home, cwd: home });
  const { chain, label } = loadChain(cfg.data, cfg.sources);
  const { policies, from } = taskPolicies(chain.tasks[0], cfg.data, cfg.sources, label);
  assert.equal(policies.local_shell._allowed_commands, 'git,ls');
  assert.equal(from.get('local_shell._allowed_commands'), file);
  assert.ok(policies.local_shell._denied_commands.includes('sudo'));
  assert.equal(from.get('local_shell._denied_commands'), 'built-in default chain task agent');
});
