// What a cold `cxl tool` / `cxl check` really loads, read from Node's own list of the modules a
// process has loaded (process.moduleLoadList, written at exit by a preload). The static walk in
// test/cli/lazy_imports.test.ts sees the source; this sees the built bundle bin/cxl.js runs, where
// an esbuild change or a static import of a heavy built-in would land without a test noticing.
// bin/ is Node's entry, so this drives `node` (found on PATH under Deno).
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
let dir: string;

/** The built-ins (`NativeModule x`) a run of `cxl <args>` loaded, and its output. */
function loaded(args: string[], env: Record<string, string> = {}): { modules: Set<string>; stdout: string } {
  const list = path.join(dir, `modules-${Math.random().toString(36).slice(2)}.txt`);
  const preload = path.join(dir, 'preload.cjs');
  const r = spawnSync(nodeBin, ['-r', preload, path.join(repoRoot, 'bin', 'cxl.js'), ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', CXL_CODE_CACHE_DIR: path.join(dir, 'cache'), CXL_MODULE_LIST: list, ...env },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const modules = new Set(fs.readFileSync(list, 'utf8').split('\n').filter((l) => l.startsWith('NativeModule ')).map((l) => l.slice('NativeModule '.length)));
  return { modules, stdout: r.stdout };
}

const present = (mods: Set<string>, names: string[]) => names.filter((n) => mods.has(n));

describe('the built-ins a cold scripted command loads', () => {
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-builtins-'));
    fs.writeFileSync(path.join(dir, 'f.txt'), 'hello\n');
    fs.writeFileSync(path.join(dir, 'preload.cjs'), "process.on('exit', () => require('node:fs').writeFileSync(process.env.CXL_MODULE_LIST, process.moduleLoadList.join('\\n')));\n");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  // ~6 ms (child_process, with dgram), ~5 ms (crypto), the HTTP client, net and Node's streams
  // (process.stdout on a pipe is a net.Socket; the answer is written to fd 1 instead), and Node's
  // ES-module loader running a module (~5 ms; module_job is what an ES-module entry loads, not the
  // loader's shell).
  const ESM = 'internal/modules/esm/module_job';
  const HEAVY = ['child_process', 'dgram', 'crypto', 'http', 'https', 'tls', 'net', 'stream', ESM];

  for (const cache of ['with the code cache', 'without it']) {
    it(`tool stat_file loads none of the heavy ones, ${cache}`, () => {
      const { modules, stdout } = loaded(['tool', 'stat_file', '{"path":"f.txt"}'], cache === 'without it' ? { CXL_NO_CODE_CACHE: '1' } : {});
      assert.equal(JSON.parse(stdout).result.size, 6);
      // the ES-module build (no cache) needs Node's ESM loader, and its shared chunks import
      // node:stream (and with it net); the rest must stay out either way
      assert.deepEqual(present(modules, cache === 'without it' ? HEAVY.filter((m) => m !== ESM && m !== 'net' && m !== 'stream') : HEAVY), []);
    });
  }

  it('tool read_file loads crypto (it hashes what it read) and still no child_process', () => {
    const { modules, stdout } = loaded(['tool', 'read_file', '{"path":"f.txt"}']);
    assert.equal(JSON.parse(stdout).result, 'hello\n');
    assert.ok(modules.has('crypto'), 'read_file hashed without node:crypto?');
    assert.deepEqual(present(modules, ['child_process', 'http', 'https']), []);
  });

  it('check (which needs child_process for the sandbox probe) loads no HTTP client, crypto or ESM loader', () => {
    const { modules } = loaded(['check', 'git status']);
    assert.deepEqual(present(modules, ['http', 'https', 'tls', 'crypto', ESM]), []);
  });

  it('--version runs through the ES-module build (the one everything else uses)', () => {
    const { modules, stdout } = loaded(['--version']);
    assert.match(stdout, /^\d+\.\d+\.\d+\n$/);
    assert.ok(modules.has(ESM), 'the preload saw no ESM loader: this test would pass for the wrong reason');
  });
});
