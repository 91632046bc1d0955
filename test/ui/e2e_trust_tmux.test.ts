// A folder that ships its own configuration, opened in the UI (tmux, the runtime running this
// test): the built-in agent holds it back and the UI shows what trusting it would change and asks;
// n keeps it held back (the session decides by the person's configuration), /trust asks again,
// t records the trust and a new session applies it. Each run has its own tmux server and HOME.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runtimeName } from '../../src/core/platform/runtime.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { exitCode, Tmux } from '../helpers/tmux.ts';

test(`cxl in tmux (${runtimeName}): an untrusted folder's configuration is shown, held back, and applied once trusted with t`, { timeout: 90_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-trust-')));
  const home = path.join(dir, '.home');
  mkdirSync(home);
  mkdirSync(path.join(dir, '.contenox'));
  writeFileSync(path.join(dir, '.contenox', 'agents.toml'), 'default_envelope = "acme"\n[envelopes.acme]\nextends = "default"\ndescription = "the project\'s own"\n');
  const rcFile = path.join(dir, '.rc');
  const tmux = new Tmux();
  try {
    const env = ['NO_COLOR=1', 'CI=true', `HOME=${home}`, `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`, 'OPENAI_BASE_URL=', 'OLLAMA_HOST=http://127.0.0.1:9'];
    tmux.start(dir, [...cxlCommand()], env, rcFile, 110, 40);
    let screen = await tmux.waitFor(/── trust this folder\?[\s\S]*t trust it[\s\S]*n not now/, 'the trust prompt');
    assert.match(tmux.scrollback(), /\+default_envelope = "acme"/, 'what trusting changes, as a diff');
    screen = await tmux.waitFor(/envelope default/, 'held back: the person\'s configuration decides');

    tmux.keys('n');
    screen = await tmux.waitFor(/own configuration is not applied\. \/trust asks again/, 'the dismissal');
    assert.doesNotMatch(screen, /── trust this folder\?/);
    assert.equal(existsSync(path.join(home, '.contenox', 'trusted_folders.json')), false, 'nothing recorded');

    tmux.type('/trust');
    await tmux.waitFor(/› \/trust/, 'the typed command');
    tmux.keys('Enter');
    await tmux.waitFor(/── trust this folder\?/, 'the prompt again');
    tmux.keys('t');
    await tmux.waitFor(/Trusted [\s\S]*applies from this new session/, 'the trust recorded');
    await tmux.waitFor(/envelope acme/, 'the new session in the project\'s own default envelope');
    const store = JSON.parse(readFileSync(path.join(home, '.contenox', 'trusted_folders.json'), 'utf8')) as { folders: Record<string, unknown> };
    assert.deepEqual(Object.keys(store.folders), [dir]);

    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
