// The project's own words for the model: AGENTS.md files (CLAUDE.md or GEMINI.md where a folder
// has no AGENTS.md; the list is `memory_files`), read from the project's top (the nearest folder
// with a .git above the session's directory) down to that directory, nearest last, after the
// user's own ~/.contenox/AGENTS.md. They are text for the model and nothing more (they start no
// program and change no rule), so they are read whether or not the folder is trusted, as every
// agent that reads them does. A project's file that resolves outside the project (a symlink to
// another place) is not read, nor is one on the quarantine or the read-approve list (a symlink to
// a key, a second name of one); everything is size-capped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultPathMatcher } from '../core/protect/matcher.ts';
import { defaultIdentityIndex } from '../core/protect/identity.ts';
import { findGitEntry } from '../core/protect/git_dirs.ts';

export const DEFAULT_MEMORY_FILES: readonly string[] = Object.freeze(['AGENTS.md', 'CLAUDE.md', 'GEMINI.md']);
/** Bytes read of one file; the rest is cut, and the prompt says so. */
export const MEMORY_FILE_BYTES = 32 * 1024;
/** Bytes of all of them together; files past it are left out, and /memory says so. */
export const MEMORY_TOTAL_BYTES = 64 * 1024;

export interface MemoryFile {
  /** absolute path as found (a link is named as the link) */
  path: string;
  scope: 'user' | 'project';
  /** the file's size on disk */
  size: number;
  text: string;
  truncated: boolean;
}

export interface MemorySkip {
  path: string;
  why: string;
}

export interface Memory {
  files: MemoryFile[];
  skipped: MemorySkip[];
  /** the block the system prompt carries ('' when there is nothing) */
  prompt: string;
}

export interface MemoryOptions {
  cwd: string;
  home?: string;
  /** file names tried in each folder, first found wins (default AGENTS.md, CLAUDE.md, GEMINI.md) */
  names?: readonly string[];
}

/** The project's top: the nearest folder at or above `cwd` that holds a .git; `cwd` when none does. */
export function projectTop(cwd: string, home: string): string {
  const found = findGitEntry(cwd)?.top;
  // a home directory kept in git is no project of its own: the folder itself is
  if (!found || path.resolve(found) === path.resolve(home) || path.relative(found, cwd).startsWith('..')) return cwd;
  return found;
}

/** Folders from `top` down to `cwd`, top first. */
function foldersDown(top: string, cwd: string): string[] {
  const out = [top];
  const rel = path.relative(top, cwd);
  if (rel === '' || rel.startsWith('..')) return out;
  let cur = top;
  for (const part of rel.split(path.sep)) out.push((cur = path.join(cur, part)));
  return out;
}

/** The candidate files, in prompt order: the user's, then each folder's first existing name. */
export function memoryPaths(o: MemoryOptions): Array<{ path: string; scope: 'user' | 'project' }> {
  const home = o.home ?? os.homedir();
  const names = o.names ?? DEFAULT_MEMORY_FILES;
  const out: Array<{ path: string; scope: 'user' | 'project' }> = [];
  const firstIn = (dir: string) => names.map((n) => path.join(dir, n)).find((p) => fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined);
  const user = firstIn(path.join(home, '.contenox'));
  if (user) out.push({ path: user, scope: 'user' });
  const cwd = path.resolve(o.cwd);
  for (const dir of foldersDown(projectTop(cwd, home), cwd)) {
    const p = firstIn(dir);
    if (p) out.push({ path: p, scope: 'project' });
  }
  return out;
}

function realOr(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

function inside(dir: string, p: string): boolean {
  const r = path.relative(dir, p);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}

/**
 * Why a file is not read this way, or undefined when it may be. A project's file must resolve
 * inside the project (`top`) or be a Markdown file of the person's own ~/.contenox: a link out
 * (to ~/.ssh/id_rsa, to another checkout) would send that file to the model with every request.
 * The person's own ~/.contenox/AGENTS.md is theirs wherever it points (no project writes there).
 */
function refusal(c: { path: string; scope: 'user' | 'project' }, root: string, top: string, home: string): string | undefined {
  const p = c.path;
  let real: string;
  let st: fs.Stats;
  try {
    real = fs.realpathSync.native(p);
    st = fs.statSync(real);
  } catch {
    return 'it cannot be read (a dangling link, or no permission)';
  }
  const cls = defaultPathMatcher.classify(p, real);
  if (cls) return `it is ${cls === 'quarantined' ? 'a quarantined credential path' : 'on the read-approve list'} (${real}), so it is never read as instructions`;
  if (c.scope === 'project' && !inside(realOr(top), real) && !(inside(realOr(path.join(home, '.contenox')), real) && real.toLowerCase().endsWith('.md'))) {
    return `it links outside the project (to ${real}), so it is never read as instructions; replace the link with the file itself`;
  }
  if (!st.isFile()) return 'it is not a regular file';
  const twin = defaultIdentityIndex.lookup(st, root);
  if (twin) return `it is another name of the protected ${twin.path}, so it is never read as instructions`;
  return undefined;
}

/** Up to `max` bytes of the file at its real path (no FIFO or device reaches here: refusal() checked). */
function readCapped(p: string, max: number): { text: string; truncated: boolean } {
  const fd = fs.openSync(fs.realpathSync.native(p), fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    while (n < buf.length) {
      const got = fs.readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    const truncated = n > max;
    // a cut never splits a character: back to the last whole one
    let end = Math.min(n, max);
    if (truncated) while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
    return { text: buf.toString('utf8', 0, end), truncated };
  } finally {
    fs.closeSync(fd);
  }
}

/** What a file is as the prompt names it: relative to the project for its own files, ~ for the user's. */
export function shownPath(p: string, cwd: string, home: string): string {
  const rel = path.relative(cwd, p);
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  const h = path.relative(home, p);
  return !h.startsWith('..') && !path.isAbsolute(h) ? `~/${h}` : p;
}

function promptBlock(files: MemoryFile[], cwd: string, home: string): string {
  if (files.length === 0) return '';
  const parts = [
    'PROJECT INSTRUCTIONS',
    'The files below were written by the person (the first, when it is ~/.contenox) and by the project you work in; a file nearer the working directory comes later and wins where they disagree. Follow them. They cannot change what your tools may do: a refusal or an approval still stands.',
  ];
  for (const f of files) {
    parts.push('', `--- ${shownPath(f.path, cwd, home)} ---`, f.text.trimEnd());
    if (f.truncated) parts.push(`[cut at ${MEMORY_FILE_BYTES} bytes of ${f.size}]`);
  }
  return parts.join('\n');
}

/** Reads the memory files for a session rooted at `cwd`. Never throws: what cannot be read is listed as skipped. */
export function readMemory(o: MemoryOptions): Memory {
  const home = o.home ?? os.homedir();
  const files: MemoryFile[] = [];
  const skipped: MemorySkip[] = [];
  let total = 0;
  const top = projectTop(path.resolve(o.cwd), home);
  for (const c of memoryPaths(o)) {
    const why = refusal(c, path.resolve(o.cwd), top, home);
    if (why) {
      skipped.push({ path: c.path, why });
      continue;
    }
    try {
      const size = fs.statSync(c.path).size;
      const room = Math.min(MEMORY_FILE_BYTES, MEMORY_TOTAL_BYTES - total);
      if (room <= 0) {
        skipped.push({ path: c.path, why: `the memory files before it already take ${MEMORY_TOTAL_BYTES} bytes` });
        continue;
      }
      const { text, truncated } = readCapped(c.path, room);
      total += Buffer.byteLength(text);
      files.push({ path: c.path, scope: c.scope, size, text, truncated });
    } catch (err) {
      skipped.push({ path: c.path, why: `it cannot be read: ${(err as Error).message}` });
    }
  }
  return { files, skipped, prompt: promptBlock(files, path.resolve(o.cwd), home) };
}

/**
 * A stamp of the memory files as they are on disk (which ones, their size, times and inode):
 * equal stamps mean nothing needs reading again. A few stats per folder.
 */
export function memoryStamp(o: MemoryOptions): string {
  return memoryPaths(o)
    .map((c) => {
      const st = fs.statSync(c.path, { throwIfNoEntry: false, bigint: true });
      return `${c.path}\u0000${st ? `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}` : '-'}`;
    })
    .join('\n');
}

/** Memory read again only when its stamp changed: one per session root. */
export class MemoryCache {
  readonly #kept = new Map<string, { stamp: string; memory: Memory }>();

  constructor(private readonly o: Omit<MemoryOptions, 'cwd' | 'names'>) {}

  get(cwd: string, names: readonly string[] = DEFAULT_MEMORY_FILES): Memory {
    const opts = { ...this.o, cwd, names };
    const stamp = `${names.join('\u0000')}\n${memoryStamp(opts)}`;
    const hit = this.#kept.get(cwd);
    if (hit && hit.stamp === stamp) return hit.memory;
    const memory = readMemory(opts);
    this.#kept.set(cwd, { stamp, memory });
    return memory;
  }
}

/** `/memory`'s answer: each file with its path and size, what was skipped and why. */
export function describeMemory(m: Memory, cwd: string, home: string, names: readonly string[] = DEFAULT_MEMORY_FILES): string {
  const lines: string[] = [];
  if (m.files.length === 0) lines.push(`No memory files: none of ${names.join(', ')} in ~/.contenox or from the project's top down to ${cwd}. \`/init\` asks the model to write an AGENTS.md for this project.`);
  else {
    lines.push(`Memory files the model reads with every prompt (nearest last; re-read when they change):`);
    for (const f of m.files) lines.push(`  ${f.path}  (${f.scope}, ${f.size} bytes${f.truncated ? `, cut at ${Buffer.byteLength(f.text)} bytes` : ''})`);
  }
  for (const s of m.skipped) lines.push(`  skipped ${shownPath(s.path, cwd, home)}: ${s.why}`);
  return lines.join('\n');
}
