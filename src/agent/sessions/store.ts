// Sessions on disk, so session/load and session/list survive the agent process: the model
// history, what to replay to a client, the read ledger, the session-scoped allows. Each session is
// an append-only log of JSON lines (`<id>.jsonl`, mode 0600, read and ended by
// core/platform/jsonl_file.ts): every history entry, replayed update, ledger change and allow is
// appended as it happens (a save costs the size of what changed, not of the session), fsync'd at
// the end of each model request, so a crash loses at most the line being written. A change that
// is not a push (a compaction, a repair, a rewind) is a splice line naming the range it replaces.
// Several processes may hold one log: each save takes the log's lock, reads what others appended
// and appends after it. The log is rewritten whole (temp file, fsync, rename) only when half of it
// is superseded lines, or on a load that found damaged or torn lines; the others holding it read
// the new file. Old whole-file sessions (`<id>.json`) still load, and are converted on the way.
//
// For code that must keep more per session (issue-specific state such as compaction summaries):
// - history entries are immutable once added; push new ones, or rewrite with `spliceHistory`
//   (one log line), or replace `session.history` outright (the log writes splices of what changed);
// - `put(key, value)` keeps any JSON value under `session.extras[key]`;
// - `checkpoint()` writes what changed; it never throws (failures go to `onProblem`).
import fs from 'node:fs';
import path from 'node:path';
import type { ChatMessage } from '../providers/types.ts';
import { fileStamp, newOwner, SessionIndex } from './index_file.ts';
import { answerUnansweredCalls } from './tool_call_repair.ts';
import { replaceFileSync } from '../../core/platform/atomic_file.ts';
import { eachJsonLine, endTornTail, openForAppend, writeAll } from '../../core/platform/jsonl_file.ts';
import { withFileLock } from '../../core/platform/write_lock.ts';

export interface StoredSession {
  version: 1;
  sessionId: string;
  cwd: string;
  title?: string;
  createdAt: string;
  /** when the session last changed (the log's modification time on load) */
  updatedAt: string;
  /** the envelope in use (ACP mode id) */
  mode: string;
  history: ChatMessage[];
  /** session/update payloads replayed on session/load, chunks already merged */
  replay: Array<Record<string, unknown>>;
  /** the read-before-write ledger, as the ledger serialises itself */
  ledger?: unknown;
  /** session-scoped allows granted through "allow for this session", as the gate serialises them */
  allows: unknown[];
  /** other state that must survive a restart, by key (see `SessionLog.put`) */
  extras?: Record<string, unknown>;
  /** lines of the log skipped on load (not JSON, or not of their type): where and why; not saved */
  damagedLines?: string[];
}

/**
 * The extras key a session's additional directories are kept under, as the client gave them
 * (acp/additional_dirs.ts keeps and checks them); the summary reports it.
 */
export const ADDITIONAL_DIRS_KEY = 'additionalDirectories';

/** What session/list answers of a session; `additionalDirectories` only when the session kept a list (an empty one as []). */
export type SessionSummary = Pick<StoredSession, 'sessionId' | 'cwd' | 'title' | 'updatedAt'> & { additionalDirectories?: string[] };

/** The additional directories `v` holds when it is a list of strings (undefined otherwise: none kept). */
export function dirsKept(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((d) => typeof d === 'string') ? [...v] : undefined;
}

/** How a log line keeping the additional directories begins (of the `put` lines, the summary reads only those). */
const DIRS_PUT = `{"t":"put","k":${JSON.stringify(ADDITIONAL_DIRS_KEY)}`;

/** Why a save failed, by kind: the agent tells the user once per kind. */
export type SaveProblemKind = 'no_space' | 'read_only' | 'permission' | 'not_a_directory' | 'deleted' | 'io';

export interface SaveProblem {
  kind: SaveProblemKind;
  /** the real cause and what to do, for the user */
  message: string;
}

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** A session never used (see `unused`) is removed once its log has not changed for this long. */
export const UNUSED_EXPIRY_MS = 7 * 24 * 3600 * 1000;
/** How often the sweep for expired unused sessions runs (a stamp beside the sessions directory says when it last did). */
const SWEEP_EVERY_MS = 24 * 3600 * 1000;
/** A never-used session's log is small: bigger ones are not read by the sweep. */
const UNUSED_MAX_BYTES = 64 * 1024;
/** A log smaller than this is never compacted while running (rewriting it would cost more than it frees). */
const COMPACT_MIN_BYTES = 64 * 1024;
const META_FIELDS = ['title', 'mode', 'cwd'] as const;

/** One line of the log; `t` comes first so readers can pick lines by prefix. */
type Line =
  | { t: 'head'; v: 2; sessionId: string; cwd: string; createdAt: string; mode: string; title?: string }
  | { t: 'set'; f: (typeof META_FIELDS)[number]; v: string | undefined }
  | { t: 'msg'; m: ChatMessage }
  | { t: 'splice'; at: number; del: number; add: ChatMessage[] }
  | { t: 'replay'; u: Record<string, unknown> }
  /** replay entries replaced (a rewind cuts the replay back) */
  | { t: 'rsplice'; at: number; del: number; add: Array<Record<string, unknown>> }
  /** the ledger without its entries (or whole, when it has no `entries` map) */
  | { t: 'ledger'; l: unknown }
  /** one ledger entry (null: forgotten) */
  | { t: 'read'; p: string; e: unknown }
  | { t: 'allows'; a: unknown[] }
  | { t: 'put'; k: string; v: unknown };

const enc = (l: Line): string => `${JSON.stringify(l)}\n`;
const bytes = (s: string): number => Buffer.byteLength(s);

function ledgerParts(l: unknown): { head: string; entries?: Record<string, unknown> } {
  if (l && typeof l === 'object' && !Array.isArray(l) && 'entries' in l && l.entries && typeof l.entries === 'object') {
    const { entries, ...rest } = l as { entries: Record<string, unknown> };
    return { head: JSON.stringify(rest), entries };
  }
  return { head: JSON.stringify(l ?? null) };
}

/** The words for an errno, naming the real cause and what to do about it. */
export function describeSaveError(err: unknown, dir: string): SaveProblem {
  const code = (err as NodeJS.ErrnoException)?.code;
  const where = (err as NodeJS.ErrnoException)?.path ?? dir;
  const fix = 'set XDG_DATA_HOME to a writable directory (sessions go to $XDG_DATA_HOME/cxl/sessions)';
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return { kind: 'no_space', message: `no space left on the device holding ${dir} (${code}); free some space there, or ${fix}` };
    case 'EROFS':
      return { kind: 'read_only', message: `${dir} is on a read-only file system (EROFS); ${fix}` };
    case 'EACCES':
    case 'EPERM':
      return { kind: 'permission', message: `no permission to write ${where} (${code}); fix its permissions, or ${fix}` };
    case 'ENOTDIR':
    case 'EEXIST':
      return { kind: 'not_a_directory', message: `a file stands where the directory ${dir} should be (${where}, ${code}); move it away, or ${fix}` };
    default:
      return { kind: 'io', message: `${err instanceof Error ? err.message : String(err)} while writing ${where}` };
  }
}

/**
 * mkdir -p one level at a time: a recursive mkdir reports ENOENT for a read-only file system
 * (Node's, at least), which would name the wrong cause; a single mkdir reports EROFS.
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  let d = dir;
  while (!fs.existsSync(d)) {
    missing.unshift(d);
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing) {
    try {
      fs.mkdirSync(m, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !fs.statSync(m).isDirectory()) throw err;
    }
  }
}

/** Bytes per live line: positional for history and replay, by slot for everything else. */
class Accounting {
  /** bytes of every live line, kept as lines come and go (a checkpoint must not cost the session's size) */
  live = 0;
  readonly #pos: Record<'hist' | 'replay', number[]> = { hist: [], replay: [] };
  readonly #slots = new Map<string, number>();
  /** a line for `slot` of `size` bytes (0: the slot is emptied): whatever it replaces is dead now */
  #slot(slot: string, size: number): void {
    this.live += size - (this.#slots.get(slot) ?? 0);
    if (size) this.#slots.set(slot, size);
    else this.#slots.delete(slot);
  }
  /** a splice line's bytes are spread over the entries it adds; the entries it deletes are dead */
  #splice(kind: 'hist' | 'replay', at: number, del: number, add: number, size: number): void {
    const each = add ? size / add : 0;
    for (const gone of this.#pos[kind].splice(at, del, ...new Array<number>(add).fill(each))) this.live -= gone;
    this.live += each * add;
  }
  /** one line of `size` bytes is on the file now */
  line(l: Line, size: number): void {
    switch (l.t) {
      case 'msg':
        return this.#splice('hist', this.#pos.hist.length, 0, 1, size);
      case 'replay':
        return this.#splice('replay', this.#pos.replay.length, 0, 1, size);
      case 'splice':
        return this.#splice('hist', l.at, l.del, l.add.length, size);
      case 'rsplice':
        return this.#splice('replay', l.at, l.del, l.add.length, size);
      case 'set':
        return this.#slot(`set:${l.f}`, size);
      case 'read':
        return this.#slot(`read:${l.p}`, l.e === null ? 0 : size);
      case 'put':
        return this.#slot(`put:${l.k}`, size);
      default:
        return this.#slot(l.t, size);
    }
  }
}

function emptySession(sessionId: string): StoredSession {
  return { version: 1, sessionId, cwd: '', createdAt: '', updatedAt: '', mode: '', history: [], replay: [], allows: [] };
}

/** Applies one line to `s`. */
function apply(s: StoredSession, line: Line): void {
  switch (line.t) {
    case 'head':
      Object.assign(s, { sessionId: line.sessionId, cwd: line.cwd, createdAt: line.createdAt, mode: line.mode, ...(line.title !== undefined ? { title: line.title } : {}) });
      return;
    case 'set':
      if (line.v === undefined) delete s[line.f];
      else s[line.f] = line.v;
      return;
    case 'msg':
      s.history.push(line.m);
      return;
    case 'splice':
      s.history.splice(line.at, line.del, ...line.add);
      return;
    case 'replay':
      s.replay.push(line.u);
      return;
    case 'rsplice':
      s.replay.splice(line.at, line.del, ...line.add);
      return;
    case 'ledger': {
      const prev = s.ledger as { entries?: Record<string, unknown> } | undefined;
      const l = line.l as Record<string, unknown> | null;
      s.ledger = l && typeof l === 'object' && !Array.isArray(l) && !('entries' in l) && prev?.entries ? { ...l, entries: prev.entries } : l;
      return;
    }
    case 'read': {
      const l = (s.ledger ??= { entries: {} }) as { entries?: Record<string, unknown> };
      l.entries ??= {};
      if (line.e === null) delete l.entries[line.p];
      else l.entries[line.p] = line.e;
      return;
    }
    case 'allows':
      s.allows = line.a;
      return;
    case 'put':
      (s.extras ??= {})[line.k] = line.v;
      return;
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Why a parsed line is not one `apply` can take (undefined: it is one): a wrong-typed line is skipped, never applied. */
function invalidLine(l: unknown): string | undefined {
  if (!isObj(l)) return 'not a JSON object';
  switch (l.t) {
    case 'head':
      return typeof l.sessionId === 'string' && typeof l.cwd === 'string' && typeof l.createdAt === 'string' && typeof l.mode === 'string' && (l.title === undefined || typeof l.title === 'string') ? undefined : 'a head whose fields are not strings';
    case 'set':
      return (META_FIELDS as readonly unknown[]).includes(l.f) && (l.v === undefined || typeof l.v === 'string') ? undefined : 'a `set` of an unknown field or a non-string value';
    case 'msg':
      return isObj(l.m) ? undefined : 'a message that is not an object';
    case 'splice':
    case 'rsplice':
      return isInt(l.at) && isInt(l.del) && Array.isArray(l.add) && l.add.every(isObj) ? undefined : `a ${l.t} whose at/del are not counts or whose add is not a list of objects`;
    case 'replay':
      return isObj(l.u) ? undefined : 'a replay update that is not an object';
    case 'ledger':
      return undefined;
    case 'read':
      return typeof l.p === 'string' ? undefined : 'a ledger entry without a path';
    case 'allows':
      return Array.isArray(l.a) ? undefined : 'allows that are not a list';
    case 'put':
      return typeof l.k === 'string' ? undefined : 'a `put` without a key';
    default:
      return `an unknown kind of line (${JSON.stringify(l.t)})`;
  }
}

/** The whole lines of a log's bytes, decoded, and how many bytes they are (a torn last line is not one). */
function wholeLines(buf: Buffer): { text: string; bytes: number } {
  const bytes = buf.lastIndexOf(0x0a) + 1;
  return { text: buf.subarray(0, bytes).toString('utf8'), bytes };
}

/** The lines of `text` that apply (a bad one is named in `damaged` with its number, counted from `firstLine`). */
function parseLines(text: string, firstLine: number, damaged: string[]): Array<{ line: Line; size: number }> {
  const out: Array<{ line: Line; size: number }> = [];
  eachJsonLine(text, { invalid: invalidLine, firstLine, skipped: (n, why) => damaged.push(`line ${n}: ${why}`) }, (v, _n, raw) => out.push({ line: v as Line, size: bytes(raw) + 1 }));
  return out;
}

/**
 * The session a log's bytes hold, with the accounting of its lines and how many bytes were read;
 * a torn last line (a crash while it was written) is left out, and a line that does not parse or
 * is not of its type is skipped and named in `damagedLines` (with the log's path when given).
 */
function fold(sessionId: string, buf: Buffer, file?: string): { session: StoredSession; acct: Accounting; bytes: number; torn?: boolean } | undefined {
  const s = emptySession(sessionId);
  const acct = new Accounting();
  const { text, bytes: read } = wholeLines(buf);
  const damaged: string[] = [];
  const lines = parseLines(text, 1, damaged);
  const head = lines[0]?.line;
  if (!head || head.t !== 'head' || head.sessionId !== sessionId) return undefined;
  for (const { line, size } of lines) {
    apply(s, line);
    acct.line(line, size);
  }
  // lines that do not parse before the head are not the session's (a file of something else was refused above)
  if (damaged.length) s.damagedLines = file ? damaged.map((d) => `${file} ${d}`) : damaged;
  return { session: s, acct, bytes: read };
}

/** The whole session as the lines of a compacted log. */
function snapshotLines(s: StoredSession): Line[] {
  const out: Line[] = [];
  out.push({ t: 'head', v: 2, sessionId: s.sessionId, cwd: s.cwd, createdAt: s.createdAt, mode: s.mode, ...(s.title !== undefined ? { title: s.title } : {}) });
  for (const m of s.history) out.push({ t: 'msg', m });
  for (const u of s.replay) out.push({ t: 'replay', u });
  if (s.ledger !== undefined) {
    const { head, entries } = ledgerParts(s.ledger);
    out.push({ t: 'ledger', l: JSON.parse(head) });
    for (const [p, e] of Object.entries(entries ?? {})) out.push({ t: 'read', p, e });
  }
  if (s.allows.length) out.push({ t: 'allows', a: s.allows });
  for (const [k, v] of Object.entries(s.extras ?? {})) out.push({ t: 'put', k, v });
  return out;
}

/** Never used: no prompt, nothing to replay, nothing kept for it (a model chosen for it counts as use). */
// the additional directories a client opened it with are how it was opened, not a use of it
export const unused = (s: StoredSession): boolean => s.replay.length === 0 && s.history.every((m) => m.role === 'system') && Object.keys(s.extras ?? {}).every((k) => k === ADDITIONAL_DIRS_KEY);

/**
 * What the file holds of one positional list (the history, the replay), by identity: the entries
 * written (the same objects as in memory), and the changes that bring the file up to the list in
 * memory. Pushing is the common case and costs the entries pushed; anything else (a compaction
 * replacing entries, a splice, a repair inserting results, a rewind cutting the list, the list
 * replaced whole) is found by identity in one pass and written as splices of what changed.
 */
class Track<T extends object> {
  /** the list last written from */
  arr: T[];
  /** the entries as the file holds them */
  written: T[];
  /** changed other than by pushing since the last write */
  dirty = false;
  constructor(arr: T[]) {
    this.arr = arr;
    this.written = arr.slice();
  }

  /** Only pushed to since the last write (cheap: the last written entry is still in its place). */
  #pushedOnly(cur: T[]): boolean {
    const w = this.written;
    return !this.dirty && cur === this.arr && cur.length >= w.length && (w.length === 0 || cur[w.length - 1] === w[w.length - 1]);
  }

  /** The splices, then the entries to push, that turn what the file holds into `cur`. */
  diff(cur: T[]): { splices: Array<{ at: number; del: number; add: T[] }>; tail: T[] } {
    const w = this.written;
    if (this.#pushedOnly(cur)) return { splices: [], tail: cur.slice(w.length) };
    // where each written entry is (an object pushed twice is at several places: taken in order)
    const at = new Map<T, number[]>();
    w.forEach((e, i) => {
      const list = at.get(e);
      if (list) list.push(i);
      else at.set(e, [i]);
    });
    const splices: Array<{ at: number; del: number; add: T[] }> = [];
    let o = 0;
    let start = 0;
    for (let j = 0; j < cur.length; j++) {
      const list = at.get(cur[j]);
      while (list?.length && list[0] < o) list.shift();
      const k = list?.shift();
      if (k === undefined) continue;
      // kept: the written entries before it (from o) went, the new ones before it (from start) came
      if (k > o || j > start) splices.push({ at: start, del: k - o, add: cur.slice(start, j) });
      o = k + 1;
      start = j + 1;
    }
    if (o < w.length) return { splices: [...splices, { at: start, del: w.length - o, add: cur.slice(start) }], tail: [] };
    return { splices, tail: cur.slice(start) };
  }

  /** `cur` is what the file holds now. */
  wrote(cur: T[], pushedOnly: boolean): void {
    if (pushedOnly && cur === this.arr && !this.dirty) for (let i = this.written.length; i < cur.length; i++) this.written.push(cur[i]);
    else this.written = cur.slice();
    this.arr = cur;
    this.dirty = false;
  }

  /** How many entries at the end of `cur` this process added and has not written. */
  unwritten(cur: T[]): number {
    if (this.#pushedOnly(cur)) return cur.length - this.written.length;
    const known = new Set(this.written);
    let n = 0;
    while (n < cur.length && !known.has(cur[cur.length - 1 - n])) n++;
    return n;
  }

  /**
   * Another process changed the list on the file to `theirs` (its entries as written): the list in
   * memory becomes `theirs` and this process's unwritten entries after it. `pushed`: they only
   * pushed, so this process's other unwritten changes (a splice) still apply on top.
   */
  absorb(cur: T[], theirs: T[], pushed: boolean): void {
    const mine = this.unwritten(cur);
    if (pushed) {
      const added = theirs.slice(this.written.length);
      cur.splice(cur.length - mine, 0, ...added);
      for (const e of added) this.written.push(e);
      if (cur !== this.arr) return;
      // pushed in place: still only pushed to since the last write, if it was before
      return;
    }
    const tail = cur.slice(cur.length - mine);
    cur.splice(0, cur.length, ...theirs, ...tail);
    this.written = theirs.slice();
    this.arr = cur;
    this.dirty = false;
  }
}

/** A line to append, and what to record about it once it is on disk. */
interface Pending {
  line: Line | null;
  commit(): void;
}

/**
 * One session's log, open for appending. The agent changes `session` (pushes history and replay,
 * sets title/mode/cwd, ledger, allows) and calls `checkpoint()`, which appends what changed.
 * Several processes may hold one session's log: each checkpoint takes the log's lock, reads what
 * others appended since (merging it into `session`: their entries before this process's unwritten
 * ones), and appends its own; a log another process rewrote (compacted) is read again whole.
 */
export class SessionLog {
  readonly session: StoredSession;
  /** called once per kind of failure (again after a recovery); the session keeps working in memory */
  onProblem?: (p: SaveProblem) => void;
  /** called when saving works again after a failure */
  onRecovered?: () => void;
  readonly #file: string;
  readonly #dir: string;
  /** the lock that every read-then-append of this log holds (in a directory beside the sessions) */
  readonly #lock: string;
  #fd = -1;
  /** bytes of the file read or written by this process: whatever is past them, another process appended */
  #size = 0;
  #acct = new Accounting();
  #hist: Track<ChatMessage>;
  #replay: Track<Record<string, unknown>>;
  #meta: Record<string, string | undefined> = {};
  #ledgerHead: string | undefined;
  /** the ledger object last diffed whole; while it stays, only the paths noted since are looked at */
  #ledgerRef: unknown;
  #ledgerDirty = new Set<string>();
  /** per entry: the object last compared (ledgers replace an entry when it changes) and its JSON */
  #ledgerEntries = new Map<string, { ref: unknown; json: string }>();
  #allows = '[]';
  #extras = new Map<string, { ref: unknown; json: string }>();
  /** lines of the log that another process appended and were skipped here (not of their type) */
  readonly skippedLines: string[] = [];
  #stopped = false;
  /** rewrite (compact) the log at the next checkpoint: it held damaged or torn lines when opened */
  #rewriteNext = false;
  #failing = false;
  #reported = new Set<SaveProblemKind>();
  #chain: Promise<void> = Promise.resolve();
  #onClose: () => void | Promise<void>;

  /** @internal use SessionStore.create / open */
  constructor(file: string, session: StoredSession, onClose: () => void | Promise<void>) {
    this.#file = file;
    this.#dir = path.dirname(file);
    this.#lock = path.join(`${this.#dir}.locks`, path.basename(file, '.jsonl'));
    this.session = session;
    this.#onClose = onClose;
    this.#hist = new Track(session.history);
    this.#replay = new Track(session.replay);
    this.#hist.written = [];
    this.#replay.written = [];
  }

  /** @internal The log is the file open as `fd`, of which `size` bytes were read into `session` (with `acct`); `rewrite`: compact it at the next checkpoint. */
  attach(fd: number, size: number, acct: Accounting, rewrite: boolean): void {
    this.#rewriteNext = rewrite;
    this.#fd = fd;
    this.#size = size;
    this.#acct = acct;
    this.#markWritten();
  }

  /** The log's path. */
  get file(): string {
    return this.#file;
  }

  /** Whether the session is on disk (false: it will not survive this process). */
  get saved(): boolean {
    return this.#fd !== -1 && !this.#failing;
  }

  /** The last failure, while it lasts. */
  problem: SaveProblem | undefined;

  /**
   * Appends what changed since the last checkpoint (after what other processes appended).
   * `durable`: fsync it (the end of a model request). `endOfTurn`: the turn is over, so an
   * unanswered tool call never will be: it gets a `cancelled` result first. Never throws; calls
   * queue in order.
   */
  checkpoint(o: { durable?: boolean; endOfTurn?: boolean } = {}): Promise<void> {
    const run = this.#chain.then(() => this.#checkpoint(o));
    this.#chain = run.catch(() => {});
    return this.#chain;
  }

  /**
   * Reads what other processes appended since this one last read or wrote, into `session` (a
   * prompt turn starts with it, so the model sees every turn any process added). Never throws.
   */
  refresh(): Promise<void> {
    return this.checkpoint({});
  }

  /** History entries were replaced in place (a compaction elided or summarised them): the next checkpoint looks at every entry. */
  historyRewritten(): void {
    this.#hist.dirty = true;
  }

  /** Replaces `deleteCount` history entries at `start` with `items` (a compaction): written as a splice line. */
  spliceHistory(start: number, deleteCount: number, ...items: ChatMessage[]): void {
    this.session.history.splice(start, deleteCount, ...items);
    this.#hist.dirty = true;
  }

  /**
   * One ledger entry changed (null: forgotten): kept in `session.ledger` and written at the next
   * checkpoint without looking at the other entries. (Assigning `session.ledger` whole also works.)
   */
  noteLedger(p: string, entry: unknown): void {
    const l = (this.session.ledger ??= { entries: {} }) as { entries?: Record<string, unknown> };
    l.entries ??= {};
    if (entry === null) delete l.entries[p];
    else l.entries[p] = entry;
    this.#ledgerDirty.add(p);
  }

  /** Keeps `value` (any JSON) under `key` in `session.extras`; written at the next checkpoint. */
  put(key: string, value: unknown): void {
    (this.session.extras ??= {})[key] = value;
  }

  /**
   * Writes what is pending and stops (later checkpoints do nothing), then closes the file. The
   * session stays on disk, used or not: a later process may load or resume it (see
   * SessionStore.sweep for when a never-used one goes).
   */
  async close(o: { endOfTurn?: boolean } = {}): Promise<void> {
    await this.checkpoint({ durable: true, endOfTurn: o.endOfTurn });
    this.#stopped = true;
    if (this.#fd !== -1) {
      try {
        fs.closeSync(this.#fd);
      } catch {
        /* already gone */
      }
      this.#fd = -1;
    }
    await this.#onClose();
  }

  #markWritten(): void {
    const s = this.session;
    this.#hist.wrote(s.history, false);
    this.#replay.wrote(s.replay, false);
    for (const f of META_FIELDS) this.#meta[f] = s[f];
    const { head, entries } = ledgerParts(s.ledger);
    this.#ledgerHead = s.ledger === undefined ? undefined : head;
    this.#ledgerRef = s.ledger;
    this.#ledgerDirty.clear();
    this.#ledgerEntries = new Map(Object.entries(entries ?? {}).map(([p, e]) => [p, { ref: e, json: JSON.stringify(e) }]));
    this.#allows = JSON.stringify(s.allows);
    this.#extras = new Map(Object.entries(s.extras ?? {}).map(([k, v]) => [k, { ref: v, json: JSON.stringify(v) }]));
  }

  /**
   * The lines that bring the file up to `session`, each with what to record once it is written.
   * Costs what changed, not the session's size (entries compare by identity first).
   */
  #diff(): Pending[] {
    const s = this.session;
    const out: Pending[] = [];
    const add = (line: Line | null, commit: () => void) => out.push({ line, commit });
    for (const f of META_FIELDS) {
      const v = s[f];
      if (v !== this.#meta[f]) add({ t: 'set', f, v }, () => (this.#meta[f] = v));
    }
    const hist = s.history;
    const h = this.#hist.diff(hist);
    for (const sp of h.splices) add({ t: 'splice', ...sp }, () => {});
    for (const m of h.tail) add({ t: 'msg', m }, () => {});
    const pushedOnly = h.splices.length === 0;
    add(null, () => this.#hist.wrote(hist, pushedOnly));
    const replay = s.replay;
    const r = this.#replay.diff(replay);
    for (const sp of r.splices) add({ t: 'rsplice', ...sp }, () => {});
    for (const u of r.tail) add({ t: 'replay', u }, () => {});
    const rPushedOnly = r.splices.length === 0;
    add(null, () => this.#replay.wrote(replay, rPushedOnly));
    if (s.ledger !== undefined && s.ledger === this.#ledgerRef) {
      // the same ledger object: only the entries noted since can differ
      const entries = ledgerParts(s.ledger).entries ?? {};
      for (const p of this.#ledgerDirty) this.#ledgerLine(add, p, p in entries ? entries[p] : null);
    } else if (s.ledger !== undefined) {
      // a ledger assigned whole: every entry compared (by identity first)
      const ledger = s.ledger;
      const { head, entries = {} } = ledgerParts(ledger);
      if (head !== this.#ledgerHead) add({ t: 'ledger', l: JSON.parse(head) }, () => (this.#ledgerHead = head));
      let count = 0;
      let fresh = 0;
      for (const p in entries) {
        count++;
        if (!this.#ledgerEntries.has(p)) fresh++;
        this.#ledgerLine(add, p, entries[p]);
      }
      // entries forgotten: only looked for when fewer of the known ones are left
      if (count - fresh < this.#ledgerEntries.size) {
        for (const p of this.#ledgerEntries.keys()) if (!(p in entries)) this.#ledgerLine(add, p, null);
      }
      // from now on this object's changes come through noteLedger
      add(null, () => ((this.#ledgerRef = ledger), this.#ledgerDirty.clear()));
    }
    const allows = JSON.stringify(s.allows);
    if (allows !== this.#allows) add({ t: 'allows', a: s.allows }, () => (this.#allows = allows));
    for (const [k, v] of Object.entries(s.extras ?? {})) {
      const w = this.#extras.get(k);
      if (w?.ref === v) continue;
      const json = JSON.stringify(v);
      if (w?.json === json) {
        w.ref = v;
        continue;
      }
      add({ t: 'put', k, v }, () => this.#extras.set(k, { ref: v, json }));
    }
    return out;
  }

  /** The line for ledger entry `p` now being `e` (null: forgotten), unless the file already has it. */
  #ledgerLine(add: (line: Line | null, commit: () => void) => void, p: string, e: unknown): void {
    const w = this.#ledgerEntries.get(p);
    if (e === null) {
      if (w) add({ t: 'read', p, e: null }, () => (this.#ledgerEntries.delete(p), this.#ledgerDirty.delete(p)));
      else this.#ledgerDirty.delete(p);
      return;
    }
    if (w?.ref === e) return void this.#ledgerDirty.delete(p);
    const json = JSON.stringify(e);
    if (w?.json === json) {
      w.ref = e;
      this.#ledgerDirty.delete(p);
      return;
    }
    add({ t: 'read', p, e }, () => (this.#ledgerEntries.set(p, { ref: e, json }), this.#ledgerDirty.delete(p)));
  }

  async #checkpoint(o: { durable?: boolean; endOfTurn?: boolean }): Promise<void> {
    if (this.#stopped) return;
    if (o.endOfTurn) answerUnansweredCalls(this.session.history);
    try {
      makeDirs(this.#dir);
      // a file where the directory should be: said as that, with nothing made beside it
      if (!fs.statSync(this.#dir).isDirectory()) throw Object.assign(new Error(`${this.#dir} is not a directory`), { code: 'ENOTDIR', path: this.#dir });
      makeDirs(path.dirname(this.#lock));
      await withFileLock(this.#lock, `the session log ${this.#file}`, () => this.#sync());
      if (o.durable && this.#fd !== -1 && !this.#stopped) {
        const fd = this.#fd;
        await new Promise<void>((res, rej) => fs.fdatasync(fd, (err) => (err ? rej(err) : res())));
      }
      if (this.#failing) {
        this.#failing = false;
        this.problem = undefined;
        this.#reported.clear();
        this.onRecovered?.();
      }
    } catch (err) {
      this.#failing = true;
      this.#report(describeSaveError(err, this.#dir));
    }
  }

  /** Under the log's lock: what others wrote read in, then what this process changed appended (or the log rewritten). */
  #sync(): void {
    if (this.#fd === -1 && !this.#known) return this.#writeSnapshot();
    const there = fs.statSync(this.#file, { throwIfNoEntry: false });
    if (!there) {
      // deleted (session/delete in another process): writing on would bring back what was deleted
      this.#stopped = true;
      this.#report({ kind: 'deleted', message: `the session file ${this.#file} was deleted by another process (session/delete); what happens here from now on is not saved` });
      return;
    }
    const mine = this.#fd === -1 ? undefined : fs.fstatSync(this.#fd);
    if (!mine || mine.ino !== there.ino || mine.dev !== there.dev || there.size < this.#size) this.#adopt();
    else if (there.size > this.#size) this.#readOthers(there.size);
    const lines = this.#diff();
    if (this.#rewriteNext || (this.#size > COMPACT_MIN_BYTES && this.#size > 2 * this.#acct.live)) return this.#writeSnapshot();
    if (lines.some((l) => l.line)) this.#append(lines);
    else for (const l of lines) l.commit();
  }

  /** Whether this log has been on disk (so a file there now is this session's, maybe rewritten by another process). */
  get #known(): boolean {
    return this.#size > 0;
  }

  /** Reads the lines other processes appended past what this one has read, into the session. */
  #readOthers(size: number): void {
    const buf = Buffer.alloc(size - this.#size);
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(this.#fd, buf, got, buf.length - got, this.#size + got);
      if (n === 0) break;
      got += n;
    }
    const { text, bytes: whole } = wholeLines(buf.subarray(0, got));
    const damaged: string[] = [];
    const lines = parseLines(text, 1, damaged);
    for (const d of damaged) this.skippedLines.push(`${this.#file} (appended at byte ${this.#size}) ${d}`);
    this.#absorb(lines);
    this.#size += whole;
    // under the lock nobody is writing: bytes past the last newline are a torn line (a writer
    // killed inside its write), ended here so this process's next line starts on its own
    if (whole < got) {
      this.#size = endTornTail(this.#fd);
      this.skippedLines.push(`${this.#file}: a line torn by a crash (at byte ${this.#size - (got - whole) - 1})`);
    }
  }

  /** Lines another process appended, merged into the session: their entries come before this process's unwritten ones. */
  #absorb(lines: Array<{ line: Line; size: number }>): void {
    const s = this.session;
    const theirs = emptySession(s.sessionId);
    theirs.history = this.#hist.written.slice();
    theirs.replay = this.#replay.written.slice();
    let histPushed = true;
    let replayPushed = true;
    let histChanged = false;
    let replayChanged = false;
    for (const { line, size } of lines) {
      this.#acct.line(line, size);
      switch (line.t) {
        case 'msg':
        case 'splice':
          histChanged = true;
          histPushed &&= line.t === 'msg';
          apply(theirs, line);
          break;
        case 'replay':
        case 'rsplice':
          replayChanged = true;
          replayPushed &&= line.t === 'replay';
          apply(theirs, line);
          break;
        case 'set':
          // a change here not yet written wins (it is later); otherwise theirs is the value now
          if (s[line.f] === this.#meta[line.f]) apply(s, line);
          this.#meta[line.f] = line.v;
          break;
        case 'put': {
          const w = this.#extras.get(line.k);
          const json = JSON.stringify(line.v);
          if (w === undefined ? s.extras?.[line.k] === undefined : s.extras?.[line.k] === w.ref) {
            apply(s, line);
            this.#extras.set(line.k, { ref: line.v, json });
          } else this.#extras.set(line.k, { ref: undefined, json });
          break;
        }
        case 'allows':
          if (JSON.stringify(s.allows) === this.#allows) s.allows = line.a;
          this.#allows = JSON.stringify(line.a);
          break;
        case 'read':
          if (!this.#ledgerDirty.has(line.p)) {
            apply(s, line);
            if (line.e === null) this.#ledgerEntries.delete(line.p);
            else this.#ledgerEntries.set(line.p, { ref: line.e, json: JSON.stringify(line.e) });
          }
          break;
        case 'ledger':
          this.#ledgerHead = JSON.stringify(line.l);
          break;
        case 'head':
          break;
      }
    }
    if (histChanged) this.#hist.absorb(s.history, theirs.history, histPushed);
    if (replayChanged) this.#replay.absorb(s.replay, theirs.replay, replayPushed);
  }

  /**
   * The file was replaced (another process compacted it) or cut short: it is read again whole and
   * becomes what this log holds; this process's unwritten entries and changes go on top of it.
   */
  #adopt(): void {
    const buf = fs.readFileSync(this.#file);
    const read = fold(this.session.sessionId, buf);
    if (!read) throw Object.assign(new Error(`the session file ${this.#file} is no longer this session's log (its head line is missing or names another session)`), { path: this.#file });
    const f = read.session;
    const s = this.session;
    for (const fld of META_FIELDS) {
      if (s[fld] === this.#meta[fld]) {
        if (f[fld] === undefined) delete s[fld];
        else s[fld] = f[fld] as string;
      }
      this.#meta[fld] = f[fld];
    }
    for (const [k, v] of Object.entries(f.extras ?? {})) {
      const w = this.#extras.get(k);
      const mineChanged = w === undefined ? s.extras?.[k] !== undefined : s.extras?.[k] !== w.ref;
      if (!mineChanged) (s.extras ??= {})[k] = v;
      this.#extras.set(k, { ref: mineChanged ? undefined : v, json: JSON.stringify(v) });
    }
    if (JSON.stringify(s.allows) === this.#allows) s.allows = f.allows;
    this.#allows = JSON.stringify(f.allows);
    const { head, entries } = ledgerParts(f.ledger);
    this.#ledgerHead = f.ledger === undefined ? undefined : head;
    this.#ledgerEntries = new Map(Object.entries(entries ?? {}).map(([p, e]) => [p, { ref: e, json: JSON.stringify(e) }]));
    // every entry of this process's ledger compared again at the next diff
    this.#ledgerRef = undefined;
    this.#hist.absorb(s.history, f.history, false);
    this.#replay.absorb(s.replay, f.replay, false);
    if (this.#fd !== -1) fs.closeSync(this.#fd);
    this.#fd = -1;
    this.#fd = openForAppend(this.#file);
    this.#acct = read.acct;
    this.#size = read.bytes;
    if (read.bytes < buf.length) this.#size = endTornTail(this.#fd);
  }

  #report(p: SaveProblem): void {
    this.problem = p;
    if (this.#reported.has(p.kind)) return;
    this.#reported.add(p.kind);
    this.onProblem?.(p);
  }

  #append(pending: Pending[]): void {
    const texts = pending.map((p) => (p.line ? enc(p.line) : ''));
    const buf = Buffer.from(texts.join(''));
    try {
      writeAll(this.#fd, buf);
    } catch (err) {
      // take back a partial line, so the next append starts on a line boundary
      try {
        fs.ftruncateSync(this.#fd, this.#size);
      } catch {
        /* ended by the next appender (a torn tail) */
      }
      throw err;
    }
    this.#size += buf.length;
    pending.forEach((p, i) => {
      if (p.line) this.#acct.line(p.line, bytes(texts[i]));
      p.commit();
    });
  }

  /** Rewrites the file as the session's compacted lines: temp file, fsync, rename (others holding it read the new one). */
  #writeSnapshot(): void {
    const lines = snapshotLines(this.session);
    const texts = lines.map(enc);
    const buf = Buffer.from(texts.join(''));
    // a failed save leaves nothing behind (a full disk must not fill up further)
    replaceFileSync(this.#file, buf, { mode: 0o600 });
    if (this.#fd !== -1) fs.closeSync(this.#fd);
    this.#fd = -1;
    this.#fd = openForAppend(this.#file);
    this.#size = buf.length;
    const acct = new Accounting();
    lines.forEach((l, i) => acct.line(l, bytes(texts[i])));
    this.#acct = acct;
    this.#rewriteNext = false;
    this.#markWritten();
  }
}

export class SessionStore {
  readonly dir: string;
  /** what session/list reads instead of every file (session_index.ts) */
  readonly index: SessionIndex;
  readonly #open = new Map<string, SessionLog>();
  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'sessions');
    this.index = new SessionIndex(this.dir, (id, kind) => (kind === 'jsonl' ? this.#summary(id) : this.#legacySummary(id)));
  }

  #file(id: string, ext = '.jsonl'): string {
    // ids come from clients: never let one name a path outside the store
    if (!ID_RE.test(id)) throw new Error(`invalid session id ${JSON.stringify(id)}`);
    return path.join(this.dir, `${id}${ext}`);
  }

  /**
   * Starts the log of a new session and writes it. A log that could not be written still works
   * in memory (`saved` false, `problem` says why) and retries at every checkpoint.
   */
  async create(s: StoredSession): Promise<SessionLog> {
    const file = this.#file(s.sessionId);
    const owner = newOwner();
    let marked = false;
    const log = this.#track(new SessionLog(file, s, () => this.#closed(s.sessionId, log, marked ? owner : undefined)));
    await log.checkpoint({ durable: true });
    marked = await this.#opened(log, owner);
    if (!this.#swept && log.saved) this.#swept = this.sweep().catch(() => 0);
    return log;
  }

  #swept: Promise<number> | undefined;

  /**
   * Removes the sessions never used (no prompt, nothing replayed, nothing kept for them) whose log
   * has not changed for UNUSED_EXPIRY_MS and that no live process holds open. Runs at most once a
   * day per data dir (the first session/new of a process starts it). Returns how many went.
   */
  async sweep(now = Date.now(), force = false): Promise<number> {
    const stamp = `${this.dir}.swept`;
    try {
      if (!force && now - fs.statSync(stamp).mtimeMs < SWEEP_EVERY_MS) return 0;
    } catch {
      /* never swept */
    }
    fs.writeFileSync(stamp, '', { mode: 0o600 });
    const held = await this.index.held();
    let removed = 0;
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const id = name.slice(0, -'.jsonl'.length);
      const file = path.join(this.dir, name);
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (!st || st.size > UNUSED_MAX_BYTES || now - st.mtimeMs < UNUSED_EXPIRY_MS || held.has(id) || this.#open.has(id)) continue;
      const read = this.#read(id);
      if (!read || !unused(read.session)) continue;
      await this.delete(id);
      removed++;
    }
    return removed;
  }

  /**
   * Opens a stored session for appending, as it is on disk now (every turn any process added):
   * unanswered tool calls get a `cancelled` result (appended). The log is rewritten (compacted)
   * only when it holds damaged or torn lines (the log as it was is kept beside it first) or is an
   * old whole-file session; other processes holding it read the new file at their next save.
   * Undefined when there is no such session. A session already open in this store is closed first.
   */
  async open(id: string): Promise<SessionLog | undefined> {
    if (!ID_RE.test(id)) return undefined;
    await this.#open.get(id)?.close();
    const file = this.#file(id);
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_APPEND | (fs.constants.O_NOFOLLOW ?? 0));
    } catch {
      return this.#openLegacy(id);
    }
    let read: ReturnType<typeof fold>;
    let mtime: Date;
    try {
      const buf = fs.readFileSync(fd);
      mtime = fs.fstatSync(fd).mtime;
      read = fold(id, buf, file);
      if (read && read.bytes < buf.length) read.torn = true;
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    if (!read) {
      fs.closeSync(fd);
      return undefined;
    }
    const session = read.session;
    session.updatedAt = mtime.toISOString();
    // the rewrite below drops the skipped lines: the log as it was is kept beside it first
    if (session.damagedLines) {
      const aside = `${file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      try {
        fs.copyFileSync(file, aside, fs.constants.COPYFILE_EXCL);
        session.damagedLines.push(`the log as it was is kept as ${aside}`);
      } catch {
        /* not kept (a full disk): the notice still names the lines */
      }
    }
    const owner = newOwner();
    let marked = false;
    const log = this.#track(new SessionLog(file, session, () => this.#closed(id, log, marked ? owner : undefined)));
    log.attach(fd, read.bytes, read.acct, !!session.damagedLines || !!read.torn);
    answerUnansweredCalls(session.history);
    await log.checkpoint({ durable: true });
    marked = await this.#opened(log, owner);
    return log;
  }

  /** An old whole-file session, converted to a log. */
  async #openLegacy(id: string): Promise<SessionLog | undefined> {
    const session = this.#legacy(id);
    if (!session) return undefined;
    answerUnansweredCalls(session.history);
    const owner = newOwner();
    let marked = false;
    const log = this.#track(new SessionLog(this.#file(id), session, () => this.#closed(id, log, marked ? owner : undefined)));
    await log.checkpoint({ durable: true });
    if (log.saved) fs.rmSync(this.#file(id, '.json'), { force: true });
    marked = await this.#opened(log, owner);
    return log;
  }

  /**
   * Removes a stored session (session/delete): its log is closed if open here, then its file (and
   * an old whole-file copy) goes. False when there was no such session.
   */
  async delete(id: string): Promise<boolean> {
    if (!ID_RE.test(id)) return false;
    await this.#open.get(id)?.close();
    let found = false;
    for (const ext of ['.jsonl', '.json']) {
      try {
        fs.unlinkSync(this.#file(id, ext));
        found = true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    if (found) await this.index.closed(id).catch(() => {});
    return found;
  }

  /** A stored session as it would load (unanswered calls answered), without opening it. */
  async load(id: string): Promise<StoredSession | undefined> {
    if (!ID_RE.test(id)) return undefined;
    const read = this.#read(id);
    if (!read) return undefined;
    answerUnansweredCalls(read.session.history);
    return read.session;
  }

  /**
   * Writes `s` whole. When its log is open here, this is a checkpoint of that log (a session
   * object replaced wholesale is rewritten); otherwise the file is replaced by `s`.
   */
  async save(s: StoredSession): Promise<void> {
    const file = this.#file(s.sessionId);
    const open = this.#open.get(s.sessionId);
    if (open && open.session === s) return open.checkpoint({ durable: true });
    await open?.close();
    const log = new SessionLog(file, s, () => {});
    let failure: SaveProblem | undefined;
    log.onProblem = (p) => (failure = p);
    await log.checkpoint({ durable: true });
    await log.close();
    if (failure) throw new Error(`cannot save session ${s.sessionId}: ${failure.message}`);
    await this.index.closed(s.sessionId).catch(() => {});
  }

  /**
   * Newest first (ties by id); `cwd` filters to sessions rooted there. Answered from the index
   * beside the sessions directory, which reads only the files that changed (session_index.ts).
   */
  async list(cwd?: string): Promise<SessionSummary[]> {
    const all = await this.index.list();
    return cwd ? all.filter((s) => s.cwd === cwd) : all;
  }

  #track(log: SessionLog): SessionLog {
    this.#open.set(log.session.sessionId, log);
    return log;
  }

  #untrack(id: string, log: SessionLog): void {
    if (this.#open.get(id) === log) this.#open.delete(id);
  }

  /** Marks a saved session open in the index (its appends do not show in the directory); false when it was not. */
  async #opened(log: SessionLog, owner: string): Promise<boolean> {
    if (!log.saved) return false;
    try {
      await this.index.opened(log.session.sessionId, owner);
      return true;
    } catch {
      return false; // the index cannot be written: list reads the files
    }
  }

  async #closed(id: string, log: SessionLog, owner: string | undefined): Promise<void> {
    this.#untrack(id, log);
    if (owner) await this.index.closed(id, owner).catch(() => {});
  }

  /** A log's summary from its head and `set` lines, with the stamp of the file as read. */
  #summary(id: string): { summary: SessionSummary; stamp: string } | undefined {
    let text: string;
    let st: fs.Stats;
    try {
      // stat first: a change while reading shows as a stamp that is already old
      st = fs.statSync(this.#file(id));
      text = fs.readFileSync(this.#file(id), 'utf8');
    } catch {
      return undefined;
    }
    let s: SessionSummary | undefined;
    let dirs: string[] | undefined;
    for (const raw of text.split('\n')) {
      if (!s) {
        try {
          const h = JSON.parse(raw) as Line;
          if (h.t !== 'head' || h.sessionId !== id) return undefined;
          s = { sessionId: id, cwd: h.cwd, title: h.title, updatedAt: st.mtime.toISOString() };
        } catch {
          return undefined;
        }
      } else if (raw.startsWith('{"t":"set"')) {
        try {
          const l = JSON.parse(raw) as Extract<Line, { t: 'set' }>;
          if (l.f === 'title' || l.f === 'cwd') s[l.f] = l.v as string;
        } catch {
          /* a torn last line */
        }
      } else if (raw.startsWith(DIRS_PUT)) {
        try {
          dirs = dirsKept((JSON.parse(raw) as Extract<Line, { t: 'put' }>).v);
        } catch {
          /* a torn last line */
        }
      }
    }
    if (s && dirs) s.additionalDirectories = dirs;
    return s ? { summary: s, stamp: fileStamp(st) } : undefined;
  }

  #legacySummary(id: string): { summary: SessionSummary; stamp: string } | undefined {
    let st: fs.Stats;
    try {
      st = fs.statSync(this.#file(id, '.json'));
    } catch {
      return undefined;
    }
    const s = this.#legacy(id);
    const dirs = dirsKept(s?.extras?.[ADDITIONAL_DIRS_KEY]);
    return s ? { summary: { sessionId: s.sessionId, cwd: s.cwd, title: s.title, updatedAt: s.updatedAt, ...(dirs ? { additionalDirectories: dirs } : {}) }, stamp: fileStamp(st) } : undefined;
  }

  #read(id: string): { session: StoredSession; legacy: boolean } | undefined {
    let buf: Buffer;
    let st: fs.Stats;
    try {
      buf = fs.readFileSync(this.#file(id));
      st = fs.statSync(this.#file(id));
    } catch {
      const old = this.#legacy(id);
      return old ? { session: old, legacy: true } : undefined;
    }
    const read = fold(id, buf, this.#file(id));
    if (!read) return undefined;
    read.session.updatedAt = st.mtime.toISOString();
    return { session: read.session, legacy: false };
  }

  /** A whole-file session as earlier versions wrote it. */
  #legacy(id: string): StoredSession | undefined {
    try {
      const s = JSON.parse(fs.readFileSync(this.#file(id, '.json'), 'utf8')) as StoredSession;
      if (s.version !== 1 || s.sessionId !== id) return undefined;
      s.history ??= [];
      s.replay ??= [];
      s.allows ??= [];
      return s;
    } catch {
      return undefined;
    }
  }
}
