// The unattended run (`cxl run`) in process: what goes wrong while its tools are built, and
// what an attached server says while the run goes on, reaches the run's progress stream.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { agentSetup } from '../../src/agent/setup.ts';
import { runUnattended } from '../../src/agent/unattended.ts';
import { startFakeOpenAI } from '../fixtures/fake_models.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('an [mcp_servers] entry that fails to start is reported on the progress stream; the run goes on', async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-run-')));
  dirs.push(dir);
  mkdirSync(path.join(dir, '.contenox'));
  writeFileSync(path.join(dir, '.contenox', 'agents.toml'), `[mcp_servers.broken]\ncommand = ${JSON.stringify(path.join(tmpdir(), 'no-such-program-xyz'))}\n`);
  const srv = await startFakeOpenAI([{ text: 'All done.' }]);
  try {
    const setup = await agentSetup({ cwd: dir, env: { HOME: dir, OPENAI_BASE_URL: srv.url }, provider: 'openai', model: 'm', command: 'cxl run' });
    const progress: string[] = [];
    const r = await runUnattended(setup, 'do it', { signal: new AbortController().signal, progress: (l) => progress.push(l) });
    await setup.closeAll();
    assert.equal(r.stopReason, 'end_turn');
    assert.equal(r.answer, 'All done.');
    assert.match(progress.join(''), /^cxl run: MCP server broken failed to start/m);
  } finally {
    await srv.close();
  }
});
