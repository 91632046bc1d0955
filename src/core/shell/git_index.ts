// Which protected files a git repository tracks, read from its index (.git/index, versions 2-4):
// `git show`, `git diff`, `git log -p` print tracked content without naming a path, so a
// repository that tracks `.env` makes them need a human. Read once per index file version (its
// size and mtime), so a check costs a stat once the index has been read.
import fs from 'node:fs';
import path from 'node:path';
import { gitDirOf } from '../protect/git_dirs.ts';
import { classOf } from './path_words.ts';

export type Tracked = { path: string; cls: 'quarantined' | 'read_approve' } | 'unreadable' | null;

const cache = new Map<string, { size: number; mtimeMs: number; result: Tracked }>();

/** The paths of an index, or null when it cannot be read (a split index, an unknown layout). */
export function indexPaths(buf: Buffer, oidBytes = 20): string[] | null {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  const count = buf.readUInt32BE(8);
  if (version < 2 || version > 4) return null;
  const out: string[] = [];
  let at = 12;
  let prev = '';
  const fixed = 40 + oidBytes + 2; // times, dev, ino, mode, uid, gid, size; the object id; flags
  for (let k = 0; k < count; k++) {
    if (at + fixed > buf.length) return null;
    const flags = buf.readUInt16BE(at + 40 + oidBytes);
    let name = at + fixed + (version >= 3 && flags & 0x4000 ? 2 : 0);
    let p: string;
    if (version === 4) {
      // a varint (bytes to drop from the previous path), then the rest, NUL-terminated
      let strip = 0;
      let b: number;
      do {
        if (name >= buf.length) return null;
        b = buf[name++];
        strip = (strip << 7) | (b & 0x7f);
        if (b & 0x80) strip++;
      } while (b & 0x80);
      const end = buf.indexOf(0, name);
      if (end < 0 || strip > prev.length) return null;
      p = prev.slice(0, prev.length - strip) + buf.toString('utf8', name, end);
      at = end + 1;
    } else {
      const end = buf.indexOf(0, name);
      if (end < 0) return null;
      p = buf.toString('utf8', name, end);
      at += (end - at + 8) & ~7; // padded to a multiple of 8 with 1-8 NULs
    }
    out.push(p);
    prev = p;
  }
  // a split index keeps most entries in another file: not read here
  for (let e = at; e + 8 <= buf.length - oidBytes; ) {
    const sig = buf.toString('latin1', e, e + 4);
    if (sig === 'link') return null;
    e += 8 + buf.readUInt32BE(e + 4);
  }
  return out;
}

/**
 * The first protected file the repository of `dotGit` (a `.git` directory or gitfile, or a bare
 * git directory) tracks, `unreadable` when its index cannot be read, or null.
 */
export function trackedProtected(dotGit: string): Tracked {
  const gitDir = path.basename(dotGit) === '.git' ? gitDirOf(dotGit) : dotGit;
  if (!gitDir) return null;
  const file = path.join(gitDir, 'index');
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return 'unreadable';
  }
  if (!st) return null; // nothing tracked yet
  const hit = cache.get(file);
  if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs) return hit.result;
  let result: Tracked = 'unreadable';
  try {
    const buf = fs.readFileSync(file);
    const paths = indexPaths(buf) ?? indexPaths(buf, 32); // sha1, else sha256 object ids
    if (paths) {
      result = null;
      const top = path.basename(dotGit) === '.git' ? path.dirname(dotGit) : dotGit;
      for (const p of paths) {
        const cls = classOf(path.join(top, p));
        if (cls) {
          result = { path: p, cls };
          break;
        }
      }
    }
  } catch {
    result = 'unreadable';
  }
  cache.set(file, { size: st.size, mtimeMs: st.mtimeMs, result });
  return result;
}
