import './env.ts';
// The screen against an agent that offers its modes only as a `mode` config option (OpenCode's
// way; the spec is retiring `modes`): Shift+Tab and /mode switch them through the option, the
// status line follows, /config lists and sets the others. And Ctrl+C against an agent that never
// ends the turn: the screen says so, a second Ctrl+C (once the quit window is over) stops waiting,
// and the next prompt works. The peer agent is a real child process behind the real client.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AcpClient, type ClientOptions } from '../../src/client/acp_client.ts';
import { moduleCommand } from '../../src/core/platform/runtime.ts';
import { App } from '../../src/ui/App.tsx';
import { matchSnapshot } from '../helpers/snapshot.ts';
import { frameMatching, tick, KEY, renderAt, type Rendered, until } from './harness.ts';
import * as states from './states.ts';

const fixture = fileURLToPath(new URL('../fixtures/peer_agent.ts', import.meta.url));
const dirs: string[] = [];
const clients: AcpClient[] = [];
after(async () => {
  for (const c of clients) await c.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function peer(flags: string[], opts: Partial<ClientOptions> = {}): AcpClient {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-ui-modes-')));
  dirs.push(d);
  const c = new AcpClient({ argv: [...moduleCommand(fixture), ...flags], label: 'peer', cwd: d, settleMs: 5, ...opts, env: { ...process.env, HOME: d } });
  clients.push(c);
  void c.start();
  return c;
}

const opencodeLike = peer(['--config-modes']);
const stuck = peer([], { cancelNoticeMs: 400 });

const mount = (c: AcpClient, columns = 100, rows = 30) => renderAt(<App store={c.store} controller={c} animate={false} size={{ columns, rows }} />, columns, rows);
const type = (r: Rendered, text: string) => r.press(...[...text], KEY.enter);

test('modes offered only as a config option: Shift+Tab and /mode switch them, the status line follows', async () => {
  await until(opencodeLike, (s) => s.sessionId !== undefined, 'the session');
  const r = mount(opencodeLike);
  try {
    await frameMatching(r, /Peer Agent · mode Build ·/, 'the mode in the status line');
    await r.press(KEY.shiftTab);
    await frameMatching(r, /Peer Agent · mode Plan ·/, 'Shift+Tab to the next mode');
    assert.doesNotMatch(r.lastFrame(), /offers no modes/);
    await type(r, '/mode build');
    await frameMatching(r, /Peer Agent · mode Build ·/, '/mode build');
    assert.deepEqual(opencodeLike.store.getState().agentLog.filter((l) => l.includes('set_config_option mode')), ['peer-agent: set_config_option mode=plan', 'peer-agent: set_config_option mode=build']);
    await type(r, '/config effort low');
    await frameMatching(r, /i Effort: Low \(low\)\./, 'the option set');
  } finally {
    r.unmount();
  }
});

test('Ctrl+C on a turn the agent never ends: the screen says so, Ctrl+C again stops waiting, and the next prompt is answered', async () => {
  await until(stuck, (s) => s.sessionId !== undefined && !s.running, 'an idle session');
  const r = mount(stuck);
  try {
    await type(r, 'stuck');
    await frameMatching(r, /thinking hard/, 'the turn');
    await r.press(KEY.ctrlC);
    await frameMatching(r, /Peer Agent \(cancelling…\)/, 'cancelling…');
    let f = await frameMatching(r, /Peer Agent \(cancelling… Ctrl\+C stops waiting\)/, 'the overdue status');
    assert.match(f.replace(/\n\s+/g, ' '), /has not ended the turn 0\.4 s after Ctrl\+C\. Press Ctrl\+C again to stop waiting for it; the session stays open\./);
    // a second Ctrl+C within 2 s of the first quits; after that it stops waiting
    await frameMatching(r, /^(?![\s\S]*Ctrl\+C again quits)/, 'the quit window over', 5000);
    await r.press(KEY.ctrlC);
    f = await frameMatching(r, /⊘ cancelled: stopped waiting for the agent/, 'the marker');
    assert.doesNotMatch(f, /cancelling…/);
    await type(r, 'after');
    await frameMatching(r, /echo: after/, 'the next turn answered');
    assert.equal(stuck.store.getState().agent.status, 'ready', 'the agent still runs');
  } finally {
    r.unmount();
  }
});

// Fixed states for review: the status line of a cancel the agent has let wait, and a mode the agent reports but does not offer.
for (const w of [100]) {
  test(`screen: overdue cancel at ${w} columns`, async () => {
    const s = states.baseStore();
    s.beginTurn('refactor the parser');
    s.cancelTurn();
    s.cancelOverdue(10);
    const r = renderAt(<App store={s} controller={{ send() {}, cancel() {}, quit() {} }} animate={false} size={{ columns: w, rows: 20 }} />, w, 20);
    await tick();
    matchSnapshot(import.meta.url, `overdue cancel @${w}`, r.lastFrame());
    r.unmount();
  });
}
