import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decide } from '../../src/core/envelope/index.ts';
import { BUILTIN, ConfigError, formatIssue, loadConfig, parseConfigText } from '../../src/config/load.ts';
import { trustFolder } from '../../src/config/trust.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A home dir and a project dir, with the given agents.toml texts. */
async function setup(user?: string, project?: string): Promise<{ home: string; cwd: string; userFile: string; projectFile: string }> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-config-')));
  dirs.push(base);
  const home = path.join(base, 'home');
  const cwd = path.join(base, 'proj');
  const userFile = path.join(home, '.contenox', 'agents.toml');
  const projectFile = path.join(cwd, '.contenox', 'agents.toml');
  fs.mkdirSync(path.dirname(userFile), { recursive: true });
  fs.mkdirSync(path.dirname(projectFile), { recursive: true });
  if (user !== undefined) fs.writeFileSync(userFile, user);
  if (project !== undefined) fs.writeFileSync(projectFile, project);
  // the person trusted this project's configuration as written (config/trust.ts)
  if (project !== undefined) await trustFolder(cwd, home);
  return { home, cwd, userFile, projectFile };
}

/** The issues of a text that must fail, formatted as `cxl config --check` prints them. */
function issues(text: string, file = 'agents.toml'): string[] {
  try {
    parseConfigText(file, text);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map(formatIssue);
    throw err;
  }
  assert.fail(`expected ${JSON.stringify(text)} to fail`);
}

const shell = (argv: string[]) => ({ toolset: 'local_shell', tool: 'local_shell', shell: { command: argv.join(' '), steps: [{ argv }] } });

describe('layering', () => {
  test('built-in defaults alone: the default envelope, qwen3:8b on ollama', async () => {
    const { home, cwd } = await setup();
    const c = loadConfig({ home, cwd });
    assert.deepEqual(c.files, []);
    assert.equal(c.defaultEnvelope, 'default');
    assert.equal(c.data.model, 'qwen3:8b');
    assert.equal(c.data.provider, 'ollama');
    assert.equal(c.sources.get('model'), BUILTIN);
    assert.deepEqual(Object.keys(c.envelopes).sort(), ['ask_always', 'auto_edit', 'default', 'read_only', 'serve', 'strict']);
  });
  test('weakest first: built-in < ~/.contenox < project < [agents.<name>] of each, each value with its source', async () => {
    const { home, cwd, userFile, projectFile } = await setup(
      `model = "llama3"\ndefault_envelope = "mine"\n[envelopes.mine]\nextends = "default"\n[envelopes.mine.shell]\nblacklist = ["mkfs"]\nask_always = ["git"]\n[agents.rev]\nprovider = "openai"\n`,
      `provider = "vllm"\n[envelopes.mine.shell]\nask_always = ["make"]\n[agents.rev]\ndefault_envelope = "read_only"\nmodel = "qwen3:32b"\n`,
    );
    const c = loadConfig({ home, cwd });
    assert.deepEqual(c.files, [userFile, projectFile]);
    assert.equal(c.data.model, 'llama3');
    assert.equal(c.sources.get('model'), userFile);
    assert.equal(c.data.provider, 'vllm');
    assert.equal(c.sources.get('provider'), projectFile);
    assert.equal(c.sources.get('envelopes.mine.shell.ask_always'), projectFile);
    assert.equal(c.sources.get('envelopes.mine.shell.blacklist'), userFile);
    assert.equal(c.sources.get('envelopes.default.shell.prefix_allowlist'), BUILTIN);
    const e = c.envelope();
    assert.equal(e.name, 'mine');
    assert.equal(decide(e, shell(['make'])).rule, 'shell.ask_always');
    assert.equal(decide(e, shell(['mkfs'])).action, 'deny');
    const r = loadConfig({ home, cwd, agent: 'rev' });
    assert.equal(r.defaultEnvelope, 'read_only');
    assert.equal(r.sources.get('default_envelope'), `${projectFile} [agents.rev]`);
    assert.equal(r.data.provider, 'openai');
    assert.equal(r.sources.get('provider'), `${userFile} [agents.rev]`);
    assert.equal(r.data.model, 'qwen3:32b');
  });
  test('HOME decides where the user file is', async () => {
    const { home, cwd, userFile } = await setup('model = "from-home"\n');
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const c = loadConfig({ cwd });
      assert.equal(c.data.model, 'from-home');
      assert.equal(c.sources.get('model'), userFile);
    } finally {
      process.env.HOME = saved;
    }
  });
  test('an axis table over a bare grant refines it; a bare grant over a table replaces it', async () => {
    const { home, cwd } = await setup(`[envelopes.a]\nshell = "approve"\n[envelopes.b]\nextends = "default"\n`, `[envelopes.a.shell]\nblacklist = ["dd"]\n[envelopes.b]\nshell = "allow"\n`);
    const c = loadConfig({ home, cwd });
    const a = c.envelope('a');
    assert.equal(decide(a, shell(['ls'])).action, 'approve');
    assert.equal(decide(a, shell(['dd'])).action, 'deny');
    const b = c.envelope('b');
    assert.equal(decide(b, shell(['rm', 'x'])).action, 'allow', 'the ask_always list went with the replaced axis');
  });
  test('always_deny accumulates across levels and the floor stays', async () => {
    // the user's file adds to the shipped default; the project adds to its own envelope over it
    const { home, cwd } = await setup(
      `[[envelopes.default.always_deny]]\ntool = "*"\npath = "vault/**"\n`,
      `[envelopes.team]\nextends = "default"\n[[envelopes.team.always_deny]]\ntool = "local_shell"\nprogram = "curl"\nreason = "no network"\n`,
    );
    const e = loadConfig({ home, cwd }).envelope('team');
    assert.equal(decide(e, { toolset: 'local_fs', tool: 'read_file', paths: ['vault/k'] }).action, 'deny');
    assert.match(decide(e, shell(['curl', 'x'])).sentence, /program = "curl" \} \(no network\)/);
    assert.equal(decide(e, { toolset: 'local_fs', tool: 'read_file', paths: ['.ssh/id_rsa'] }).action, 'deny');
  });
  test('[mcp_servers.<name>] is a known key', async () => {
    const { home, cwd } = await setup(`[mcp_servers.github]\ncommand = "npx"\nargs = ["-y", "server-github"]\nenv = { GITHUB_TOKEN = "x" }\n[mcp_servers.remote]\nurl = "http://127.0.0.1:9000/mcp"\n`);
    const c = loadConfig({ home, cwd });
    assert.deepEqual(c.data.mcp_servers?.github, { command: 'npx', args: ['-y', 'server-github'], env: { GITHUB_TOKEN: 'x' } });
    assert.equal(c.data.mcp_servers?.remote.url, 'http://127.0.0.1:9000/mcp');
  });
  test('tools_policies at every level, integers and lists stored as strings', async () => {
    const { home, cwd, projectFile } = await setup(`[tools_policies.local_fs]\n_max_read_bytes = 2048\n`, `[tools_policies.local_shell]\n_allowed_commands = ["git", "ls"]\n`);
    const c = loadConfig({ home, cwd });
    assert.deepEqual(c.data.tools_policies, { local_fs: { _max_read_bytes: '2048' }, local_shell: { _allowed_commands: 'git,ls' } });
    assert.equal(c.sources.get('tools_policies.local_shell._allowed_commands'), projectFile);
  });
});

describe('errors name file, line and column; nothing half-loads', () => {
  test('malformed TOML', () => {
    assert.deepEqual(issues('a = 1\nb = [1,\n[x]\n', '/p/agents.toml'), [
      '/p/agents.toml:3:2: malformed TOML: Unexpected character, expecting string, number, datetime, boolean, inline array or inline table',
    ]);
    assert.match(issues('model = "a"\nmodel = "b"\n')[0], /^agents\.toml:2:\d+: malformed TOML: Can't redefine existing key/);
  });
  test('an unknown key names the key and lists the valid ones', () => {
    assert.deepEqual(issues('modle = "x"\n'), [
      'agents.toml:1:1: unknown key `modle` in the top level; valid keys: default_envelope, default_agent, model, provider, chain, tools, vars, tools_policies, envelopes, mcp_servers, remote_tools, context_window, compact_threshold, connect_timeout, first_byte_timeout, idle_timeout, inline_tool_calls, theme, notify, terminal_title, default_mission_envelope, fleet_max_parallel, checkpoint_session_bytes, memory_files, agents, trust.',
    ]);
    assert.deepEqual(issues('[envelopes.mine]\nextends = "default"\n\n[envelopes.mine.shell]\ngrant = "approve"\n  ask_alwayz = ["rm"]\n'), [
      'agents.toml:6:3: unknown key `ask_alwayz` in [envelopes.mine.shell]; valid keys: grant, timeout, on_timeout, blacklist, prefix_allowlist, ask_always, substitution, sandbox, network, env.',
    ]);
    assert.deepEqual(issues('[envelopes.x]\nfiles.raed = "allow"\n'), ['agents.toml:2:1: unknown key `raed` in [envelopes.x.files]; valid keys: read, write.']);
    assert.match(issues('[tools_policies.local_fs]\n_max_bytes = "1"\n')[0], /^agents\.toml:2:1: unknown key `_max_bytes` in \[tools_policies\.local_fs\]; valid keys: _allowed_dir, _max_read_bytes, /);
    assert.match(issues('[tools_policies.local_sh]\n_allowed_commands = "ls"\n')[0], /^agents\.toml:1:1: unknown key `local_sh` in \[tools_policies\]; valid keys: local_fs, local_shell, native-git, native-jq, native-go\./);
    assert.match(issues('[agents.rev.envelopes.x]\nshel = "deny"\n')[0], /^agents\.toml:2:1: unknown key `shel` in \[agents\.rev\.envelopes\.x\]/);
    assert.match(issues('[agents.rev]\nagents = {}\n')[0], /unknown key `agents` in \[agents\.rev\]/);
  });
  test('a wrong type says what was expected', () => {
    assert.deepEqual(issues('default_envelope = 3\n'), ['agents.toml:1:1: `default_envelope` must be a string, got an integer (3).']);
    assert.deepEqual(issues('[envelopes.x]\nshell = "maybe"\n'), ['agents.toml:2:1: `envelopes.x.shell` = "maybe" is not a grant; expected one of allow, approve, deny.']);
    assert.deepEqual(issues('[envelopes.x.shell]\nblacklist = "rm"\n'), ['agents.toml:2:1: `envelopes.x.shell.blacklist` must be an array of strings, got a string ("rm").']);
    assert.deepEqual(issues('[envelopes.x]\ntools = { "github.create_issue" = { grant = "approve", timeout = "soon" } }\n'), [
      'agents.toml:2:1: `envelopes.x.tools.github.create_issue.timeout` = "soon" is not a duration; write e.g. "30s", "5m", "1h" or a number of seconds.',
    ]);
    assert.deepEqual(issues('[mcp_servers.gh]\nargs = ["x"]\n'), ['agents.toml:1:1: [mcp_servers.gh] needs `command` (a program to spawn) or `url` (an HTTP endpoint).']);
    assert.deepEqual(issues('[envelopes.Bad]\n'), ['agents.toml:1:1: `Bad` is not an envelope name: use lower-case letters, digits, _ and -, starting with a letter or digit.']);
    assert.match(issues('[[envelopes.x.always_deny]]\npath = "a/**"\n[[envelopes.x.always_deny]]\ntool = "*"\n')[0], /^agents\.toml:3:1: rule 2 of `envelopes\.x\.always_deny` names no path, no program and every tool/);
  });
  test('keys that would reach a prototype are refused, wherever they are', () => {
    assert.deepEqual(issues('[vars]\n__proto__ = "x"\n'), ['agents.toml:2:1: `__proto__` is a reserved name and cannot be a key (in [vars]). Rename it.']);
    assert.match(issues('[mcp_servers.__proto__]\ncommand = "sh"\n')[0], /^agents\.toml:1:1: `__proto__` is a reserved name/);
    assert.match(issues('[envelopes.x.tools]\nconstructor = "allow"\n')[0], /^agents\.toml:2:1: `constructor` is a reserved name/);
    assert.match(issues('[agents.prototype]\nmodel = "m"\n')[0], /`prototype` is a reserved name/);
    assert.equal(({} as Record<string, unknown>).command, undefined);
  });
  test('a tools list takes "*", toolset names and "!name"; anything else is named', () => {
    assert.deepEqual(parseConfigText('agents.toml', 'tools = ["*", "!native-go", "native-git"]\n').tools, ['*', '!native-go', 'native-git']);
    assert.deepEqual(issues('tools = ["native git", "!", "local_fs"]\n'), [
      'agents.toml:1:1: `tools` entries are "*", a toolset name or "!name" (one taken out); "native git", "!" are none of these.',
    ]);
  });
  test('program lists take programs, not prefixes', () => {
    assert.deepEqual(issues('[envelopes.x.shell]\nask_always = ["rm", "git push"]\n'), [
      'agents.toml:2:1: `envelopes.x.shell.ask_always` lists programs, and "git push" is not one; put a command prefix in prefix_allowlist, or name the program ("git").',
    ]);
  });
  test('every problem of a file is reported at once', () => {
    assert.equal(issues('modle = 1\nprovider = 2\n[envelopes.x]\nshell = "nope"\n').length, 3);
  });
  test('one bad file fails the whole load', async () => {
    const { home, cwd, projectFile } = await setup('model = "fine"\n', '[envelopes.x]\nextends = "nowhere"\n');
    assert.throws(() => loadConfig({ home, cwd }), (e: Error) => e instanceof ConfigError && e.issues.length === 1 && e.issues[0].file === projectFile && e.issues[0].line === 2 && /envelope `x` extends `nowhere`, which is not defined/.test(e.message));
    const broken = await setup('model = \n');
    assert.throws(() => loadConfig({ home: broken.home, cwd: broken.cwd }), (e: Error) => e instanceof ConfigError && e.issues[0].file === broken.userFile && e.issues[0].line === 1);
  });
  test('cycles, an unknown default envelope and an unknown agent are errors', async () => {
    const cyc = await setup('[envelopes.a]\nextends = "b"\n[envelopes.b]\nextends = "a"\n');
    assert.throws(() => loadConfig(cyc), /cycle \(a → b → a\)/);
    const def = await setup('default_envelope = "missing"\n');
    assert.throws(() => loadConfig(def), (e: Error) => e instanceof ConfigError && formatIssue(e.issues[0]) === `${def.userFile}:1:1: default_envelope = "missing" names no envelope; defined: ask_always, auto_edit, default, read_only, serve, strict.`);
    const ag = await setup('[agents.one]\nmodel = "x"\n');
    assert.throws(() => loadConfig({ ...ag, agent: 'two' }), /no \[agents\.two\] section in any config file; defined agents: one/);
  });
});

test('axis grants and timeouts written in agents.toml reach the decision, in table and bare form', async () => {
  const { home, cwd } = await setup(
    [
      '[envelopes.t]',
      'files.write = "deny"',
      '[envelopes.t.files.read]',
      'grant = "approve"',
      'timeout = "45s"',
      'deny_paths = ["private/**"]',
      '[envelopes.t.shell]',
      'grant = "approve"',
      'timeout = "1m30s"',
      'ask_always = ["rm"]',
      'substitution = { grant = "approve", timeout = 20 }',
      '',
    ].join('\n'),
  );
  const env = loadConfig({ home, cwd }).envelope('t');
  const fs = (tool: string, p: string) => ({ toolset: 'local_fs', tool, paths: [p], resolved: [p] });
  const read = decide(env, fs('read_file', 'src/a.ts'));
  assert.deepEqual([read.action, read.rule, read.timeoutMs], ['approve', 'files.read', 45_000]);
  assert.deepEqual([decide(env, fs('read_file', 'private/x')).rule, decide(env, fs('write_file', 'src/a.ts')).action], ['files.read.deny_paths', 'deny']);
  const rm = decide(env, shell(['rm', 'x']));
  assert.deepEqual([rm.action, rm.rule, rm.timeoutMs], ['approve', 'shell.ask_always', 90_000]);
  const sub = decide(env, { ...shell(['echo']), shell: { command: 'echo $(id)', steps: [], opaque: 'command substitution $(…)' } });
  assert.deepEqual([sub.rule, sub.timeoutMs], ['shell.substitution', 20_000]);
});

test('an envelope is compiled once, on first use; an unknown name is an error naming the known ones', async () => {
  const { home, cwd } = await setup('[envelopes.mine]\nextends = "strict"\n');
  const c = loadConfig({ home, cwd });
  const e = c.envelope('mine');
  assert.equal(c.envelope('mine'), e, 'the same compiled envelope every time');
  assert.equal(c.envelope(), c.envelope('default'));
  assert.equal(decide(e, { toolset: 'github', tool: 'create_issue' }).action, 'deny');
  assert.throws(() => c.envelope('nope'), /unknown envelope `nope`\. Known envelopes: ask_always, auto_edit, default, mine, read_only, serve, strict/);
});
