// `cxl serve`'s command line: a non-loopback address needs --allow-remote, --listen is HOST:PORT,
// PATH must be a directory; each refusal says what to do, exit 2, nothing listening.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { isLoopback, parseListen } from '../../src/cli/serve.ts';
import { runCxl } from '../helpers/cxl.ts';

test('HOST:PORT and loopback', () => {
  assert.deepEqual(parseListen('127.0.0.1:7272'), { host: '127.0.0.1', port: 7272 });
  assert.deepEqual(parseListen('[::1]:0'), { host: '::1', port: 0 });
  assert.throws(() => parseListen('7272'), /HOST:PORT/);
  assert.throws(() => parseListen('h:70000'), /HOST:PORT/);
  for (const h of ['127.0.0.1', '127.9.9.9', '::1', 'localhost']) assert.equal(isLoopback(h), true, h);
  for (const h of ['0.0.0.0', '10.0.0.1', '::', 'example.com']) assert.equal(isLoopback(h), false, h);
});

test('a non-loopback address is refused without --allow-remote; a PATH that is no directory too', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-serve-cli-'));
  const env = { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), CXL_SERVE_TOKEN: 'test-token-0123456789abcdef' };
  const r = await runCxl(['serve', dir, '--listen', '0.0.0.0:0'], { cwd: dir, env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /0\.0\.0\.0 is not a loopback address.*--allow-remote.*TLS/s);
  assert.equal(r.stdout, '');
  const p = await runCxl(['serve', path.join(dir, 'nope')], { cwd: dir, env });
  assert.equal(p.code, 2);
  assert.match(p.stderr, /is not a directory/);
  fs.rmSync(dir, { recursive: true, force: true });
});
