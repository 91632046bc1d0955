// The host's token: made once 0600 in the data dir (the same one read back), taken from a file or
// CXL_SERVE_TOKEN, refused when short; a header matches only as `Bearer <token>`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { clientToken, defaultTokenFile, loadToken } from '../../src/serve/token.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-token-'));

test('made once, 0600, and read back by the host and by a client on its machine', () => {
  const data = tmp();
  const made = loadToken({ env: {}, dataDir: data });
  const file = defaultTokenFile(data);
  assert.equal(made.made, true);
  assert.equal(made.from, file);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const value = fs.readFileSync(file, 'utf8').trim();
  assert.ok(value.length >= 40);
  const again = loadToken({ env: {}, dataDir: data });
  assert.equal(again.made, false);
  assert.equal(again.matches(`Bearer ${value}`), true);
  assert.equal(clientToken({ env: {}, dataDir: data }), value);
  fs.rmSync(data, { recursive: true, force: true });
});

test('a file or CXL_SERVE_TOKEN; a short one is refused; only `Bearer <token>` matches', () => {
  const data = tmp();
  const f = path.join(data, 't');
  fs.writeFileSync(f, 'file-token-0123456789\n');
  const t = loadToken({ file: f, env: { CXL_SERVE_TOKEN: 'env-token-0123456789abc' }, dataDir: data });
  assert.equal(t.matches('Bearer file-token-0123456789'), true);
  assert.equal(t.matches('bearer   file-token-0123456789'), true);
  for (const h of [undefined, null, '', 'file-token-0123456789', 'Basic file-token-0123456789', 'Bearer file-token-012345678', 'Bearer file-token-0123456789x', 'Bearer env-token-0123456789abc']) assert.equal(t.matches(h), false, String(h));
  const e = loadToken({ env: { CXL_SERVE_TOKEN: 'env-token-0123456789abc' }, dataDir: data });
  assert.equal(e.from, 'CXL_SERVE_TOKEN');
  assert.equal(e.matches('Bearer env-token-0123456789abc'), true);
  assert.throws(() => loadToken({ env: { CXL_SERVE_TOKEN: 'short' }, dataDir: data }), /at least 16 characters/);
  assert.equal(fs.existsSync(defaultTokenFile(data)), false, 'none made when one is given');
  fs.rmSync(data, { recursive: true, force: true });
});
