// The unattended run (`cxl run`) in process: what goes wrong while its tools are built reaches
// the run's events, the run goes on, and its mission ends with a verdict in the record.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { agentSetup } from '../../src/agent/setup.ts';
import { runMission } from '../../src/agent/unattended.ts';
import type { RunEvent } from '../../src/agent/units/events.ts';
import { startFakeOpenAI } from '../fixtures/fake_models.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('an [mcp_servers] entry that fails to start is a notice of the run; the run goes on and lands', async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-run-')));
  dirs.push(dir);
  mkdirSync(path.join(dir, '.contenox'));
  writeFileSync(path.join(dir, '.contenox', 'agents.toml'), `[mcp_servers.broken]\ncommand = ${JSON.stringify(path.join(tmpdir(), 'no-such-program-xyz'))}\n`);
  const srv = await startFakeOpenAI([{ toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] }, { text: 'All done.' }]);
  try {
    // the project file is the user's own here (HOME is the folder): it applies untrusted
    const setup = await agentSetup({ cwd: dir, env: { HOME: dir, OPENAI_BASE_URL: srv.url }, provider: 'openai', model: 'm', command: 'cxl run' });
    const events: RunEvent[] = [];
    const r = await runMission(setup, { task: 'do it', intent: 'do it', agent: 'run', envelope: 'default', signal: new AbortController().signal, emit: (e) => events.push(e) });
    await setup.closeAll();
    assert.equal(r.status, 'landed');
    assert.equal(r.exit_code, 0);
    assert.equal(r.result, 'All done.');
    const notices = events.flatMap((e) => (e.type === 'notice' ? [e.text] : []));
    assert.match(notices.join('\n'), /^MCP server broken failed to start/m);
  } finally {
    await srv.close();
  }
});
