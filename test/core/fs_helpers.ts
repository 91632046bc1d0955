// Helpers for the local_fs tests: real temp trees, a toolset over them, and refusal capture.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { isToolError, type ErrorCode } from '../../src/core/errors.ts';
import type { FileIO, FileSnapshot } from '../../src/core/local_fs/file_io.ts';
import { DEFAULT_CHAIN_LOCAL_FS, parseFsPolicy } from '../../src/core/local_fs/policy.ts';
import { LocalFsToolset, type LocalFsOptions } from '../../src/core/local_fs/toolset.ts';
import type { ConfinedPath } from '../../src/core/paths.ts';

export type Entry = string | Buffer | { symlink: string } | { dir: true } | { content: string | Buffer; mode: number };

/** A fresh temp dir (real path) removed after the test file. */
export function tempDir(prefix = 'cxl-fs-'): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

/** Writes `entries` (relative paths) under `root`, creating parents. */
export function build(root: string, entries: Record<string, Entry>): string {
  for (const [rel, e] of Object.entries(entries)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    if (typeof e === 'string' || Buffer.isBuffer(e)) fs.writeFileSync(p, e);
    else if ('symlink' in e) fs.symlinkSync(e.symlink, p);
    else if ('dir' in e) fs.mkdirSync(p, { recursive: true });
    else {
      fs.writeFileSync(p, e.content);
      fs.chmodSync(p, e.mode);
    }
  }
  return root;
}

/** A temp workspace holding `entries`. */
export function tree(entries: Record<string, Entry> = {}): string {
  return build(tempDir(), entries);
}

/** A toolset over `root` with the default chain's policy plus `policy` overrides. */
export function toolset(root: string, policy: Record<string, string> = {}, opts: Partial<LocalFsOptions> = {}): LocalFsToolset {
  const { policy: p, warnings } = parseFsPolicy({ ...DEFAULT_CHAIN_LOCAL_FS, ...policy });
  assert.deepEqual(warnings, []);
  return new LocalFsToolset({ root, policy: p, ...opts });
}

/** The ToolError code a call fails with (fails the test if it succeeds). */
export async function refusal(ts: LocalFsToolset, tool: string, args: Record<string, unknown>): Promise<{ code: ErrorCode; message: string }> {
  try {
    const r = await ts.call(tool, args);
    assert.fail(`${tool}(${JSON.stringify(args).slice(0, 200)}) should have failed, returned ${JSON.stringify(r)?.slice(0, 300)}`);
  } catch (err) {
    if (!isToolError(err)) throw err;
    return { code: err.code, message: err.message };
  }
}

export async function expectCode(ts: LocalFsToolset, tool: string, args: Record<string, unknown>, code: ErrorCode): Promise<string> {
  const r = await refusal(ts, tool, args);
  assert.equal(r.code, code, `${tool} ${JSON.stringify(args).slice(0, 200)}: ${r.message}`);
  return r.message;
}

export const read = (root: string, rel: string) => fs.readFileSync(path.join(root, rel));
export const readText = (root: string, rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');

/**
 * Bytes read from `file` (through fds opened on that path) while `fn` runs, counted by wrapping
 * fs.openSync, fs.readSync and fs.read: how many times a tool really read a file's content.
 */
export async function bytesReadFrom(file: string, fn: () => Promise<unknown>): Promise<number> {
  const fds = new Set<number>();
  let total = 0;
  const { openSync, closeSync, close, readSync, read } = fs;
  const m = fs as unknown as Record<string, (...a: never[]) => unknown>;
  m.openSync = ((p: fs.PathLike, ...rest: never[]) => {
    const fd = (openSync as (...a: unknown[]) => number)(p, ...rest);
    if (p === file) fds.add(fd);
    return fd;
  }) as never;
  m.closeSync = ((fd: number) => {
    fds.delete(fd);
    return closeSync(fd);
  }) as never;
  m.close = ((fd: number, cb?: (err: NodeJS.ErrnoException | null) => void) => {
    fds.delete(fd);
    return close(fd, cb);
  }) as never;
  m.readSync = ((fd: number, ...rest: never[]) => {
    const n = (readSync as (...a: unknown[]) => number)(fd, ...rest);
    if (fds.has(fd)) total += n;
    return n;
  }) as never;
  m.read = ((fd: number, buf: Buffer, off: number, len: number, pos: number | null, cb: (err: NodeJS.ErrnoException | null, n: number, b: Buffer) => void) =>
    read(fd, buf, off, len, pos, (err, n, b) => {
      if (!err && fds.has(fd)) total += n;
      cb(err, n, b);
    })) as never;
  try {
    await fn();
  } finally {
    Object.assign(fs, { openSync, closeSync, close, readSync, read });
  }
  return total;
}

/**
 * Reads `c` until its snapshot carries an identity, i.e. its last change is past the racy window
 * (50 ms; about 2 s under Deno, whose ctime has whole seconds), and returns that snapshot.
 */
export async function settled(io: FileIO, c: ConfinedPath): Promise<FileSnapshot> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const snap = await io.read(c, { maxBytes: Number.MAX_SAFE_INTEGER });
    if (snap.identity) return snap;
  }
  assert.fail(`${c.rel} never got an identity`);
}
