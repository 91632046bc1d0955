// bin/cxl.js runs `cxl tool`, `cxl check` and `cxl config` from one bundle with a V8 code cache:
// the cache must be written once, used after, and never change what a command does when it is
// missing, corrupt, stale or cannot be written. bin/ is Node's entry, so this drives `node`
// (found on PATH under Deno) with the built bundle.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { repoRoot } from '../helpers/cxl.ts';
import { runtimeName } from '../../src/core/platform/runtime.ts';

const nodeBin = runtimeName === 'node' ? process.execPath : 'node';
const bin = path.join(repoRoot, 'bin', 'cxl.js');
let dir: string;

function cxl(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(nodeBin, [bin, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1', ...env }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const cacheFiles = (d: string) => (fs.existsSync(d) ? fs.readdirSync(d).filter((f) => f.endsWith('.bin')).sort() : []);

describe('the code cache of the scripted subcommands', () => {
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-code-cache-'));
    fs.writeFileSync(path.join(dir, 'f.txt'), 'hello\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const stat = ['tool', 'stat_file', '{"path":"f.txt"}'];

  it('is written by the first run, one file a subcommand, and used unchanged by the next', () => {
    const cache = path.join(dir, 'c1');
    const first = cxl(stat, { CXL_CODE_CACHE_DIR: cache });
    assert.equal(first.code, 0, first.stderr);
    const files = cacheFiles(cache);
    assert.equal(files.length, 1);
    assert.match(files[0], /^scripted-tool\.cjs-tool-v\d+\.\d+\.\d+-/);
    const before = fs.statSync(path.join(cache, files[0]));
    const second = cxl(stat, { CXL_CODE_CACHE_DIR: cache });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(JSON.parse(second.stdout).result.size, 6);
    assert.deepEqual(JSON.parse(second.stdout).envelope, JSON.parse(first.stdout).envelope);
    // accepted by V8, so not written again
    assert.equal(fs.statSync(path.join(cache, files[0])).mtimeMs, before.mtimeMs);
    assert.equal(cxl(['check', 'git status'], { CXL_CODE_CACHE_DIR: cache }).code, 0);
    assert.equal(cacheFiles(cache).length, 2, 'check keeps a cache of its own');
  });

  it('a corrupt cache is rejected and replaced, the answer unchanged', () => {
    const cache = path.join(dir, 'c2');
    const clean = cxl(stat, { CXL_CODE_CACHE_DIR: cache });
    const [file] = cacheFiles(cache);
    fs.writeFileSync(path.join(cache, file), Buffer.alloc(4096, 0x5a));
    const r = cxl(stat, { CXL_CODE_CACHE_DIR: cache });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.replace(/"modTime":"[^"]*"/, ''), clean.stdout.replace(/"modTime":"[^"]*"/, ''));
    assert.notDeepEqual(fs.readFileSync(path.join(cache, file)), Buffer.alloc(4096, 0x5a));
  });

  it("an older build's cache is removed when the new one is written", () => {
    const cache = path.join(dir, 'c3');
    fs.mkdirSync(cache);
    const old = path.join(cache, 'scripted-tool.cjs-tool-v1.0.0-x64-1-1.bin');
    const other = path.join(cache, 'scripted-check.cjs-check-v1.0.0-x64-1-1.bin');
    // the one bundle of earlier builds, before each subcommand had its own
    const gone = path.join(cache, 'scripted.cjs-tool-v1.0.0-x64-1-1.bin');
    const notOurs = path.join(cache, 'notes.txt');
    for (const f of [old, other, gone, notOurs]) fs.writeFileSync(f, 'x');
    assert.equal(cxl(stat, { CXL_CODE_CACHE_DIR: cache }).code, 0);
    assert.equal(fs.existsSync(old), false);
    assert.equal(fs.existsSync(gone), false, 'the cache of a bundle this build no longer has is removed');
    assert.equal(fs.existsSync(other), true, "another subcommand's cache is its own business");
    assert.equal(fs.existsSync(notOurs), true, 'only .bin caches are swept');
  });

  it('a cache directory that cannot be made costs nothing but the compile', () => {
    const blocker = path.join(dir, 'not-a-dir');
    fs.writeFileSync(blocker, '');
    const r = cxl(stat, { CXL_CODE_CACHE_DIR: path.join(blocker, 'cache') });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal(JSON.parse(r.stdout).ok, true);
  });

  it('CXL_NO_CODE_CACHE=1 runs the ES-module build and writes nothing', () => {
    const cache = path.join(dir, 'c4');
    const r = cxl(stat, { CXL_CODE_CACHE_DIR: cache, CXL_NO_CODE_CACHE: '1' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).ok, true);
    assert.deepEqual(cacheFiles(cache), []);
  });

  it('usage errors keep their exit code and message through the cached bundle', () => {
    const r = cxl(['tool'], { CXL_CODE_CACHE_DIR: path.join(dir, 'c5') });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /give a tool name/);
    const bad = cxl(['config', '--nope'], { CXL_CODE_CACHE_DIR: path.join(dir, 'c5') });
    assert.equal(bad.code, 2);
  });
});
