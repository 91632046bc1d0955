// `cxl --agent` in a real terminal (tmux) against the peer agent (test/fixtures/peer_agent.ts),
// under the runtime running this test: log in from the picker, --model matched by name, a turn
// the agent leaves pending, the agent log pane, Ctrl+C then the cancelled marker; and an agent
// whose session cannot open; updates the SDK cannot read (an unknown kind, a malformed one) kept
// off the screen and in the agent log. Each run has its own tmux server, always killed.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { moduleCommand, runtimeName } from '../../src/core/platform/runtime.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { matchSnapshot } from '../helpers/snapshot.ts';
import { exitCode, Tmux } from '../helpers/tmux.ts';

const fixture = fileURLToPath(new URL('../fixtures/peer_agent.ts', import.meta.url));

/** Type a prompt and send it once it is in the composer (Enter in the same read as the text is the input layer's business). */
async function send(tmux: Tmux, text: string): Promise<void> {
  tmux.type(text);
  await tmux.waitFor(new RegExp(`─\n› ${text}`), `the typed ${text}`);
  tmux.keys('Enter');
}

function workdir() {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-peer-')));
  // CI=true as in CI itself: Ink would draw nothing live under it unless cxl sets it aside.
  return { dir, rcFile: path.join(dir, '.rc'), env: ['NO_COLOR=1', 'CI=true', `HOME=${dir}`, 'PEER_API_KEY=', 'GEMINI_API_KEY='] };
}

test(`cxl --agent in tmux (${runtimeName}): log in from the picker, the model by name, a turn left pending, the agent log, Ctrl+C`, { timeout: 90_000 }, async () => {
  const { dir, rcFile, env } = workdir();
  const tmux = new Tmux();
  try {
    tmux.start(dir, [...cxlCommand(), '--agent', quote([...moduleCommand(fixture), '--auth', '--models', 'legacy']), '--model', 'peer large'], env, rcFile);
    let screen = await tmux.waitFor(/log in to Peer Agent[\s\S]*1\. Log in with Peer/, 'the login picker');
    assert.match(screen, /reads PEER_API_KEY \(not set\)/);
    assert.match(screen, /Peer Agent \(no session\)/);
    tmux.keys('1');
    screen = await tmux.waitFor(/Peer Agent · model Peer Large · .*session peer-1/, 'the session, on the model asked for by name');

    for (const round of [1, 2]) {
      await send(tmux, 'example');
      await tmux.waitFor(/Skip this change/, `the approval of round ${round}`);
      await tmux.answer('n');
      await tmux.waitFor(round === 1 ? /Skipped it\./ : /Skipped it\.[\s\S]*Skipped it\./, `round ${round} to end`, 20_000, () => tmux.scrollback());
    }
    screen = await tmux.waitFor(/(left pending by the agent)[\s\S]*(left pending by the agent)/, 'both pending calls closed', 10_000, () => tmux.scrollback());
    assert.equal(screen.match(/Modifying critical configuration file/g)?.length, 2, `each call once:\n${screen}`);
    assert.deepEqual([...screen.matchAll(/› example|Skipped it\./g)].map((m) => m[0]), ['› example', 'Skipped it.', '› example', 'Skipped it.']);

    tmux.keys('C-l');
    screen = await tmux.waitFor(/agent log: stderr of Peer Agent[\s\S]*peer-agent: authenticate agent-login/, 'the agent log pane');
    tmux.keys('C-l');
    await tmux.waitFor(/^(?![\s\S]*agent log: stderr)/, 'the pane closed');

    await send(tmux, 'slow');
    await tmux.waitFor(/working/, 'the slow turn');
    tmux.keys('C-c');
    await tmux.waitFor(/⊘ cancelled/, 'the cancelled marker');
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0', 'Ctrl+D quits with exit code 0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test(`cxl --agent in tmux (${runtimeName}): a session that cannot open, and a prompt that says it was not sent`, { timeout: 90_000 }, async () => {
  const { dir, rcFile, env } = workdir();
  const tmux = new Tmux();
  try {
    tmux.start(dir, [...cxlCommand(), '--agent', quote([...moduleCommand(fixture), '--no-session', 'Connection error.'])], env, rcFile);
    const screen = await tmux.waitFor(/Peer Agent \(no session\)/, 'the status line');
    assert.match(screen, /did not start a session: Internal error \(-32603\)\.\n\s+│ Connection error\./);
    await send(tmux, 'hello');
    await tmux.waitFor(/Not sent: “hello”/, 'the notice');
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test(`cxl --agent in tmux (${runtimeName}): updates the SDK cannot read leave the screen clean and land in the agent log`, { timeout: 90_000 }, async () => {
  const { dir, rcFile, env } = workdir();
  const tmux = new Tmux();
  try {
    tmux.start(dir, [...cxlCommand(), '--agent', quote(moduleCommand(fixture))], env, rcFile, 100, 50);
    await tmux.waitFor(/Peer Agent · .*session peer-1/, 'the session');
    await send(tmux, 'unknown');
    await tmux.waitFor(/after the unknown update/, 'the turn after the unknown update');
    await send(tmux, 'garbled');
    let screen = await tmux.waitFor(/after the garbled update[\s\S]*Ctrl\+L agent log/, 'the turn after the unreadable update');
    await new Promise((r) => setTimeout(r, 300));
    screen = tmux.screen();
    // nothing the SDK printed, no stale working row: the two turns with one muted line each, then
    // the composer (the status line below it names this machine's sandbox, so it is left out)
    const conversation = screen.slice(0, screen.indexOf('\n─')).replace(/^\s*\n/, '');
    matchSnapshot(import.meta.url, 'unreadable updates', conversation);
    assert.doesNotMatch(screen, /Error handling notification|Invalid message|working/);
    tmux.keys('C-l');
    screen = await tmux.waitFor(/agent log: stderr of Peer Agent/, 'the agent log pane');
    assert.match(screen, /\[cxl\] an update of a kind this client does not know \(plan_update\)/);
    assert.match(screen, /\[cxl\] error: Error handling notification[\s┆]*\{"method":"session\/update"/);
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test(`cxl --agent in tmux (${runtimeName}): the MCP servers of the person's agents.toml reach the agent; one it cannot take is said`, { timeout: 90_000 }, async () => {
  const { dir, rcFile, env } = workdir();
  mkdirSync(path.join(dir, '.contenox'));
  writeFileSync(path.join(dir, '.contenox', 'agents.toml'), '[mcp_servers.files]\ncommand = "node"\nargs = ["files-mcp.js", "--root", "."]\n\n[mcp_servers.issues]\nurl = "http://127.0.0.1:9/mcp"\n');
  const tmux = new Tmux();
  try {
    // the peer agent takes stdio servers only (no mcpCapabilities), and writes what it was sent to stderr
    tmux.start(dir, [...cxlCommand(), '--agent', quote(moduleCommand(fixture))], env, rcFile, 160, 40);
    let screen = await tmux.waitFor(/Peer Agent · .*1 MCP server not passed/, 'the session, with the server not passed counted');
    assert.match(screen, /Not passed to Peer Agent: MCP server issues \(http: the agent does not take MCP servers over HTTP\)/);
    tmux.keys('C-l');
    screen = await tmux.waitFor(/agent log: stderr of Peer Agent[\s\S]*mcpServers/, 'the agent log pane');
    assert.match(screen.replace(/\s*┆?\n\s*/g, ''), /peer-agent: mcpServers \[\{"name":"files","command":"node","args":\["files-mcp\.js","--root","\."\],"env":\[\]\}\]/);
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
