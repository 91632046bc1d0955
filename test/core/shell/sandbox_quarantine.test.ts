// The quarantine additions, tried as an attacker would: other agents' logins (Codex, Claude,
// Copilot, Gemini, Cursor), cxl's own session logs (which hold files a person approved reading
// in other projects, wherever XDG_DATA_HOME puts them), PuTTY keys and direnv's .envrc. A test
// file run unasked by `node --test` opens each by absolute path itself; `read_file` asks for
// them with the workspace at $HOME. Each marker is readable outside cxl, so the test is real.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { runCxl } from '../../helpers/cxl.ts';
import { hasBwrap } from '../../helpers/system_tools.ts';

const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cxl-quarantine-')));
after(() => rmSync(base, { recursive: true, force: true }));
const home = path.join(base, 'home');
const ws = path.join(base, 'ws');
const state = path.join(base, 'state'); // XDG_DATA_HOME outside the home

function put(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const planted = [
  put(path.join(home, '.codex', 'auth.json'), '{"OPENAI_API_KEY":"codex-marker-q"}\n'),
  put(path.join(home, '.codex', 'sessions', '2025', 'rollout.jsonl'), 'codex-transcript-marker-q\n'),
  put(path.join(home, '.claude', '.credentials.json'), '{"claudeAiOauth":"claude-marker-q"}\n'),
  put(path.join(home, '.claude', 'projects', '-p', 's.jsonl'), 'claude-transcript-marker-q\n'),
  put(path.join(home, '.config', 'github-copilot', 'apps.json'), '{"token":"copilot-marker-q"}\n'),
  put(path.join(home, '.gemini', 'oauth_creds.json'), '{"refresh_token":"gemini-marker-q"}\n'),
  put(path.join(home, '.config', 'Cursor', 'User', 'globalStorage', 'state.vscdb'), 'cursor-marker-q\n'),
  put(path.join(home, '.local', 'share', 'cxl', 'sessions', 's1.jsonl'), '{"tool":"read_file","result":"DB_PASSWORD=home-session-marker-q"}\n'),
  put(path.join(state, 'cxl', 'sessions', 's2.jsonl'), '{"result":"xdg-session-marker-q"}\n'),
  put(path.join(ws, 'deploy', 'server.ppk'), 'PuTTY-User-Key-File-3: ssh-ed25519 ppk-marker-q\n'),
  put(path.join(ws, '.envrc'), 'export API_TOKEN=envrc-marker-q\n'),
];
put(path.join(ws, 'notes.txt'), 'ordinary-marker\n');
put(path.join(ws, 'test', 'reach.test.js'), `const fs = require('node:fs');
require('node:test').test('reach', () => {
  for (const p of ${JSON.stringify([...planted, path.join(ws, 'notes.txt')])}) {
    try { console.log('READ ' + fs.readFileSync(p, 'utf8').trim()); } catch (e) { console.log('REFUSED ' + e.code + ' ' + p); }
  }
});
`);
mkdirSync(path.join(home, '.contenox'), { recursive: true });
const env = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: state };

const haveBwrap = hasBwrap('the quarantine-addition tests (test/core/shell/sandbox_quarantine.test.ts)');

test('an unasked test run opens none of them itself, by absolute path; the ordinary file it reads', async () => {
  if (!haveBwrap) return;
  for (const p of planted) assert.match(readFileSync(p, 'utf8'), /marker-q/, `${p} is really there`);
  const r = await runCxl(['tool', 'local_shell', JSON.stringify({ command: 'node --test test/reach.test.js' }), '--root', ws], { cwd: ws, env });
  const out = JSON.parse(r.stdout);
  assert.equal(out.envelope?.rule, 'shell.prefix_allowlist', r.stdout);
  assert.match(out.result.stdout, /READ ordinary-marker/);
  assert.doesNotMatch(out.result.stdout, /marker-q/);
  assert.equal((out.result.stdout.match(/REFUSED /g) ?? []).length, planted.length, out.result.stdout);
});

test('read_file refuses them with the workspace at $HOME; .envrc asks first and reads after a yes', async () => {
  const tool = (args: Record<string, unknown>, root: string, ...flags: string[]) => runCxl(['tool', 'read_file', JSON.stringify(args), '--root', root, ...flags], { cwd: root, env });
  for (const p of planted.filter((f) => f.startsWith(home))) {
    const r = JSON.parse((await tool({ path: path.relative(home, p) }, home)).stdout);
    assert.equal(r.ok, false, p);
    assert.equal(r.code, 'quarantined', `${p}: ${r.error}`);
    const yes = JSON.parse((await tool({ path: path.relative(home, p) }, home, '--yes')).stdout);
    assert.equal(yes.code, 'quarantined', 'no approval reads a quarantined file');
  }
  // cxl's data dir where XDG_DATA_HOME put it, read from a workspace that holds it
  const xdg = JSON.parse((await tool({ path: 'state/cxl/sessions/s2.jsonl' }, base)).stdout);
  assert.equal(xdg.code, 'quarantined', xdg.error);
  const ppk = JSON.parse((await tool({ path: 'deploy/server.ppk' }, ws)).stdout);
  assert.equal(ppk.code, 'quarantined');
  const envrc = JSON.parse((await tool({ path: '.envrc' }, ws)).stdout);
  assert.equal(envrc.code, 'approval_required', envrc.error);
  const approved = JSON.parse((await tool({ path: '.envrc' }, ws, '--yes')).stdout);
  assert.match(approved.result.content ?? JSON.stringify(approved), /envrc-marker-q/);
});
