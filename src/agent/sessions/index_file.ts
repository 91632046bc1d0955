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
import { replaceFileSync } from '../../core/platform/atomic_file.ts';
import { withFileLock } from '../../core/platform/write_lock.ts';

export interface IndexedSummary {
  sessionId: string;
  cwd: string;
  title?: string;
  updatedAt: string;
  /** the additional directories the session keeps, as kept (absent: it keeps none) */
  additionalDirectories?: string[];
}

export type SessionFileKind = 'jsonl' | 'json';

/** Reads one session file's summary, with the stamp of the file as read (undefined: no session there). */
export type SummaryReader = (id: string, kind: SessionFileKind) => { summary: IndexedSummary; stamp: string } | undefined;

/**
 * [id, kind, cwd, title, updatedAt, stamp, additional directories]; a null stamp: read the file
 * again (it changed since); null directories: it keeps none.
 */
export type Row = [string, SessionFileKind, string, string | null, string, string | null, string[] | null];

export interface IndexFile {
  v: 4;
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
// the index's lines are decoded with it: Buffer#toString took three times as long under Deno
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

// The file is lines of JSON (JSON.stringify never writes a raw newline): a header (version, the
// directory's record, the open marks, the distinct cwds), then the listing (what session/list
// answers) in pages of rows, then each page's stamps. A page is columns: ids, kinds and times
// joined into one string each, cwds as indices into the header's, and (version 4) the additional
// directories of the rows that keep some, by their place in the page. The first list of a process
// decodes and parses the header and the listing only. A page stops near 48 KB of text: under Node
// a string over 128 KB is allocated on pages of its own, and decoding one 240 KB listing took
// 0.29 ms against 0.06 ms in pieces. The first list of 2,000 rows went from 5-6x loading one
// session with version 2's one flat array (rebuilt when found) to 3-4x.

/** A page's rows stop growing once their text is about this long. */
const PAGE_BYTES = 48 * 1024;

/** Joins a column's values when none holds the separator (ids never do); else kept as an array. */
const joined = (values: string[]): string | string[] => (values.some((v) => v.includes(' ')) ? values : values.join(' '));

/** A column written by `joined`, checked to hold `n` strings; undefined if it does not. */
function column(c: unknown, n: number): string[] | undefined {
  const values = typeof c === 'string' ? (c === '' && n === 0 ? [] : c.split(' ')) : Array.isArray(c) && c.every((v) => typeof v === 'string') ? (c as string[]) : undefined;
  return values?.length === n ? values : undefined;
}

/** A stamp not parsed yet (the listing was read without the stamps): never equal to a file's. */
const UNREAD_STAMP = '';

/** The index's lines. */
function serialise(idx: IndexFile): string {
  const cwds: string[] = [];
  const at = new Map<string, number>();
  const cwdOf = (c: string) => {
    let k = at.get(c);
    if (k === undefined) at.set(c, (k = cwds.push(c) - 1));
    return k;
  };
  const pages: Row[][] = [];
  let page: Row[] = [];
  let bytes = 0;
  for (const r of idx.rows) {
    page.push(r);
    bytes += r[0].length + (r[3]?.length ?? 0) + r[4].length + 16 + (r[6] ? JSON.stringify(r[6]).length : 0);
    if (bytes >= PAGE_BYTES) {
      pages.push(page);
      page = [];
      bytes = 0;
    }
  }
  if (page.length) pages.push(page);
  const listing = pages.map((rows) => {
    // only the rows that keep additional directories, by their place in the page (most keep none)
    const dirs = Object.fromEntries(rows.flatMap((r, i) => (r[6] ? [[i, r[6]]] : [])));
    return JSON.stringify({
      ids: joined(rows.map((r) => r[0])),
      kinds: rows.map((r) => (r[1] === 'jsonl' ? 'l' : 'j')).join(''),
      cwd: rows.map((r) => cwdOf(r[2])),
      titles: rows.map((r) => r[3]),
      updated: joined(rows.map((r) => r[4])),
      stale: rows.flatMap((r, i) => (r[5] === null ? [i] : [])),
      ...(Object.keys(dirs).length ? { dirs } : {}),
    });
  });
  const stamps = pages.map((rows) => JSON.stringify(rows.map((r) => r[5])));
  const header = JSON.stringify({ v: 4, dir: idx.dir, seenAt: idx.seenAt, open: idx.open, cwds, pages: pages.length });
  return `${[header, ...listing, ...stamps].join('\n')}\n`;
}

const isIndex = (n: unknown, max: number) => Number.isInteger(n) && (n as number) >= 0 && (n as number) < max;

/** One listing page's rows, appended to `rows`; false when it is not one (the index on disk is never trusted). */
function parsePage(text: string, cwds: string[], rows: Row[]): boolean {
  const l = JSON.parse(text) as Record<string, unknown> | null;
  if (!l || typeof l.kinds !== 'string' || !/^[lj]+$/.test(l.kinds)) return false;
  const n = l.kinds.length;
  const ids = column(l.ids, n);
  const updated = column(l.updated, n);
  const { cwd, titles, stale, dirs = {} } = l;
  if (!ids || !updated || !Array.isArray(cwd) || cwd.length !== n || !Array.isArray(titles) || titles.length !== n || !Array.isArray(stale)) return false;
  if (!dirs || typeof dirs !== 'object' || Array.isArray(dirs)) return false;
  const first = rows.length;
  for (let i = 0; i < n; i++) {
    const t = titles[i];
    if (!isIndex(cwd[i], cwds.length) || !(t === null || typeof t === 'string')) return false;
    rows.push([ids[i], l.kinds[i] === 'l' ? 'jsonl' : 'json', cwds[cwd[i]], t, updated[i], UNREAD_STAMP, null]);
  }
  for (const [i, d] of Object.entries(dirs as Record<string, unknown>)) {
    const at = Number(i);
    if (!isIndex(at, n) || String(at) !== i || !Array.isArray(d) || !d.every((x) => typeof x === 'string')) return false;
    rows[first + at][6] = d as string[];
  }
  for (const i of stale) {
    if (!isIndex(i, n)) return false;
    rows[first + i][5] = null;
  }
  return true;
}

/** A parsed index whose stamps are still text: the lines of each page's stamps. */
interface Listing {
  index: IndexFile;
  stamps: Uint8Array[];
}

/** The header and the listing pages, checked; every stamp UNREAD_STAMP or null. */
function parseListing(bytes: Uint8Array): Listing | undefined {
  const lines: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const nl = bytes.indexOf(10, at);
    if (nl === -1) return undefined; // cut short
    lines.push(bytes.subarray(at, nl));
    at = nl + 1;
  }
  if (lines.length === 0) return undefined;
  const h = JSON.parse(UTF8.decode(lines[0])) as (Partial<IndexFile> & { cwds?: unknown; pages?: unknown }) | null;
  if (!h || h.v !== 4 || !(h.dir === null || typeof h.dir === 'number') || typeof h.seenAt !== 'number') return undefined;
  if (!h.open || typeof h.open !== 'object' || Array.isArray(h.open)) return undefined;
  for (const v of Object.values(h.open)) if (!Array.isArray(v) || !v.every((o) => typeof o === 'string')) return undefined;
  const { cwds, pages } = h;
  if (!Array.isArray(cwds) || !cwds.every((c) => typeof c === 'string') || !Number.isInteger(pages) || lines.length !== 1 + 2 * (pages as number)) return undefined;
  const rows: Row[] = [];
  for (let p = 1; p <= (pages as number); p++) if (!parsePage(UTF8.decode(lines[p]), cwds, rows)) return undefined;
  return { index: { v: 4, dir: h.dir, seenAt: h.seenAt, rows, open: h.open }, stamps: lines.slice(1 + (pages as number)) };
}

/** Fills in the listing's stamps from their lines; false when they do not fit its rows. */
function parseStamps({ index, stamps }: Listing): boolean {
  let r = 0;
  for (const line of stamps) {
    const page = JSON.parse(UTF8.decode(line)) as unknown;
    if (!Array.isArray(page)) return false;
    for (const s of page) {
      const row = index.rows[r++];
      // null exactly where the listing says stale, a real stamp everywhere else
      if (!row || (row[5] === null) !== (s === null)) return false;
      if (s !== null && (typeof s !== 'string' || s === UNREAD_STAMP)) return false;
      row[5] = s;
    }
  }
  return r === index.rows.length;
}

/** The whole index as stored (version 4; 3 had no additional directories, and is rebuilt); undefined when it is missing pieces, corrupt or of another version. */
export function parseIndex(bytes: Uint8Array): IndexFile | undefined {
  try {
    const listing = parseListing(bytes);
    return listing && parseStamps(listing) ? listing.index : undefined;
  } catch {
    return undefined;
  }
}

const newer = (a: Row, b: Row) => (a[4] > b[4] ? -1 : a[4] < b[4] ? 1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

function summaryOf(r: Row): IndexedSummary {
  return { sessionId: r[0], cwd: r[2], title: r[3] ?? undefined, updatedAt: r[4], ...(r[6] ? { additionalDirectories: [...r[6]] } : {}) };
}

function rowOf(kind: SessionFileKind, s: IndexedSummary, stamp: string | null): Row {
  return [s.sessionId, kind, s.cwd, s.title ?? null, s.updatedAt, stamp, s.additionalDirectories ?? null];
}

export class SessionIndex {
  readonly file: string;
  readonly #dir: string;
  readonly #read: SummaryReader;
  /** the index as last read or written here, the stamp of its file then, and (until a rebuild needs them) its unparsed stamps */
  #cache: { stamp: string; index: IndexFile; unstamped?: Listing } | undefined;

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
    return this.#rebuild(idx && this.#stamped(idx), Math.floor(dirSt.mtimeMs), seenAt);
  }

  /** `owner` has the session open: its row is read from the file at every list until it closes. */
  async opened(id: string, owner: string, kind: SessionFileKind = 'jsonl'): Promise<void> {
    await this.#update((idx) => {
      (idx.open[id] ??= []).push(owner);
      staleRow(idx, id, kind);
    });
  }

  /** The sessions a live process has open now (by the marks in the index; none when it cannot be read). */
  async held(): Promise<Set<string>> {
    const idx = this.#load();
    return new Set(Object.entries(idx?.open ?? {}).filter(([, owners]) => owners.some(alive)).map(([id]) => id));
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
    const cached = this.#cache;
    this.#cache = undefined;
    try {
      if (cached && fileStamp(fs.statSync(this.file)) === cached.stamp) return (this.#cache = cached).index;
    } catch {
      return undefined; // no index
    }
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch {
      return undefined;
    }
    try {
      // the stamp of the file as opened (it may have been replaced since a stat), then its bytes
      const stamp = fileStamp(fs.fstatSync(fd));
      const listing = parseListing(fs.readFileSync(fd));
      if (listing) this.#cache = { stamp, index: listing.index, unstamped: listing };
      return listing?.index;
    } catch {
      return undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** `idx` (from #load) with its stamps parsed; undefined when they are corrupt. */
  #stamped(idx: IndexFile): IndexFile | undefined {
    const c = this.#cache;
    if (c?.index !== idx || !c.unstamped) return idx;
    const listing = c.unstamped;
    c.unstamped = undefined;
    try {
      if (parseStamps(listing)) return idx;
    } catch {
      /* corrupt */
    }
    this.#cache = undefined;
    return undefined;
  }

  /**
   * Read-modify-write under the lock: `change` gets the index as on disk now (an empty, untrusted
   * one when there is none or it is corrupt) and edits it in place.
   */
  async #update(change: (idx: IndexFile, wasValid: boolean) => void): Promise<void> {
    await withFileLock(this.file, 'the session index', () => {
      let disk: IndexFile | undefined;
      try {
        disk = parseIndex(fs.readFileSync(this.file));
      } catch {
        disk = undefined;
      }
      const idx: IndexFile = disk ?? { v: 4, dir: null, seenAt: 0, rows: [], open: {} };
      change(idx, !!disk);
      const text = serialise(idx);
      replaceFileSync(this.file, text, { mode: 0o600 });
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
  else idx.rows.push([id, kind, '', null, '', null, null]);
}

/** `r` as read, kept trusted only if its file still has the stamp it was read at. */
function confirmed(dir: string, r: Row): Row {
  if (r[5] === null) return r;
  try {
    if (fileStamp(fs.statSync(path.join(dir, `${r[0]}.${r[1]}`))) === r[5]) return r;
  } catch {
    /* gone */
  }
  return [r[0], r[1], r[2], r[3], r[4], null, r[6]];
}
