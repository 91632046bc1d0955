// The index of the session store (`sessions.index.json`, beside the `sessions/` directory), so
// session/list does not read every session file: one row per session (id, cwd, title, updatedAt)
// with the stamp (inode, size, mtime) of the file it was read from, and the sessions that agent
// processes have open now.
//
// When it is trusted, and when not:
// - The directory's mtime changes whenever a session file is added, removed or replaced (a log is
//   rewritten by rename), so the index records the one it was built against: a different one, and
//   the directory is listed and every file stat'd; only files whose stamp changed are read again.
//   A record taken within a clock tick of the change it describes could miss a second change in
//   the same tick (file times are coarse), so such a record is checked the same way next time.
// - Appending to a log does not touch the directory. Appends come only from a process that has
//   the session open, and every process marks the sessions it opens; a marked row is read from
//   its file at every list, and a session's row is marked stale when it is closed. An append by
//   something other than cxl to a session nobody has open is seen at the next rebuild.
// - A missing, unreadable or corrupt index is rebuilt from the files.
// Every write takes the index's lock (write_lock.ts), reads the index again under it, changes only
// its own rows and marks, and replaces the file by rename, so two processes never lose each
// other's rows or leave a torn file. A failed index write never fails a session (a mark that could
// not be written leaves that session's row behind its file until the next rebuild). Within a
// process the parsed index is kept while the file's stamp stays the same.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { withFileLock } from '../core/write_lock.ts';

export interface IndexedSummary {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt: string;
}

export type SessionFileKind = 'jsonl' | 'json';

/** Reads one session file's summary, with the stamp of the file as read (undefined: no session there). */
export type SummaryReader = (id: string, kind: SessionFileKind) => { summary: IndexedSummary; stamp: string } | undefined;

/** [id, kind, cwd, title, updatedAt, stamp]; a null stamp: read the file again (it changed since). */
export type Row = [string, SessionFileKind, string, string | null, string, string | null];

export interface IndexFile {
  v: 2;
  /** the sessions directory's mtime the rows were built against (ms); null: never trust the rows */
  dir: number | null;
  /** when that mtime was read (ms since the epoch) */
  seenAt: number;
  /** newest first */
  rows: Row[];
  /** session id → the owners (host:pid:nonce) that have it open */
  open: Record<string, string[]>;
}

const HOST = os.hostname();
const UTF8 = new TextDecoder();
const SESSION_FILE = /^([A-Za-z0-9_-]{1,64})\.(jsonl|json)$/;

/** A directory mtime read within this long of its change may share its clock tick with a later change. */
const RACY_MS = 50;
/** ... and on file systems that keep whole seconds (ext3, FAT, HFS+). */
const RACY_COARSE_MS = 2100;

/** The stamp of a file: a rewrite (rename) changes the inode, an append the size and mtime. */
export function fileStamp(st: fs.Stats): string {
  return `${st.ino}:${st.size}:${Math.floor(st.mtimeMs)}`;
}

/** An owner name for one open session log. */
export function newOwner(): string {
  return `${HOST}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

function alive(owner: string): boolean {
  const [host, pid] = owner.split(':');
  if (host !== HOST) return true; // cannot tell from here
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const ROW = 6;

/** The fields of row `i` of a flat array are a Row's: the index on disk is checked, never trusted. */
function isRowAt(f: unknown[], i: number): boolean {
  return typeof f[i] === 'string' && (f[i + 1] === 'jsonl' || f[i + 1] === 'json') && typeof f[i + 2] === 'string' && (f[i + 3] === null || typeof f[i + 3] === 'string') && typeof f[i + 4] === 'string' && (f[i + 5] === null || typeof f[i + 5] === 'string');
}

/**
 * The index as stored: the rows as one flat array, six fields a row. The first session/list of a
 * process reads this file whole, and JSON.parse of one flat array is ~25% faster than of an array
 * of 2,000 small ones (version 1, rebuilt when found).
 */
export function parseIndex(text: string): IndexFile | undefined {
  try {
    const j = JSON.parse(text) as Omit<IndexFile, 'rows'> & { rows: unknown[] };
    if (!j || j.v !== 2 || !(j.dir === null || typeof j.dir === 'number') || typeof j.seenAt !== 'number' || !Array.isArray(j.rows) || j.rows.length % ROW !== 0) return undefined;
    if (!j.open || typeof j.open !== 'object' || Array.isArray(j.open)) return undefined;
    for (const v of Object.values(j.open)) if (!Array.isArray(v) || !v.every((o) => typeof o === 'string')) return undefined;
    const f = j.rows;
    const rows: Row[] = new Array(f.length / ROW);
    for (let i = 0, r = 0; i < f.length; i += ROW, r++) {
      if (!isRowAt(f, i)) return undefined;
      rows[r] = f.slice(i, i + ROW) as Row;
    }
    return { ...j, rows };
  } catch {
    return undefined;
  }
}

const serialise = (idx: IndexFile): string => JSON.stringify({ ...idx, rows: idx.rows.flat() });

const newer = (a: Row, b: Row) => (a[4] > b[4] ? -1 : a[4] < b[4] ? 1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

function summaryOf(r: Row): IndexedSummary {
  return { sessionId: r[0], cwd: r[2], title: r[3] ?? undefined, updatedAt: r[4] };
}

function rowOf(kind: SessionFileKind, s: IndexedSummary, stamp: string | null): Row {
  return [s.sessionId, kind, s.cwd, s.title ?? null, s.updatedAt, stamp];
}

export class SessionIndex {
  readonly file: string;
  readonly #dir: string;
  readonly #read: SummaryReader;
  /** the index as last read or written here, and the stamp of its file then */
  #cache: { stamp: string; index: IndexFile } | undefined;

  /** `dir`: the sessions directory; the index lives beside it (a file inside would change its mtime). */
  constructor(dir: string, read: SummaryReader) {
    this.#dir = dir;
    this.file = `${dir}.index.json`;
    this.#read = read;
  }

  /** Every stored session, newest first, as reading each file would give it. */
  async list(): Promise<IndexedSummary[]> {
    let dirSt: fs.Stats;
    try {
      dirSt = fs.statSync(this.#dir);
    } catch {
      return [];
    }
    const seenAt = Date.now();
    const idx = this.#load();
    if (idx && idx.dir === Math.floor(dirSt.mtimeMs) && !racy(idx)) return this.#fast(idx);
    return this.#rebuild(idx, Math.floor(dirSt.mtimeMs), seenAt);
  }

  /** `owner` has the session open: its row is read from the file at every list until it closes. */
  async opened(id: string, owner: string, kind: SessionFileKind = 'jsonl'): Promise<void> {
    await this.#update((idx) => {
      (idx.open[id] ??= []).push(owner);
      staleRow(idx, id, kind);
    });
  }

  /** `owner` closed the session (or wrote it whole): its row is read again at the next list. */
  async closed(id: string, owner?: string, kind: SessionFileKind = 'jsonl'): Promise<void> {
    await this.#update((idx) => {
      const left = (idx.open[id] ?? []).filter((o) => o !== owner);
      if (left.length) idx.open[id] = left;
      else delete idx.open[id];
      staleRow(idx, id, kind);
    });
  }

  /** The rows, with the marked and stale ones read again from their files. */
  async #fast(idx: IndexFile): Promise<IndexedSummary[]> {
    const again = new Set<string>(Object.keys(idx.open));
    for (const r of idx.rows) if (r[5] === null) again.add(r[0]);
    if (again.size === 0) return idx.rows.map(summaryOf);
    const fresh = new Map<string, Row | undefined>();
    for (const r of idx.rows) {
      if (!again.has(r[0])) continue;
      const got = this.#read(r[0], r[1]);
      fresh.set(r[0], got ? rowOf(r[1], got.summary, got.stamp) : undefined);
    }
    const rows: Row[] = [];
    for (const r of idx.rows) {
      if (!fresh.has(r[0])) rows.push(r);
      else if (fresh.get(r[0])) rows.push(fresh.get(r[0])!);
    }
    rows.sort(newer);
    // stale rows of closed sessions, and the marks of processes that died, are settled once
    const settle = [...fresh.keys()].filter((id) => !idx.open[id]?.every(alive));
    if (settle.length) {
      await this.#update((disk) => {
        for (const id of settle) {
          const marks = (disk.open[id] ?? []).filter(alive);
          if (marks.length) disk.open[id] = marks;
          else delete disk.open[id];
          const i = disk.rows.findIndex((r) => r[0] === id);
          const got = fresh.get(id);
          if (i === -1) continue;
          if (!got) disk.rows.splice(i, 1);
          else if (marks.length === 0) disk.rows[i] = confirmed(this.#dir, got);
        }
        disk.rows.sort(newer);
      }).catch(() => {});
    }
    return rows.map(summaryOf);
  }

  /** Lists the directory, reads the files whose stamp changed, and writes the index. */
  async #rebuild(old: IndexFile | undefined, dirMtime: number, seenAt: number): Promise<IndexedSummary[]> {
    let names: string[];
    try {
      names = fs.readdirSync(this.#dir);
    } catch {
      return [];
    }
    // a log and an old whole-file session of one id: the log is the session
    const files = new Map<string, SessionFileKind>();
    for (const n of names) {
      const m = SESSION_FILE.exec(n);
      if (m && (m[2] === 'jsonl' || !files.has(m[1]))) files.set(m[1], m[2] as SessionFileKind);
    }
    const known = new Map((old?.rows ?? []).map((r) => [r[0], r]));
    const found = new Map<string, Row>();
    for (const [id, kind] of files) {
      const prev = known.get(id);
      let row: Row | undefined;
      if (prev && prev[1] === kind && prev[5] !== null && !old?.open[id]) {
        try {
          if (fileStamp(fs.statSync(path.join(this.#dir, `${id}.${kind}`))) === prev[5]) row = prev;
        } catch {
          continue; // gone meanwhile
        }
      }
      if (!row) {
        const got = this.#read(id, kind);
        if (!got) continue;
        row = rowOf(kind, got.summary, got.stamp);
      }
      found.set(id, row);
    }
    const rows = [...found.values()].sort(newer);
    await this.#update((disk, wasValid) => {
      // rows marked stale or opened while this scan ran keep their mark unless the file is still as read
      const staleNow = new Map(wasValid ? disk.rows.filter((r) => r[5] === null).map((r) => [r[0], r]) : []);
      const next: Row[] = rows.map((r) => (staleNow.has(r[0]) || disk.open[r[0]] ? confirmed(this.#dir, r) : r));
      for (const [id, r] of staleNow) if (!found.has(id)) next.push(r);
      for (const [id, marks] of Object.entries(disk.open)) {
        const live = marks.filter(alive);
        if (live.length) disk.open[id] = live;
        else delete disk.open[id];
      }
      disk.rows = next.sort(newer);
      disk.dir = dirMtime;
      disk.seenAt = seenAt;
    }).catch(() => {});
    return rows.map(summaryOf);
  }

  /** The index as on disk (parsed again only when its file changed); undefined when missing or corrupt. */
  #load(): IndexFile | undefined {
    let st: fs.Stats;
    try {
      st = fs.statSync(this.file);
    } catch {
      this.#cache = undefined;
      return undefined;
    }
    const stamp = fileStamp(st);
    if (this.#cache?.stamp === stamp) return this.#cache.index;
    let text: string;
    try {
      // readFileSync(f, 'utf8') took a third longer on this 300 KB file under Node 20, and
      // Buffer#toString three times TextDecoder's time under Deno
      text = UTF8.decode(fs.readFileSync(this.file));
    } catch {
      return undefined;
    }
    const index = parseIndex(text);
    this.#cache = index ? { stamp, index } : undefined;
    return index;
  }

  /**
   * Read-modify-write under the lock: `change` gets the index as on disk now (an empty, untrusted
   * one when there is none or it is corrupt) and edits it in place.
   */
  async #update(change: (idx: IndexFile, wasValid: boolean) => void): Promise<void> {
    await withFileLock(this.file, 'the session index', () => {
      let disk: IndexFile | undefined;
      try {
        disk = parseIndex(UTF8.decode(fs.readFileSync(this.file)));
      } catch {
        disk = undefined;
      }
      const idx: IndexFile = disk ?? { v: 2, dir: null, seenAt: 0, rows: [], open: {} };
      change(idx, !!disk);
      const text = serialise(idx);
      const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        fs.writeFileSync(tmp, text, { mode: 0o600 });
        fs.renameSync(tmp, this.file);
      } catch (err) {
        fs.rmSync(tmp, { force: true });
        throw err;
      }
      try {
        this.#cache = { stamp: fileStamp(fs.statSync(this.file)), index: idx };
      } catch {
        this.#cache = undefined;
      }
    });
  }
}

/** True when the record may have been taken in the same clock tick as a later change. */
function racy(idx: IndexFile): boolean {
  if (idx.dir === null) return true;
  const coarse = idx.dir % 1000 === 0;
  return idx.seenAt - idx.dir < (coarse ? RACY_COARSE_MS : RACY_MS);
}

/** Marks `id`'s row stale (adding one when there is none: the next list reads the file). */
function staleRow(idx: IndexFile, id: string, kind: SessionFileKind): void {
  const r = idx.rows.find((x) => x[0] === id);
  if (r) r[5] = null;
  else idx.rows.push([id, kind, '', null, '', null]);
}

/** `r` as read, kept trusted only if its file still has the stamp it was read at. */
function confirmed(dir: string, r: Row): Row {
  if (r[5] === null) return r;
  try {
    if (fileStamp(fs.statSync(path.join(dir, `${r[0]}.${r[1]}`))) === r[5]) return r;
  } catch {
    /* gone */
  }
  return [r[0], r[1], r[2], r[3], r[4], null];
}
