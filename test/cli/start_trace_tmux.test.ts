// CXL_TRACE_START=FILE: the UI writes when each step of its start (UI_START) ended and when the
// session showed, in ms since the process began: the breakdown bench/ui_start's figures are read
// with. Run in a real terminal (tmux), under the runtime running this test.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { UI_START } from '../../src/cli/ui.ts';
import { moduleCommand, runtimeName } from '../../src/core/platform/runtime.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { Tmux } from '../helpers/tmux.ts';

const fixture = fileURLToPath(new URL('../fixtures/scripted_agent.ts', import.meta.url));

test(`CXL_TRACE_START (${runtimeName}): every start step in order, then the session, times rising`, { timeout: 60_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-start-trace-')));
  const tmux = new Tmux();
  try {
    const trace = path.join(dir, 'trace.txt');
    const env = [`CXL_TRACE_START=${trace}`, `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`];
    tmux.start(dir, [...cxlCommand(), '--agent', quote(moduleCommand(fixture))], env, path.join(dir, '.rc'));
    await tmux.waitFor(/scripted-agent · /, 'the session');
    const deadline = Date.now() + 10_000;
    while (!(existsSync(trace) && readFileSync(trace, 'utf8').includes('session shown')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const lines = readFileSync(trace, 'utf8').trim().split('\n').map((l) => /^(\d+\.\d) (.+)$/.exec(l)!);
    assert.deepEqual(lines.map((m) => m[2]), [...UI_START.map((s) => s.name), 'session shown']);
    const times = lines.map((m) => Number(m[1]));
    assert.ok(times.every((t, i) => i === 0 || t >= times[i - 1]), times.join(' '));
    assert.ok(times[0] > 0);
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
