// docs/acp.md's method table is the promise of what cxl does with each ACP v1 method: it must
// list exactly the methods the SDK names, and each "answers" it makes must hold against the
// running programs: `cxl acp` as a child process is sent every agent request, and a peer agent
// sends the terminal UI's client every client request. A method either side stops answering
// (or the SDK adds) fails here until the table says so.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { Harness } from './agent/acp/harness.ts';
import { peer, removePeers, shown, waitFor } from './client/peer_harness.ts';

after(removePeers);

interface Row {
  method: string;
  side: 'agent' | 'client' | 'both';
  agent: string;
  ui: string;
}

/** The rows between the table's markers in docs/acp.md. */
function table(): Row[] {
  const doc = readFileSync(new URL('../docs/acp.md', import.meta.url), 'utf8');
  const m = /<!-- methods:start -->\n([\s\S]*?)\n<!-- methods:end -->/.exec(doc);
  assert.ok(m, 'docs/acp.md has the <!-- methods:start --> … <!-- methods:end --> markers');
  return m[1]
    .split('\n')
    .slice(2)
    .map((line) => {
      const [method, side, agent, ui] = line.split('|').slice(1, -1).map((c) => c.trim());
      return { method: method.replace(/`/g, ''), side: side as Row['side'], agent, ui };
    });
}

/** What the answering side's cell claims: answered, handled as a notification, or neither. */
function claim(r: Row): 'answers' | 'notification' | 'none' {
  const cell = r.side === 'agent' ? r.agent : r.ui;
  if (/^handled \(notification\)/.test(cell)) return 'notification';
  return /^answers/.test(cell) ? 'answers' : 'none';
}

test("the table lists exactly the SDK's method names, each on the side the SDK puts it", () => {
  const rows = table();
  assert.deepEqual(rows.map((r) => r.method).sort(), [...Object.values(acp.AGENT_METHODS), ...Object.values(acp.CLIENT_METHODS), ...Object.values(acp.PROTOCOL_METHODS)].sort());
  for (const r of rows) {
    const side = (Object.values(acp.AGENT_METHODS) as string[]).includes(r.method) ? 'agent' : (Object.values(acp.CLIENT_METHODS) as string[]).includes(r.method) ? 'client' : 'both';
    assert.equal(r.side, side, `${r.method} is answered by the ${side}`);
    assert.ok(r.agent && r.ui, `${r.method} says what both cxl acp and the UI do`);
  }
});

test('cxl acp answers every agent request the table says it answers (none gets -32601)', async () => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-methods-doc-')));
  // a model server that is not there: no method here needs one
  const h = new Harness({ args: ['--provider', 'openai', '--model', 'm'], env: { HOME: base, XDG_DATA_HOME: path.join(base, 'data'), OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k' } });
  try {
    await h.start();
    const rows = table().filter((r) => r.side === 'agent');
    assert.ok(rows.length > 0);
    for (const r of rows) {
      if (claim(r) === 'notification') continue; // no answer to look at: test/agent/acp/methods.test.ts cancels a turn with it
      const code = await h.agent.request(r.method, {}).then(
        () => undefined,
        (e: { code?: number }) => e.code,
      );
      assert.equal(code === -32601, claim(r) === 'none', `${r.method}: the table says "${r.agent}", cxl acp answered ${code ?? 'a result'}`);
    }
  } finally {
    await h.stop();
    rmSync(base, { recursive: true, force: true });
  }
});

test("the UI's client answers every client request the table says it answers, and handles its notifications", async () => {
  const c = peer([]);
  await waitFor(c, (s) => s.sessionId !== undefined, 'the session');
  c.send('probe');
  const s = await waitFor(c, (x) => shown(x).includes('probe update') && x.agentLog.some((l) => l.includes('elicitation/complete probe-e')) && x.agentLog.includes('peer-agent: probe done'), 'the probe turn');
  // `peer-agent: probe METHOD CODE` per request the peer agent sent (stderr, read apart from the protocol: hence `probe done`)
  const answered = new Map(s.agentLog.map((l) => /^peer-agent: probe (\S+) (\S+)$/.exec(l)).flatMap((m) => (m ? [[m[1], m[2]] as const] : [])));
  const rows = table().filter((r) => r.side === 'client');
  for (const r of rows) {
    if (claim(r) === 'notification') {
      assert.ok(['session/update', 'elicitation/complete'].includes(r.method), `${r.method} is sent by the probe as a notification`);
      continue;
    }
    const code = answered.get(r.method);
    assert.ok(code !== undefined, `the probe sent ${r.method}`);
    assert.equal(code === '-32601', claim(r) === 'none', `${r.method}: the table says "${r.ui}", the UI answered ${code}`);
  }
});
