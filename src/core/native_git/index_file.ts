// The index (.git/index) read directly, for status and diff: one pass over the file instead of
// isomorphic-git's walk. Versions 2, 3 and 4 (v4's prefix-compressed names); extensions are
// skipped, except a split index (`link`) and a sparse index (`sdir`), whose entries live elsewhere:
// those are refused with what to run. An index this reader does not cover exactly (conflict
// stages, intent-to-add or skip-worktree entries) says so, and the caller takes the slower path.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';

export interface IndexEntry {
  path: string;
  ctimeSeconds: number;
  ctimeNanoseconds: number;
  mtimeSeconds: number;
  mtimeNanoseconds: number;
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  oid: string;
  /** set by the status walk (matrix.ts) when the file is in the working tree */
  present: boolean;
}

export interface IndexFile {
  entries: Map<string, IndexEntry>;
  /** the index file's own mtime, seconds and nanoseconds: entries not older than this are racy */
  mtime: [number, number];
  /** set when an entry is beyond this reader (merge stages, intent-to-add, skip-worktree) */
  unusual?: string;
  /** the cache-tree extension: each directory's tree oid as git last wrote it, where still valid ('' is the top) */
  trees: Map<string, string>;
}

const decoder = new TextDecoder();

/** The index of `gitdir`, or an empty one when there is none yet. */
export function readIndexFile(gitdir: string): IndexFile {
  const file = path.join(gitdir, 'index');
  let st: fs.BigIntStats | undefined;
  let buf: Buffer;
  try {
    st = fs.statSync(file, { bigint: true });
    buf = fs.readFileSync(file);
  } catch {
    return { entries: new Map(), mtime: [0, 0], trees: new Map() };
  }
  const mtime: [number, number] = [Number(st.mtimeNs / 1_000_000_000n), Number(st.mtimeNs % 1_000_000_000n)];
  return { ...parseIndex(buf), mtime };
}

const bad = (why: string) => new ToolError('io_error', `native-git: cannot read .git/index: ${why}. Run \`git status\` once to rewrite it, then try again.`);

export function parseIndex(buf: Buffer): Omit<IndexFile, 'mtime'> {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') throw bad('it does not start with the index signature');
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) throw bad(`index version ${version} is not one git writes today (2, 3, 4)`);
  const count = buf.readUInt32BE(8);
  const entries = new Map<string, IndexEntry>();
  let unusual: string | undefined;
  let at = 12;
  let prev = '';
  const end = buf.length - 20;
  for (let i = 0; i < count; i++) {
    if (at + 62 > end) throw bad('it ends inside an entry');
    const flags = buf.readUInt16BE(at + 60);
    let nameAt = at + 62;
    if (flags & 0x4000) {
      if (version < 3) throw bad('an extended entry in a version 2 index');
      const flags2 = buf.readUInt16BE(nameAt);
      if (flags2 & 0x6000) unusual ??= flags2 & 0x2000 ? 'an intent-to-add entry' : 'a skip-worktree entry';
      nameAt += 2;
    }
    if ((flags >> 12) & 3) unusual ??= 'a merge conflict (entries in stages 1-3)';
    let name: string;
    let next: number;
    if (version === 4) {
      // a varint of how many trailing bytes of the previous name to drop, then the rest of the name
      let byte = buf[nameAt++];
      let strip = byte & 0x7f;
      while (byte & 0x80) {
        byte = buf[nameAt++];
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const nul = buf.indexOf(0, nameAt);
      if (nul < 0 || nul > end) throw bad('an entry name is not terminated');
      const prevBytes = Buffer.from(prev);
      name = decoder.decode(Buffer.concat([prevBytes.subarray(0, prevBytes.length - strip), buf.subarray(nameAt, nul)]));
      next = nul + 1;
    } else {
      // the flags carry the name's length below 0xfff; a longer name is found by its NUL
      const len = flags & 0xfff;
      const nul = len < 0xfff && buf[nameAt + len] === 0 ? nameAt + len : buf.indexOf(0, nameAt);
      if (nul < 0 || nul > end) throw bad('an entry name is not terminated');
      name = buf.toString('utf8', nameAt, nul);
      // entries are padded with 1-8 NULs to a multiple of 8 bytes
      next = at + (((nul - at) + 8) & ~7);
    }
    entries.set(name, {
      path: name,
      ctimeSeconds: buf.readUInt32BE(at),
      ctimeNanoseconds: buf.readUInt32BE(at + 4),
      mtimeSeconds: buf.readUInt32BE(at + 8),
      mtimeNanoseconds: buf.readUInt32BE(at + 12),
      dev: buf.readUInt32BE(at + 16),
      ino: buf.readUInt32BE(at + 20),
      mode: buf.readUInt32BE(at + 24),
      uid: buf.readUInt32BE(at + 28),
      gid: buf.readUInt32BE(at + 32),
      size: buf.readUInt32BE(at + 36),
      oid: buf.toString('hex', at + 40, at + 60),
      present: false,
    });
    if (version === 4) prev = name;
    at = next;
  }
  const trees = readExtensions(buf, at, end);
  return { entries, trees, ...(unusual ? { unusual } : {}) };
}

/** Walks the extensions, refusing the two that move entries out of this file; returns the cache tree. */
function readExtensions(buf: Buffer, at: number, end: number): Map<string, string> {
  let trees = new Map<string, string>();
  while (at + 8 <= end) {
    const sig = buf.toString('latin1', at, at + 4);
    if (sig === 'TREE') trees = readCacheTree(buf.subarray(at + 8, at + 8 + buf.readUInt32BE(at + 4)));
    if (sig === 'link') throw new ToolError('io_error', 'native-git: this repository uses a split index (core.splitIndex), which native-git does not read. Run `git update-index --no-split-index` in it, or use the git binary.');
    if (sig === 'sdir') throw new ToolError('io_error', 'native-git: this repository uses a sparse index (index.sparse), which native-git does not read. Run `git sparse-checkout init --no-sparse-index` in it, or use the git binary.');
    at += 8 + buf.readUInt32BE(at + 4);
  }
  return trees;
}

/** The cache tree: per directory, its name, `entry_count subtree_count\n`, the oid when entry_count is not -1, then its subtrees. */
function readCacheTree(buf: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  const node = (prefix: string | null): void => {
    const nul = buf.indexOf(0, at);
    const nl = buf.indexOf(10, nul);
    if (nul < 0 || nl < 0) throw bad('its cache tree is cut short');
    const name = buf.toString('utf8', at, nul);
    const [count, subtrees] = buf.toString('latin1', nul + 1, nl).split(' ').map(Number);
    at = nl + 1;
    const p = prefix === null ? '' : prefix ? `${prefix}/${name}` : name;
    if (count >= 0) {
      out.set(p, buf.toString('hex', at, at + 20));
      at += 20;
    }
    for (let i = 0; i < subtrees; i++) node(p);
  };
  if (buf.length) node(null);
  return out;
}
