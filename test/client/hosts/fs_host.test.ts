// fs/* served by the client, on a real temp tree: confinement, quarantine, read-approve, writes.
import assert from 'node:assert/strict';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { FsHost } from '../../../src/client/hosts/fs_host.ts';

const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-fs-')));
const root = path.join(base, 'root');
const outside = path.join(base, 'outside');
mkdirSync(root);
mkdirSync(outside);
writeFileSync(path.join(outside, 'secret.txt'), 'outside');
writeFileSync(path.join(root, 'a.txt'), 'l1\nl2\nl3\nl4\n');
symlinkSync(outside, path.join(root, 'link'));
after(() => rmSync(base, { recursive: true, force: true }));

const asked: string[] = [];
const host = (allow: boolean) =>
  new FsHost(root, async (rel) => {
    asked.push(rel);
    return allow;
  });

test('reads whole files and line ranges (1-based line, limit in lines)', async () => {
  const h = host(false);
  assert.equal(await h.readTextFile(path.join(root, 'a.txt')), 'l1\nl2\nl3\nl4\n');
  assert.equal(await h.readTextFile(path.join(root, 'a.txt'), 2, 2), 'l2\nl3');
  assert.equal(await h.readTextFile('a.txt', 4, null), 'l4\n');
});

test('paths that leave the root are refused: absolute, .., symlinks out', async () => {
  const h = host(true);
  for (const p of [path.join(outside, 'secret.txt'), `${root}/../outside/secret.txt`, path.join(root, 'link', 'secret.txt'), '~/x', 'a\u0000b']) {
    await assert.rejects(h.readTextFile(p), (e: { code: number; data?: { code: string } }) => e.code === -32603 && ['escape', 'bad_path'].includes(e.data?.code ?? ''), p);
    await assert.rejects(h.writeTextFile(p, "x"), Error, p);
  }
  assert.equal(readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'outside');
});

test('the quarantine is never served, whatever the case; the read-approve list asks', async () => {
  mkdirSync(path.join(root, '.SSH'), { recursive: true });
  writeFileSync(path.join(root, '.SSH', 'id_ed25519'), 'KEY');
  writeFileSync(path.join(root, '.env'), 'TOKEN=1');
  await assert.rejects(host(true).readTextFile(path.join(root, '.SSH', 'id_ed25519')), (e: { data?: { code: string } }) => e.data?.code === 'quarantined');
  await assert.rejects(host(true).writeTextFile(path.join(root, '.SSH', 'authorized_keys'), 'x'), (e: { data?: { code: string } }) => e.data?.code === 'quarantined');
  asked.length = 0;
  await assert.rejects(host(false).readTextFile(path.join(root, '.env')), (e: { data?: { code: string } }) => e.data?.code === 'rejected');
  assert.deepEqual(asked, ['.env']);
  assert.equal(await host(true).readTextFile(path.join(root, '.env')), 'TOKEN=1');
});

test('writes create missing files and directories, replace atomically and keep the mode', async () => {
  const h = host(false);
  await h.writeTextFile(path.join(root, 'new', 'dir', 'n.txt'), 'fresh');
  assert.equal(readFileSync(path.join(root, 'new', 'dir', 'n.txt'), 'utf8'), 'fresh');
  const exe = path.join(root, 'run.sh');
  writeFileSync(exe, '#!/bin/sh\n');
  chmodSync(exe, 0o755);
  await h.writeTextFile(exe, '#!/bin/sh\necho hi\n');
  assert.equal(statSync(exe).mode & 0o777, 0o755);
  assert.equal(readFileSync(exe, 'utf8'), '#!/bin/sh\necho hi\n');
});

test('a missing file answers -32002 Resource not found', async () => {
  await assert.rejects(host(false).readTextFile(path.join(root, 'nope.txt')), (e: { code: number; message: string }) => e.code === -32002 && /^Resource not found: /.test(e.message));
});

test('a hard link to a quarantined or read-approve file is served as that file: refused, or asked', async () => {
  mkdirSync(path.join(root, 'hl/.ssh'), { recursive: true });
  writeFileSync(path.join(root, 'hl/.ssh/id_rsa'), 'KEY');
  writeFileSync(path.join(root, 'hl/.env'), 'TOKEN=2');
  writeFileSync(path.join(root, 'hl/plain.txt'), 'plain');
  linkSync(path.join(root, 'hl/.ssh/id_rsa'), path.join(root, 'hl/notes.txt'));
  linkSync(path.join(root, 'hl/.env'), path.join(root, 'hl/settings.txt'));
  linkSync(path.join(root, 'hl/plain.txt'), path.join(root, 'hl/plain2.txt'));
  await assert.rejects(host(true).readTextFile(path.join(root, 'hl/notes.txt')), (e: { data?: { code: string }; message: string }) => e.data?.code === 'quarantined' && /hard link/.test(e.message));
  asked.length = 0;
  await assert.rejects(host(false).readTextFile('hl/settings.txt'), (e: { data?: { code: string } }) => e.data?.code === 'rejected');
  assert.deepEqual(asked, ['hl/settings.txt']);
  assert.equal(await host(true).readTextFile('hl/settings.txt'), 'TOKEN=2');
  assert.equal(await host(false).readTextFile('hl/plain2.txt'), 'plain', 'an ordinary file with two links');
});

test('a 40 MB file: line ranges are served from it; the whole file, or a range over 16 MiB, is refused naming what to ask for', async () => {
  const h = host(false);
  const line = (i: number) => `line ${String(i).padStart(7, '0')} ${'y'.repeat(86)}`;
  const lines = Array.from({ length: 400_000 }, (_, i) => line(i + 1));
  writeFileSync(path.join(root, 'big.log'), `${lines.join('\n')}\n`);
  assert.equal(statSync(path.join(root, 'big.log')).size, 40_000_000);
  assert.equal(await h.readTextFile('big.log', 250_000, 3), [line(250_000), line(250_001), line(250_002)].join('\n'));
  assert.equal(await h.readTextFile('big.log', 400_000, 10), `${line(400_000)}\n`);
  const refused = (re: RegExp) => (e: { data?: { code?: string }; message?: string }) => e.data?.code === 'too_large' && re.test(`${e.message} ${JSON.stringify(e.data)}`);
  await assert.rejects(h.readTextFile('big.log'), refused(/line|range|limit/i));
  await assert.rejects(h.readTextFile('big.log', 1, 300_000), refused(/Ask for fewer lines/));
});

test("the session's additional directories are served as the root is; outside them all, and a bad one, refused", async () => {
  const extra = path.join(base, 'extra');
  mkdirSync(path.join(extra, '.ssh'), { recursive: true });
  writeFileSync(path.join(extra, 'x.txt'), 'extra\n');
  writeFileSync(path.join(extra, '.ssh', 'id_rsa'), 'KEY');
  symlinkSync(outside, path.join(extra, 'out'));
  const ask = async () => true;
  await assert.rejects(new FsHost(root, ask).readTextFile(path.join(extra, 'x.txt')), /outside/, 'one root by default');
  const h = new FsHost(root, ask, [extra]);
  assert.equal(await h.readTextFile(path.join(extra, 'x.txt')), 'extra\n');
  await h.writeTextFile(path.join(extra, 'y.txt'), 'written\n');
  assert.equal(readFileSync(path.join(extra, 'y.txt'), 'utf8'), 'written\n');
  for (const p of [path.join(outside, 'secret.txt'), path.join(extra, 'out', 'secret.txt'), `${extra}/../outside/secret.txt`]) {
    await assert.rejects(h.readTextFile(p), (e: { data?: { code: string } }) => e.data?.code === 'escape', p);
  }
  await assert.rejects(h.readTextFile(path.join(extra, '.ssh', 'id_rsa')), (e: { data?: { code: string } }) => e.data?.code === 'quarantined');
  for (const bad of ['extra', '/', path.join(extra, 'x.txt')]) assert.throws(() => new FsHost(root, ask, [bad]), /is refused/, bad);
});
