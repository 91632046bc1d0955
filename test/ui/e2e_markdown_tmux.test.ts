// Copying from the scrollback, in a real terminal (tmux) 60 columns wide, under the runtime
// running this test: the scripted agent answers with a Python fence (one line longer than the
// screen) and a 150-character URL; tmux's joined capture (what a copy of wrapped lines gives)
// holds the fence's lines byte for byte with no gutter, and the URL as one line.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { moduleCommand, runtimeName } from '../../src/core/platform/runtime.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { exitCode, Tmux } from '../helpers/tmux.ts';

const fixture = fileURLToPath(new URL('../fixtures/scripted_agent.ts', import.meta.url));
const URL150 = `https://example.com/${'a-very-long-path-segment/'.repeat(5)}and-then-some-more-to-reach-it/x`.padEnd(150, 'z');
const CODE = ['def total(items: list[int]) -> int:', `    return sum(i for i in items if i > 0)  # ${'only the positive ones, '.repeat(3).trim()}`, '', 'print(total([1, -2, 3]))'];

test(`scrollback copy in tmux (${runtimeName}): a fence's lines byte for byte, a 150-character URL as one line`, { timeout: 90_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-md-')));
  const rcFile = path.join(dir, '.rc');
  const tmux = new Tmux();
  try {
    const env = ['NO_COLOR=1', `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`];
    tmux.start(dir, [...cxlCommand(), '--agent', quote(moduleCommand(fixture))], env, rcFile, 60, 40);
    await tmux.waitFor(/scripted-agent · /, 'the session');
    // typed, a prompt is printed as written (a long paste would show collapsed)
    tmux.type(`open ${URL150}`);
    tmux.keys('Enter');
    await tmux.waitFor(/echo: open https/, 'the typed prompt answered');
    // an emoji: measured by the bundle's string-width (its \p{RGI_Emoji} expression is built on first use)
    tmux.write(['here: 👍🏽 ok', '```python', ...CODE, '```', '', `see ${URL150}`].join('\n'), true);
    await tmux.waitFor(/\[pasted \d+ lines\]/, 'the paste in the composer');
    tmux.keys('Enter');
    await tmux.waitFor(/echo: here:/, 'the answer');
    // printed into history once the turn has settled (the live region breaks long lines to fit)
    await tmux.waitFor(/echo: here:[\s\S]*└[\s\S]*─{20}\n›/, 'the answer printed');
    await new Promise((r) => setTimeout(r, 500));
    const joined = tmux.run('capture-pane', '-p', '-J', '-S', '-200', '-t', 'cxl');
    const lines = joined.split('\n');
    const at = lines.lastIndexOf('┌ python');
    assert.ok(at >= 0, `the fence's header in:\n${joined}`);
    assert.deepEqual(lines.slice(at + 1, at + 1 + CODE.length), CODE, 'the code as written, no gutter, long line joined');
    assert.equal(lines[at + 1 + CODE.length], '└');
    assert.ok(lines.includes(`see ${URL150}`), 'the URL is one logical line, with the word before it');
    assert.ok(lines.includes(`› open ${URL150}`), 'in a prompt too');
    assert.ok(lines.some((l) => l.endsWith('echo: here: 👍🏽 ok')), `the emoji's line drawn whole:\n${joined}`);
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
