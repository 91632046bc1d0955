// `cxl --connect URL` end to end in a real terminal (tmux), under the runtime running this test:
// a standing host (`cxl serve`, a real process) with a scripted model server on 127.0.0.1; the UI
// attached over the WebSocket shows a session, says once what the host does not serve, and shows
// the host's answer to a prompt. The host keeps running after the UI quits.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cxlCommand } from '../helpers/cxl.ts';
import { serve, TOKEN, workspaceWithModel } from '../helpers/serve.ts';
import { exitCode, Tmux } from '../helpers/tmux.ts';

test('cxl --connect: the UI attached to a standing host shows a session and the answer', async () => {
  const w = await workspaceWithModel([{ text: 'Answered by the host.' }]);
  const s = await serve(w);
  const tmux = new Tmux();
  const client = fs.realpathSync(fs.mkdtempSync(path.join(path.dirname(w.dir), 'cxl-connect-client-')));
  try {
    const rcFile = path.join(client, '.rc');
    const env = ['NO_COLOR=1', 'CI=true', `HOME=${client}`, `XDG_DATA_HOME=${client}/.data`, `CXL_SERVE_TOKEN=${TOKEN}`];
    tmux.start(client, [...cxlCommand(), '--connect', s.url], env, rcFile, 110, 30);
    const shown = await tmux.waitFor(/Attached to a standing host for/, 'the once notice of the host', 30_000);
    assert.match(shown.replace(/\s+/g, ' '), new RegExp(`standing host for ${w.dir.replace(/[/.]/g, '\\$&')}`));
    await tmux.waitFor(/^cxl .*[0-9a-f]{8}/m, 'a session on the status line', 20_000);
    tmux.type('hello host');
    tmux.keys('Enter');
    await tmux.waitFor(/Answered by the host\./, "the host's answer", 20_000);
    assert.equal(w.srv.requests.length, 1, 'the host asked its model');
    assert.equal(s.stderr(), '');
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
    assert.equal(s.child.exitCode, null, 'the host is still running');
    assert.match(s.log(), /connection closed/);
  } finally {
    tmux.kill();
    await s.stop();
    await w.cleanup();
    fs.rmSync(client, { recursive: true, force: true });
  }
});
