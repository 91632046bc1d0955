// A session's additional directories as kept with it and checked again on each open: real
// directories in a temp dir, one that goes or becomes a link after the session began.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ADDITIONAL_DIRS_KEY, keptAdditionalDirs, sessionAdditionalRoots } from '../../../src/agent/acp/additional_dirs.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-extra-dirs-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));
let k = 0;

function place() {
  const dir = path.join(base, String(k++));
  const root = path.join(dir, 'ws');
  const lib = path.join(dir, 'lib');
  const home = path.join(dir, 'home');
  for (const d of [root, lib, home, path.join(home, '.ssh')]) fs.mkdirSync(d, { recursive: true });
  return { dir, root, lib, home };
}

test('the directories a client gives are kept with the session as given and come back canonical; a later open without a list uses the kept one', () => {
  const p = place();
  fs.symlinkSync(p.lib, path.join(p.dir, 'via'));
  const stored: { sessionId: string; extras?: Record<string, unknown> } = { sessionId: 's' };
  assert.deepEqual(sessionAdditionalRoots(stored, p.root, [path.join(p.dir, 'via')], { home: p.home }), [p.lib]);
  assert.deepEqual(stored.extras?.[ADDITIONAL_DIRS_KEY], [path.join(p.dir, 'via')]);
  assert.deepEqual(sessionAdditionalRoots(stored, p.root, undefined, { home: p.home }), [p.lib]);
  // an empty list given on a later open: the session has none from then on
  assert.deepEqual(sessionAdditionalRoots(stored, p.root, [], { home: p.home }), []);
  assert.deepEqual(keptAdditionalDirs(stored), []);
  // a kept value that is not a list of strings is no directories (never a crash)
  assert.deepEqual(keptAdditionalDirs({ extras: { [ADDITIONAL_DIRS_KEY]: [1, 2] } }), []);
});

test('a kept directory that is gone, or now a link to one refused, refuses the session with the directory, why and what to do; an untouched one opens (control)', () => {
  const p = place();
  const stored = { sessionId: 's', extras: { [ADDITIONAL_DIRS_KEY]: [p.lib] } as Record<string, unknown> };
  assert.deepEqual(sessionAdditionalRoots(stored, p.root, null, { home: p.home }), [p.lib], 'control');
  fs.rmSync(p.lib, { recursive: true });
  assert.throws(() => sessionAdditionalRoots(stored, p.root, null, { home: p.home }), (e: Error) => /does not exist/.test(e.message) && e.message.includes(p.lib) && /restore it, or start a new session without it/.test(e.message));
  // the directory is now a link to the credentials
  fs.symlinkSync(path.join(p.home, '.ssh'), p.lib);
  assert.throws(() => sessionAdditionalRoots(stored, p.root, null, { home: p.home }), /protected directory.*restore it, or start a new session without it/);
  fs.rmSync(p.lib);
  // a link to the home directory itself
  fs.symlinkSync(p.home, p.lib);
  assert.throws(() => sessionAdditionalRoots(stored, p.root, null, { home: p.home }), /holds the home directory/);
  assert.deepEqual(stored.extras[ADDITIONAL_DIRS_KEY], [p.lib], 'a refused open leaves what was kept as it was');
});
