import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { runCxl } from '../helpers/cxl.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-cfgcli-')));
  dirs.push(d);
  return d;
}

test('cxl config prints each effective value with where it came from', async () => {
  const home = tmp();
  const proj = tmp();
  fs.mkdirSync(path.join(home, '.contenox'));
  fs.mkdirSync(path.join(proj, '.contenox'));
  const userFile = path.join(home, '.contenox', 'agents.toml');
  const projectFile = path.join(proj, '.contenox', 'agents.toml');
  fs.writeFileSync(userFile, 'model = "llama3"\n');
  fs.writeFileSync(projectFile, '[tools_policies.local_shell]\n_allowed_commands = "git,ls"\n');
  const trusted = await runCxl(['trust'], { cwd: proj, env: { HOME: home } });
  assert.equal(trusted.code, 0, trusted.stderr);
  const r = await runCxl(['config'], { cwd: proj, env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  const line = (re: RegExp) => r.stdout.split('\n').find((l) => re.test(l)) ?? '';
  assert.match(line(/^model = /), new RegExp(`^model = "llama3" +# ${userFile.replace(/[.]/g, '\\.')}$`));
  assert.match(line(/^provider = /), /^provider = "ollama" +# built-in defaults$/);
  assert.match(line(/^envelopes\.default\.shell\.ask_always/), /\["rm","mv","cp","chmod"\] +# built-in defaults$/);
  assert.match(r.stdout, /# default envelope: default/);
  assert.match(line(/^tools_policies\.local_shell\._allowed_commands = "git,ls"/), new RegExp(`# ${projectFile.replace(/[.]/g, '\\.')}$`));
  assert.match(line(/^tools_policies\.local_fs\._max_read_bytes/), /"1048576" +# built-in default chain task agent$/);
  // the protected paths every envelope carries: tier, pattern, reason
  assert.match(line(/^# quarantine +\*\*\/\.config\/gh\/\*\* /), /GitHub CLI tokens/);
  assert.match(line(/^# quarantine +~\/\.yarnrc\.yml /), /registry tokens/);
  assert.match(line(/^# always_ask +\*\*\/\.husky\/\*\* /), /husky hook scripts/);
  assert.match(line(/^# write_wall +\(any git dir/), /HEAD, objects and refs|wherever a git dir is/);
});

test('cxl config --check FILE validates and exits 1 with file:line:col errors', async () => {
  const dir = tmp();
  const good = path.join(dir, 'good.toml');
  const bad = path.join(dir, 'bad.toml');
  fs.writeFileSync(good, '[envelopes.mine]\nextends = "default"\nshell = { grant = "approve", timeout = "30s" }\n');
  fs.writeFileSync(bad, '[envelopes.mine]\nextends = "default"\n[envelopes.mine.shell]\nask_alwayz = ["rm"]\n');
  const ok = await runCxl(['config', '--check', good], { cwd: dir, env: { HOME: dir } });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, `${good}: ok\n`);
  const no = await runCxl(['config', '--check', bad], { cwd: dir, env: { HOME: dir } });
  assert.equal(no.code, 1);
  assert.equal(no.stderr, `${bad}:4:1: unknown key \`ask_alwayz\` in [envelopes.mine.shell]; valid keys: grant, timeout, blacklist, prefix_allowlist, ask_always, substitution, sandbox, network, env.\n`);
});

test('cxl config --check warns about a prefix_allowlist entry the command policy refuses: it could never run', async () => {
  const dir = tmp();
  const file = path.join(dir, 'agents.toml');
  // the shipped policy has no allowlist: the shipped envelopes' entries all pass it
  fs.writeFileSync(file, '[envelopes.mine]\nextends = "default"\n[envelopes.mine.shell]\nprefix_allowlist = ["ls", "git log"]\n');
  const quiet = await runCxl(['config', '--check', file], { cwd: dir, env: { HOME: dir } });
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stderr, '');
  // a person's own allowlist is the hard gate: entries of every envelope it refuses are named
  fs.writeFileSync(file, '[tools_policies.local_shell]\n_allowed_commands = "ls,git,cargo build"\n_denied_commands = "sudo,rm"\n[envelopes.mine]\nextends = "default"\n[envelopes.mine.shell]\nprefix_allowlist = ["ls", "git log", "cargo test", "rm -i"]\n');
  const warned = await runCxl(['config', '--check', file], { cwd: dir, env: { HOME: dir } });
  assert.equal(warned.code, 0, 'a warning, not an error');
  assert.equal(warned.stdout, `${file}: ok\n`);
  const lines = warned.stderr.trim().split('\n');
  assert.ok(lines.every((l) => l.startsWith(`${file}: warning: envelope `)), warned.stderr);
  const about = (env: string, entry: string) => lines.find((l) => l.includes(`envelope \`${env}\``) && l.includes(`lists \`${entry}\``));
  assert.match(about('mine', 'cargo test') ?? '', /refuses it: `cargo` is on _allowed_commands only as `cargo build`/);
  assert.match(about('mine', 'rm -i') ?? '', /refuses it: `rm` is on _denied_commands/);
  assert.match(about('default', 'pytest') ?? '', /envelope `default` \(shipped\) lists `pytest`.*`pytest` is not on _allowed_commands\. Allow it in _allowed_commands, or drop the entry\./);
  assert.equal(about('mine', 'ls'), undefined);
  assert.equal(about('mine', 'git log'), undefined);
});

test('a broken config makes cxl config fail with the error, not half a listing', async () => {
  const home = tmp();
  fs.mkdirSync(path.join(home, '.contenox'));
  fs.writeFileSync(path.join(home, '.contenox', 'agents.toml'), 'default_envelope = "nope"\n');
  const r = await runCxl(['config'], { cwd: home, env: { HOME: home } });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /default_envelope = "nope" names no envelope/);
});

test('cxl config shows the context window the server reports, and the model-request timeouts with their sources', async () => {
  const { startReplay } = await import('../fixtures/replay_server.ts');
  const srv = await startReplay({ 'POST /api/show': { chunks: [JSON.stringify({ model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 } })] } });
  try {
    const home = tmp();
    fs.mkdirSync(path.join(home, '.contenox'));
    const file = path.join(home, '.contenox', 'agents.toml');
    fs.writeFileSync(file, 'default_agent = "cpu"\n[agents.cpu]\nfirst_byte_timeout = "20m"\ncompact_threshold = 0.6\n');
    const r = await runCxl(['config'], { cwd: home, env: { HOME: home, OLLAMA_HOST: srv.origin, OPENAI_BASE_URL: undefined } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^# context window: 32768 tokens, from ollama \/api\/show qwen3\.context_length = 40960, capped at 32768 \(set context_window for more\); compaction starts at 60% \(19660 tokens\)$/m);
    assert.match(r.stdout, /^# model-request timeouts: connect 10s, first byte 20m, idle 2m$/m);
    assert.match(r.stdout, new RegExp(`^first_byte_timeout = "20m" +# ${file.replace(/[.]/g, '\\.')} \\[agents\\.cpu\\]$`, 'm'));
    const bad = path.join(home, 'bad.toml');
    fs.writeFileSync(bad, 'context_window = 100\nidle_timeout = "soon"\ncompact_threshold = 2\n');
    const no = await runCxl(['config', '--check', bad], { cwd: home, env: { HOME: home } });
    assert.equal(no.code, 1);
    assert.match(no.stderr, /bad\.toml:1:1: `context_window` = 100 is not a window size/);
    assert.match(no.stderr, /bad\.toml:2:1: `idle_timeout` = "soon" is not a duration/);
    assert.match(no.stderr, /bad\.toml:3:1: `compact_threshold` = 2 must be a share of the window between 0\.1 and 0\.95/);
  } finally {
    await srv.close();
  }
});

test('cxl config says which sandbox commands run in and why; shell.sandbox and shell.network are checked', async () => {
  const home = tmp();
  const bin = tmp();
  fs.writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
  fs.chmodSync(path.join(bin, 'bwrap'), 0o755);
  fs.mkdirSync(path.join(home, '.contenox'));
  fs.writeFileSync(path.join(home, '.contenox', 'agents.toml'), 'default_envelope = "locked"\n[envelopes.locked]\nextends = "default"\n[envelopes.locked.shell]\nsandbox = "required"\nnetwork = false\n');
  const r = await runCxl(['config'], { cwd: home, env: { HOME: home, PATH: `${bin}:${process.env.PATH}` } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /# sandbox for commands \(envelope locked\): unavailable \(bwrap cannot start a sandbox here: No permissions to create new namespace.*\); shell.sandbox = "required", so every command is refused \(sandbox_unavailable\)\. Install bubblewrap/);
  assert.match(r.stdout, /^envelopes\.locked\.shell\.network = false/m);
  const bad = path.join(home, 'bad.toml');
  fs.writeFileSync(bad, '[envelopes.x.shell]\nsandbox = "maybe"\nnetwork = "no"\n');
  const no = await runCxl(['config', '--check', bad], { cwd: home, env: { HOME: home } });
  assert.equal(no.code, 1);
  assert.match(no.stderr, /`envelopes\.x\.shell\.sandbox` must be "auto", "required", "off"; got "maybe"/);
  assert.match(no.stderr, /`envelopes\.x\.shell\.network` must be true or false; got a string/);
});

test('cxl config lists the toolsets a task offers and how the default envelope gates each tool', async () => {
  const home = tmp();
  fs.mkdirSync(path.join(home, '.contenox'));
  const cfg = path.join(home, '.contenox', 'agents.toml');
  const r = await runCxl(['config'], { cwd: home, env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  const line = (out: string, re: RegExp) => out.split('\n').find((l) => re.test(l)) ?? '';
  assert.match(r.stdout, /^# task agent: tools local_fs, local_shell, native-git, native-jq, native-go$/m);
  assert.equal(line(r.stdout, /^# +native-git:/), '#   native-git: allow git_status, git_diff, git_log, git_show, git_branch_list, git_blame; approve git_add, git_commit, git_checkout_branch, git_restore');
  assert.equal(line(r.stdout, /^# +native-jq:/), '#   native-jq: allow jq_query');
  assert.match(line(r.stdout, /^# +native-go:/), /^# {3}native-go: allow go_symbols, go_definition, go_references, go_describe, go_implementations, go_diagnostics$/);
  assert.match(line(r.stdout, /^# +local_shell:/), /decided by the shell axis \(shell\.grant approve/);
  // the allowlist vocabulary and another envelope change the listing
  fs.writeFileSync(cfg, 'default_envelope = "read_only"\ntools = ["*", "!native-go"]\n[envelopes.mine]\nextends = "default"\n');
  const ro = await runCxl(['config'], { cwd: home, env: { HOME: home } });
  assert.equal(ro.code, 0, ro.stderr);
  assert.match(ro.stdout, /^# task agent: tools \*, !native-go$/m);
  assert.equal(line(ro.stdout, /^# +native-git:/), '#   native-git: allow git_status, git_diff, git_log, git_show, git_branch_list, git_blame; deny git_add, git_commit, git_checkout_branch, git_restore');
  assert.equal(line(ro.stdout, /^# +native-go:/), '');
  assert.equal(line(ro.stdout, /^# +not offered:/), '#   not offered: native-go');
  // a [tools] pattern is ahead of the axes
  fs.writeFileSync(cfg, 'default_envelope = "mine"\n[envelopes.mine]\nextends = "default"\n[envelopes.mine.tools]\n"native-git" = { grant = "deny" }\n"native-git.git_log" = { grant = "allow" }\n');
  const mine = await runCxl(['config'], { cwd: home, env: { HOME: home } });
  assert.equal(mine.code, 0, mine.stderr);
  assert.equal(line(mine.stdout, /^# +native-git:/), '#   native-git: allow git_log; deny git_status, git_diff, git_show, git_branch_list, git_blame, git_add, git_commit, git_checkout_branch, git_restore');
});
