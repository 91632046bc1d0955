// Sessions on disk, so session/load and session/list survive the agent process: the model
// history, what to replay to a client, the read ledger, the session-scoped allows. Each session is
// an append-only log of JSON lines (`<id>.jsonl`, mode 0600): every history entry, replayed update,
// ledger change and allow is appended as it happens (a save costs the size of what changed, not
// of the session), fsync'd at the end of each model request, so a crash loses at most the line
// being written. The log is rewritten whole (temp file, fsync, rename) only to compact it: on load
// when it holds superseded lines, and while running when half of it is superseded. Old whole-file
// sessions (`<id>.json`) still load, and are converted on the way.
//
// For code that must keep more per session (issue-specific state such as compaction summaries):
// - history entries are immutable once added; push new ones, or rewrite with `spliceHistory`
//   (one log line), or replace `session.history` outright (the log notices and rewrites itself);
// - `put(key, value)` keeps any JSON value under `session.extras[key]`;
// - `checkpoint()` writes what changed; it never throws (failures go to `onProblem`).
import fs from 'node:fs';
import path from 'node:path';
import type { ChatMessage } from '../providers/types.ts';
import { fileStamp, newOwner, SessionIndex, type SessionFileKind } from './index_file.ts';
import { answerUnansweredCalls } from './tool_call_repair.ts';
import { replaceFileSync } from '../../core/platform/atomic_file.ts';

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

export type SessionSummary = Pick<StoredSession, 'sessionId' | 'cwd' | 'title' | 'updatedAt'>;

/** Why a save failed, by kind: the agent tells the user once per kind. */
export type SaveProblemKind = 'no_space' | 'read_only' | 'permission' | 'not_a_directory' | 'taken_over' | 'io';

export interface SaveProblem {
  kind: SaveProblemKind;
  /** the real cause and what to do, for the user */
  message: string;
}

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** A log smaller than this is never compacted while running (rewriting it would cost more than it frees). */
const COMPACT_MIN_BYTES = 64 * 1024;
const META_FIELDS = ['title', 'mode', 'cwd'] as const;

/** A line to append, and what to record about it once it is on disk. */
interface Pending {
  text: string;
  commit(size: number): void;
}

/** One line of the log; `t` comes first so readers can pick lines by prefix. */
type Line =
  | { t: 'head'; v: 2; sessionId: string; cwd: string; createdAt: string; mode: string; title?: string }
  | { t: 'set'; f: (typeof META_FIELDS)[number]; v: string | undefined }
  | { t: 'msg'; m: ChatMessage }
  | { t: 'splice'; at: number; del: number; add: ChatMessage[] }
  | { t: 'replay'; u: Record<string, unknown> }
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
  readonly #hist: number[] = [];
  readonly #slots = new Map<string, number>();
  hist(size: number): void {
    this.#hist.push(size);
    this.live += size;
  }
  replay(size: number): void {
    this.live += size;
  }
  /** a line for `slot` of `size` bytes (0: the slot is emptied): whatever it replaces is dead now */
  slot(slot: string, size: number): void {
    this.live += size - (this.#slots.get(slot) ?? 0);
    if (size) this.#slots.set(slot, size);
    else this.#slots.delete(slot);
  }
  /** a splice line's bytes are spread over the entries it adds; the entries it deletes are dead */
  splice(line: Extract<Line, { t: 'splice' }>, size: number): void {
    const each = line.add.length ? size / line.add.length : 0;
    for (const gone of this.#hist.splice(line.at, line.del, ...line.add.map(() => each))) this.live -= gone;
    this.live += each * line.add.length;
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
      return isInt(l.at) && isInt(l.del) && Array.isArray(l.add) && l.add.every(isObj) ? undefined : 'a splice whose at/del are not counts or whose add is not a list of messages';
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

/**
 * The session a log's text holds; a torn last line (a crash while it was written) is dropped, and
 * a line that does not parse or is not of its type is skipped and named in `damagedLines`.
 */
function fold(sessionId: string, text: string): StoredSession | undefined {
  const s = emptySession(sessionId);
  const damaged: string[] = [];
  let sawHead = false;
  let off = 0;
  let n = 0;
  while (off < text.length) {
    n++;
    let nl = text.indexOf('\n', off);
    const torn = nl === -1;
    if (torn) nl = text.length;
    const raw = text.slice(off, nl);
    off = nl + 1;
    // a crash while this line was written: the line is lost, nothing before it
    if (torn) break;
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      if (sawHead && raw) damaged.push(`line ${n}: not JSON`);
      continue;
    }
    const why = invalidLine(line);
    if (!sawHead) {
      if (why || line.t !== 'head' || line.sessionId !== sessionId) return undefined;
      sawHead = true;
    }
    if (why) {
      damaged.push(`line ${n}: ${why}`);
      continue;
    }
    apply(s, line);
  }
  if (damaged.length) s.damagedLines = damaged;
  return sawHead ? s : undefined;
}

/** The whole session as the lines of a compacted log. */
function snapshotLines(s: StoredSession): Array<{ line: Line; kind: 'hist' | 'replay' | string }> {
  const out: Array<{ line: Line; kind: string }> = [];
  out.push({ line: { t: 'head', v: 2, sessionId: s.sessionId, cwd: s.cwd, createdAt: s.createdAt, mode: s.mode, ...(s.title !== undefined ? { title: s.title } : {}) }, kind: 'head' });
  for (const m of s.history) out.push({ line: { t: 'msg', m }, kind: 'hist' });
  for (const u of s.replay) out.push({ line: { t: 'replay', u }, kind: 'replay' });
  if (s.ledger !== undefined) {
    const { head, entries } = ledgerParts(s.ledger);
    out.push({ line: { t: 'ledger', l: JSON.parse(head) }, kind: 'ledger' });
    for (const [p, e] of Object.entries(entries ?? {})) out.push({ line: { t: 'read', p, e }, kind: `read:${p}` });
  }
  if (s.allows.length) out.push({ line: { t: 'allows', a: s.allows }, kind: 'allows' });
  for (const [k, v] of Object.entries(s.extras ?? {})) out.push({ line: { t: 'put', k, v }, kind: `put:${k}` });
  return out;
}

/** Nothing happened in the session: no message but the system prompt, nothing to replay. */
/** Never used: no prompt, nothing to replay, nothing kept for it (a model chosen for it counts as use). */
const unused = (s: StoredSession): boolean => s.replay.length === 0 && s.history.every((m) => m.role === 'system') && Object.keys(s.extras ?? {}).length === 0;

/**
 * One session's log, open for appending. The agent changes `session` (pushes history and replay,
 * sets title/mode/cwd, ledger, allows) and calls `checkpoint()`, which appends what changed.
 */
export class SessionLog {
  readonly session: StoredSession;
  /** called once per kind of failure (again after a recovery); the session keeps working in memory */
  onProblem?: (p: SaveProblem) => void;
  /** called when saving works again after a failure */
  onRecovered?: () => void;
  readonly #file: string;
  readonly #dir: string;
  #fd = -1;
  #size = 0;
  #acct = new Accounting();
  // what the file holds, to diff against
  #histArr: ChatMessage[];
  #histN = 0;
  #histLast: ChatMessage | undefined;
  #replayArr: Array<Record<string, unknown>>;
  #replayN = 0;
  #replayLast: Record<string, unknown> | undefined;
  #meta: Record<string, string | undefined> = {};
  #ledgerHead: string | undefined;
  /** the ledger object last diffed whole; while it stays, only the paths noted since are looked at */
  #ledgerRef: unknown;
  #ledgerDirty = new Set<string>();
  /** per entry: the object last compared (ledgers replace an entry when it changes) and its JSON */
  #ledgerEntries = new Map<string, { ref: unknown; json: string }>();
  #allows = '[]';
  #extras = new Map<string, { ref: unknown; json: string }>();
  #rewrite = true;
  #reported = new Set<SaveProblemKind>();
  #failing = false;
  #stopped = false;
  #chain: Promise<void> = Promise.resolve();
  #onClose: () => void | Promise<void>;

  /** @internal use SessionStore.create / open */
  constructor(file: string, session: StoredSession, onClose: () => void | Promise<void>) {
    this.#file = file;
    this.#dir = path.dirname(file);
    this.session = session;
    this.#histArr = session.history;
    this.#replayArr = session.replay;
    this.#onClose = onClose;
  }

  /** Whether the session is on disk (false: it will not survive this process). */
  get saved(): boolean {
    return this.#fd !== -1 && !this.#failing;
  }

  /** The last failure, while it lasts. */
  problem: SaveProblem | undefined;

  /**
   * Appends what changed since the last checkpoint. `durable`: fsync it (the end of a model
   * request). `endOfTurn`: the turn is over, so an unanswered tool call never will be: it gets a
   * `cancelled` result first. Never throws; calls queue in order.
   */
  checkpoint(o: { durable?: boolean; endOfTurn?: boolean } = {}): Promise<void> {
    const run = this.#chain.then(() => this.#checkpoint(o));
    this.#chain = run.catch(() => {});
    return this.#chain;
  }

  /**
   * History entries were replaced in place (a compaction elided or summarised them): appends
   * cannot say that, so the next checkpoint rewrites the file.
   */
  historyRewritten(): void {
    this.#rewrite = true;
  }

  /** Replaces `deleteCount` history entries at `start` with `items` as one log line (a compaction). */
  spliceHistory(start: number, deleteCount: number, ...items: ChatMessage[]): void {
    const h = this.session.history;
    const wasWritten = h === this.#histArr && !this.#changedOutOfBand(h, this.#histN, this.#histLast);
    h.splice(start, deleteCount, ...items);
    if (!wasWritten || this.#rewrite || start > this.#histN) {
      // not in step with the file: the next checkpoint rewrites it
      this.#rewrite = true;
      return;
    }
    const del = Math.min(deleteCount, this.#histN - start);
    this.#pendingSplices.push({ t: 'splice', at: start, del, add: items });
    this.#histN = this.#histN - del + items.length;
    this.#histLast = this.#histN > 0 ? h[this.#histN - 1] : undefined;
  }
  #pendingSplices: Line[] = [];

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
   * Writes what is pending and stops (later checkpoints do nothing), then closes the file.
   * `discardIfUnused`: a session that never got past its start (no message but the system
   * prompt, nothing to replay) is removed instead: every `cxl` start makes one, and a list of
   * the sessions never used would bury the others. Only the file this log still holds is removed
   * (not one another process has rewritten since).
   */
  async close(o: { endOfTurn?: boolean; discardIfUnused?: boolean } = {}): Promise<void> {
    await this.checkpoint({ durable: true, endOfTurn: o.endOfTurn });
    this.#stopped = true;
    if (this.#fd !== -1) {
      if (o.discardIfUnused && unused(this.session)) {
        try {
          const mine = fs.fstatSync(this.#fd);
          const there = fs.lstatSync(this.#file, { throwIfNoEntry: false });
          if (mine.nlink > 0 && there && there.ino === mine.ino && there.dev === mine.dev) fs.unlinkSync(this.#file);
        } catch {
          /* kept: an unused session in the list is the worst of it */
        }
      }
      try {
        fs.closeSync(this.#fd);
      } catch {
        /* already gone */
      }
      this.#fd = -1;
    }
    await this.#onClose();
  }

  #changedOutOfBand<T>(arr: T[], n: number, last: T | undefined): boolean {
    return arr.length < n || (n > 0 && arr[n - 1] !== last);
  }

  #markWritten(): void {
    const s = this.session;
    this.#histArr = s.history;
    this.#histN = s.history.length;
    this.#histLast = s.history.at(-1);
    this.#replayArr = s.replay;
    this.#replayN = s.replay.length;
    this.#replayLast = s.replay.at(-1);
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
   * The lines that bring the file up to `session`, each with what to record once it is written;
   * null: rewrite instead. Costs what changed, not the session's size (entries compare by identity first).
   */
  #diff(): Pending[] | null {
    const s = this.session;
    if (s.history !== this.#histArr || this.#changedOutOfBand(s.history, this.#histN, this.#histLast)) return null;
    if (s.replay !== this.#replayArr || this.#changedOutOfBand(s.replay, this.#replayN, this.#replayLast)) return null;
    const out: Pending[] = [];
    const add = (line: Line | null, commit: (size: number) => void) => out.push({ text: line ? enc(line) : '', commit });
    for (const f of META_FIELDS) {
      const v = s[f];
      if (v !== this.#meta[f]) add({ t: 'set', f, v }, (n) => ((this.#meta[f] = v), this.#acct.slot(`set:${f}`, n)));
    }
    for (const l of this.#pendingSplices) add(l, (n) => this.#acct.splice(l as Extract<Line, { t: 'splice' }>, n));
    const hist = s.history;
    for (let i = this.#histN; i < hist.length; i++) add({ t: 'msg', m: hist[i] }, (n) => ((this.#histN = i + 1), (this.#histLast = hist[i]), this.#acct.hist(n)));
    const replay = s.replay;
    for (let i = this.#replayN; i < replay.length; i++) add({ t: 'replay', u: replay[i] }, (n) => ((this.#replayN = i + 1), (this.#replayLast = replay[i]), this.#acct.replay(n)));
    if (s.ledger !== undefined && s.ledger === this.#ledgerRef) {
      // the same ledger object: only the entries noted since can differ
      const entries = ledgerParts(s.ledger).entries ?? {};
      for (const p of this.#ledgerDirty) this.#ledgerLine(add, p, p in entries ? entries[p] : null);
    } else if (s.ledger !== undefined) {
      // a ledger assigned whole: every entry compared (by identity first)
      const ledger = s.ledger;
      const { head, entries = {} } = ledgerParts(ledger);
      if (head !== this.#ledgerHead) add({ t: 'ledger', l: JSON.parse(head) }, (n) => ((this.#ledgerHead = head), this.#acct.slot('ledger', n)));
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
    if (allows !== this.#allows) add({ t: 'allows', a: s.allows }, (n) => ((this.#allows = allows), this.#acct.slot('allows', n)));
    for (const [k, v] of Object.entries(s.extras ?? {})) {
      const w = this.#extras.get(k);
      if (w?.ref === v) continue;
      const json = JSON.stringify(v);
      if (w?.json === json) {
        w.ref = v;
        continue;
      }
      add({ t: 'put', k, v }, (n) => (this.#extras.set(k, { ref: v, json }), this.#acct.slot(`put:${k}`, n)));
    }
    return out;
  }

  /** The line for ledger entry `p` now being `e` (null: forgotten), unless the file already has it. */
  #ledgerLine(add: (line: Line, commit: (size: number) => void) => void, p: string, e: unknown): void {
    const w = this.#ledgerEntries.get(p);
    if (e === null) {
      if (w) add({ t: 'read', p, e: null }, () => (this.#ledgerEntries.delete(p), this.#ledgerDirty.delete(p), this.#acct.slot(`read:${p}`, 0)));
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
    add({ t: 'read', p, e }, (n) => (this.#ledgerEntries.set(p, { ref: e, json }), this.#ledgerDirty.delete(p), this.#acct.slot(`read:${p}`, n)));
  }

  async #checkpoint(o: { durable?: boolean; endOfTurn?: boolean }): Promise<void> {
    if (this.#stopped) return;
    if (o.endOfTurn) answerUnansweredCalls(this.session.history);
    try {
      if (this.#fd !== -1 && fs.fstatSync(this.#fd).nlink === 0) {
        // another agent process loaded (and so rewrote) this session, or it was deleted: writing
        // on would go nowhere, and rewriting would undo the other process's work
        this.#stopped = true;
        this.#report({ kind: 'taken_over', message: `the session file ${this.#file} was replaced by another process (the session was opened elsewhere) or deleted; what happens here from now on is not saved` });
        return;
      }
      const lines = this.#rewrite ? null : this.#diff();
      if (lines === null || (this.#size > COMPACT_MIN_BYTES && this.#size > 2 * this.#acct.live)) {
        this.#writeSnapshot();
      } else if (lines.some((l) => l.text)) {
        this.#append(lines);
      } else {
        for (const l of lines) l.commit(0);
      }
      if (o.durable && this.#fd !== -1) {
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

  #report(p: SaveProblem): void {
    this.problem = p;
    if (this.#reported.has(p.kind)) return;
    this.#reported.add(p.kind);
    this.onProblem?.(p);
  }

  #append(lines: Pending[]): void {
    const buf = Buffer.from(lines.map((l) => l.text).join(''));
    let done = 0;
    try {
      while (done < buf.length) done += fs.writeSync(this.#fd, buf, done, buf.length - done);
    } catch (err) {
      // take back a partial line, so the next append starts on a line boundary
      try {
        fs.ftruncateSync(this.#fd, this.#size);
      } catch {
        this.#rewrite = true;
      }
      throw err;
    }
    this.#size += buf.length;
    for (const l of lines) l.commit(bytes(l.text));
    this.#pendingSplices = [];
  }

  /** Rewrites the file as the session's compacted lines: temp file, fsync, rename. */
  #writeSnapshot(): void {
    makeDirs(this.#dir);
    const lines = snapshotLines(this.session);
    const texts = lines.map((l) => enc(l.line));
    const buf = Buffer.from(texts.join(''));
    // a failed save leaves nothing behind (a full disk must not fill up further)
    replaceFileSync(this.#file, buf, { mode: 0o600 });
    // the old descriptor is the replaced file now; until the new one is open, the next checkpoint rewrites
    if (this.#fd !== -1) fs.closeSync(this.#fd);
    this.#fd = -1;
    this.#rewrite = true;
    this.#fd = fs.openSync(this.#file, fs.constants.O_WRONLY | fs.constants.O_APPEND);
    this.#size = buf.length;
    const acct = new Accounting();
    lines.forEach((l, i) => {
      const n = bytes(texts[i]);
      if (l.kind === 'hist') acct.hist(n);
      else if (l.kind === 'replay') acct.replay(n);
      else acct.slot(l.kind, n);
    });
    this.#acct = acct;
    this.#rewrite = false;
    this.#pendingSplices = [];
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
    return log;
  }

  /**
   * Opens a stored session for appending: unanswered tool calls get a `cancelled` result and the
   * log is compacted when it holds superseded or damaged lines (or was an old whole-file session).
   * Undefined when there is no such session. A session already open in this store is closed first.
   */
  async open(id: string): Promise<SessionLog | undefined> {
    if (!ID_RE.test(id)) return undefined;
    await this.#open.get(id)?.close();
    const read = this.#read(id);
    if (!read) return undefined;
    const { session, legacy } = read;
    // the compaction below drops the skipped lines: the log as it was is kept beside it first
    if (session.damagedLines) {
      const aside = `${this.#file(id)}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      try {
        fs.copyFileSync(this.#file(id), aside, fs.constants.COPYFILE_EXCL);
        session.damagedLines.push(`the log as it was is kept as ${aside}`);
      } catch {
        /* not kept (a full disk): the notice still names the lines */
      }
    }
    answerUnansweredCalls(session.history);
    // always rewritten (compacted): superseded and torn lines go, and a process that still has
    // the old file open sees it replaced and stops writing instead of interleaving with this one
    const owner = newOwner();
    let marked = false;
    const log = this.#track(new SessionLog(this.#file(id), session, () => this.#closed(id, log, marked ? owner : undefined)));
    await log.checkpoint({ durable: true });
    if (legacy && log.saved) fs.rmSync(this.#file(id, '.json'), { force: true });
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
      }
    }
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
    return s ? { summary: { sessionId: s.sessionId, cwd: s.cwd, title: s.title, updatedAt: s.updatedAt }, stamp: fileStamp(st) } : undefined;
  }

  #read(id: string): { session: StoredSession; legacy: boolean } | undefined {
    let text: string;
    let st: fs.Stats;
    try {
      text = fs.readFileSync(this.#file(id), 'utf8');
      st = fs.statSync(this.#file(id));
    } catch {
      const old = this.#legacy(id);
      return old ? { session: old, legacy: true } : undefined;
    }
    const session = fold(id, text);
    if (!session) return undefined;
    session.updatedAt = st.mtime.toISOString();
    return { session, legacy: false };
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
