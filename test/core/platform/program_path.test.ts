// The PATH lookup for the programs cxl starts itself, against every way a PATH entry can lead
// into a directory a command may write: the entry inside it, a symlink to it, `..` back into
// it, a relative or empty entry, a trusted-looking directory whose program is a link into it, a
// directory anyone may write. Each case has the real file planted on disk; the control beside
// it is the same program in a clean directory outside, which is chosen. The lookup for what a
// command line will run (the checker's) still finds the planted one: that is what the shell runs.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { findOnPath, findTrustedProgram, pathDirectories } from '../../../src/core/platform/program_path.ts';
import { TempDirs } from '../../helpers/temp_dirs.ts';

const temp = new TempDirs();
after(() => temp.removeAll());
const tempDir = (prefix: string) => temp.make(prefix);
function program(dir: string, name = 'tool', mode = 0o755): string {
  mkdirSync(dir, { recursive: true });
  const p = path.join(dir, name);
  writeFileSync(p, '#!/bin/sh\nexit 0\n');
  chmodSync(p, mode);
  return p;
}

describe('the programs cxl starts are found outside the workspace', () => {
  const ws = tempDir('cxl-path-ws-');
  const planted = path.join(ws, 'node_modules', '.bin');
  program(planted);
  const clean = tempDir('cxl-path-clean-');
  const good = program(clean);

  test('an entry inside the workspace is passed over, saying why; the clean one after it is chosen', () => {
    const r = findTrustedProgram('tool', `${planted}:${clean}`, [ws]);
    assert.equal(r.program, good);
    assert.equal(r.skipped.length, 1);
    assert.equal(r.skipped[0].dir, planted);
    assert.match(r.skipped[0].why, new RegExp(`inside ${ws}, where a command may write`));
    // the command line's lookup still finds the planted one: the shell would run it
    assert.equal(findOnPath('tool', pathDirectories(`${planted}:${clean}`)), path.join(planted, 'tool'));
  });

  test('a symlinked entry into the workspace, and `..` back into it, are passed over', () => {
    const links = tempDir('cxl-path-link-');
    const link = path.join(links, 'bin');
    symlinkSync(planted, link);
    const dotdot = path.join(planted, '..', '..', 'node_modules', '.bin');
    const outsideThenBack = path.join(clean, '..', path.basename(ws), 'node_modules', '.bin');
    for (const entry of [link, dotdot, outsideThenBack]) {
      const r = findTrustedProgram('tool', `${entry}:${clean}`, [ws]);
      assert.equal(r.program, good, entry);
      assert.equal(r.skipped[0]?.dir, entry);
    }
  });

  test('a workspace named through a link is fenced by its real path too', () => {
    const links = tempDir('cxl-path-wslink-');
    const wsLink = path.join(links, 'ws');
    symlinkSync(ws, wsLink);
    assert.equal(findTrustedProgram('tool', `${planted}:${clean}`, [wsLink]).program, good);
  });

  test('relative and empty entries are passed over', () => {
    const rel = path.relative(process.cwd(), clean);
    const r = findTrustedProgram('tool', `${rel}::${clean}`, []);
    assert.equal(r.program, good);
    assert.equal(r.skipped[0]?.dir, rel);
    assert.match(r.skipped[0]?.why ?? '', /relative entry/);
  });

  test('a program in a clean directory that is a link into the workspace is passed over', () => {
    const trusted = tempDir('cxl-path-trusted-');
    symlinkSync(path.join(planted, 'tool'), path.join(trusted, 'tool'));
    const r = findTrustedProgram('tool', `${trusted}:${clean}`, [ws]);
    assert.equal(r.program, good);
    assert.match(r.skipped[0]?.why ?? '', /is a link to .*node_modules\/\.bin\/tool, inside/);
  });

  test('a directory or program anyone may write is passed over; the real path of a link out of a clean directory is what is chosen', () => {
    const loose = tempDir('cxl-path-loose-');
    program(loose);
    chmodSync(loose, 0o777);
    assert.equal(findTrustedProgram('tool', `${loose}:${clean}`, []).program, good);
    const looseFile = tempDir('cxl-path-loosefile-');
    program(looseFile, 'tool', 0o757);
    const r = findTrustedProgram('tool', `${looseFile}:${clean}`, []);
    assert.equal(r.program, good);
    assert.match(r.skipped[0]?.why ?? '', /writable by others/);
    const linked = tempDir('cxl-path-linked-');
    symlinkSync(good, path.join(linked, 'tool'));
    assert.equal(findTrustedProgram('tool', linked, [ws]).program, good);
  });

  test('nothing outside: no program, every entry passed over named', () => {
    const r = findTrustedProgram('tool', planted, [ws]);
    assert.equal(r.program, undefined);
    assert.deepEqual(r.skipped.map((s) => s.dir), [planted]);
    assert.deepEqual(findTrustedProgram('tool', tempDir('cxl-path-empty-'), [ws]), { skipped: [] });
  });
});
