// A session's checkpoints as they are made: one per prompt, holding for every file the prompt
// changed what it was before (its content kept in the blob store, or that it did not exist) and
// the stamp the session left it with. A local_fs write is recorded just before it happens (the
// tool has read the old content: it is handed over, not read again); a command's changes are
// found by comparing the workspace, and each of the session's additional directories (a command may
// write there as in the workspace), before and after it, so the content of every file a command
// may touch is kept before it runs (each version once: a file unchanged since the last command
// costs a stat). One budget of files bounds a command's comparison in all of them. The records are
// saved with the session (one `extras` key per prompt), so a load or a fork carries them.
import fs from 'node:fs';
import path from 'node:path';
import type { EffectRecorder } from '../../core/contract/toolset.ts';
import { isWithin } from '../../core/paths.ts';
import { CAP_REACHED, NO_SPACE, type BlobStore } from './blob_store.ts';
import { diffStates, MAX_TRACKED_FILES, scanWorkspace, stampAt, type Stamp, type WorkspaceState } from './workspace_state.ts';

/** The extras key prefix of a prompt's record. */
export const CHECKPOINT_KEY = 'checkpoint/';

/** Bytes of one file a command's checkpoint keeps before the command (bigger files are noted, not kept). */
export const MAX_COMMAND_FILE_BYTES = 16 * 1024 * 1024;

export interface FileChange {
  /** sha256 of the content before the prompt's first change (null: the file did not exist) */
  before: string | null;
  /** its mode then */
  mode?: number;
  /** the stamp the session left it with (null: the session deleted it) */
  after: Stamp | null;
  /** who changed it: a local_fs write, or a command */
  by: 'write' | 'command';
  /** why the content before could not be kept: the file cannot be restored (`before` is then meaningless) */
  lost?: string;
}

export interface PromptCheckpoint {
  /** 1-based, in the order the prompts came */
  n: number;
  /** when it began (ms since the epoch) */
  at: number;
  /** the prompt as the person wrote it (its first 200 characters) */
  text: string;
  /** the history's length before it; null once a compaction rewrote the history before it */
  history: number | null;
  /** the replay's length before it */
  replay: number;
  /**
   * root-relative path → what the prompt did to it; a file in one of the session's additional
   * directories by its absolute path (a key a relative path never is, so never joined onto the root)
   */
  files: Record<string, FileChange>;
  /** what could not be recorded (a workspace too big to compare, a file not kept) */
  notes: string[];
}

export interface RecorderOptions {
  /** the session root: paths are kept relative to it */
  root: string;
  /** the session's additional directories (canonical): a file there is kept by its absolute path */
  extra?: readonly string[];
  store: BlobStore;
  /** saves a prompt's record with the session (undefined: it is gone) */
  save(key: string, value: PromptCheckpoint | undefined): void;
  /** the records saved with the session before (a load, a fork) */
  saved?: Record<string, unknown>;
  /**
   * Tells the person, when it happens, that a change could not be checkpointed for a reason of
   * the store's (a full disk, the session's cap, a failed write): not first at /rewind.
   */
  notice?: (text: string) => void;
}

/** One directory a command's changes are compared in, as it was before the command. */
interface Compared {
  /** the workspace root, or an additional directory (canonical) */
  dir: string;
  /** keyed as the records key files: root-relative in the workspace, absolute in an additional directory */
  state: WorkspaceState;
  /** the files it could look at, of the command's budget (the scan after it takes as many) */
  limit: number;
}

/** What a command's comparison took before it ran. */
export interface BeforeCommand {
  compared: Compared[];
  /** per key, the hash of its content as kept, or why it was not */
  kept: Map<string, string | { why: string }>;
  /** additional directories not compared, and why */
  notes: string[];
}

/** Whether `dir` (canonical when the session began) is still that directory: not gone, not a link now. */
function stillItself(dir: string): boolean {
  try {
    return fs.lstatSync(dir).isDirectory() && fs.realpathSync.native(dir) === dir;
  } catch {
    return false;
  }
}

/** `state` of the additional directory `dir` with its keys made absolute. */
function absoluteKeys(dir: string, state: WorkspaceState): WorkspaceState {
  const files = new Map<string, Stamp>();
  for (const [rel, st] of state.files) files.set(path.join(dir, rel), st);
  return { files, capped: state.capped };
}

/** The records kept in a session's extras, in prompt order. */
export function savedCheckpoints(extras: Record<string, unknown> | undefined): PromptCheckpoint[] {
  return Object.entries(extras ?? {})
    .filter(([k, v]) => k.startsWith(CHECKPOINT_KEY) && v && typeof v === 'object')
    .map(([, v]) => v as PromptCheckpoint)
    .sort((a, b) => a.n - b.n);
}

/** The gate records every call with effects through a session's checkpoints (GateOptions.effects). */
export class SessionCheckpoints implements EffectRecorder {
  readonly root: string;
  /** the session's additional directories (canonical) */
  readonly extra: readonly string[];
  readonly store: BlobStore;
  #prompts: PromptCheckpoint[];
  #current: PromptCheckpoint | undefined;
  /** per file: the stamp and hash of the version last kept, so an unchanged file is not read again */
  readonly #known = new Map<string, { stamp: Stamp; hash: string }>();
  /** what was said already: the cap once per session, a full disk or a failed write once per prompt */
  readonly #said = new Set<string>();

  constructor(private readonly o: RecorderOptions) {
    this.root = o.root;
    this.extra = o.extra ?? [];
    this.store = o.store;
    this.#prompts = savedCheckpoints(o.saved);
  }

  /** Every prompt's record, oldest first. */
  prompts(): readonly PromptCheckpoint[] {
    return this.#prompts;
  }

  /** A prompt begins: its changes are recorded under it from now on. */
  begin(p: { text: string; history: number; replay: number }): PromptCheckpoint {
    const n = (this.#prompts.at(-1)?.n ?? 0) + 1;
    const cp: PromptCheckpoint = { n, at: Date.now(), text: p.text.replace(/\s+/g, ' ').trim().slice(0, 200), history: p.history, replay: p.replay, files: {}, notes: [] };
    this.#prompts.push(cp);
    this.#current = cp;
    this.#save(cp);
    return cp;
  }

  /** The prompt is over: changes made outside one (a direct tool call) open a record of their own. */
  end(): void {
    this.#current = undefined;
  }

  /** A change recorded as lost: said now when the store is why (a file too big to keep is only noted). */
  #lost(cp: PromptCheckpoint, rel: string, why: string | undefined): void {
    if (!why || !this.o.notice) return;
    const cap = why.startsWith(CAP_REACHED);
    const kind = cap ? 'cap' : why.startsWith(NO_SPACE) ? `space/${cp.n}` : why.startsWith('it could not be written') ? `write/${cp.n}` : undefined;
    if (!kind || this.#said.has(kind)) return;
    this.#said.add(kind);
    const what = cap ? `${why}. From now on this session's changes are made but not checkpointed: /rewind cannot put them back. Start a new session to checkpoint again.` : `${why}. /rewind cannot put it back (nor other files this prompt changes while this lasts).`;
    this.o.notice(`Checkpoint not kept for ${rel}: ${what}`);
  }

  #save(cp: PromptCheckpoint): void {
    this.o.save(`${CHECKPOINT_KEY}${cp.n}`, cp);
  }

  /** Where a record's key is on disk. */
  #abs(key: string): string {
    return path.isAbsolute(key) ? key : path.join(this.root, key);
  }

  /**
   * The additional directories a command's changes are compared in: those outside the workspace
   * (one inside it is compared with it) and outside one another (the outer one holds the inner);
   * one holding the workspace leaves the workspace's files to the workspace's comparison.
   */
  #comparedExtra(): string[] {
    return this.extra.filter((d) => !isWithin(this.root, d) && !this.extra.some((o) => o !== d && isWithin(o, d)));
  }

  /** The directory's state, keyed as records are, looking at no more than `limit` files. */
  #scan(dir: string, limit: number): WorkspaceState {
    if (dir === this.root) return scanWorkspace(dir, limit);
    // a directory holding the workspace: the workspace's files are its comparison's, not walked twice
    const inside = isWithin(dir, this.root) ? new Set([path.relative(dir, this.root).split(path.sep).join('/')]) : undefined;
    return absoluteKeys(dir, scanWorkspace(dir, limit, inside));
  }

  /** The key of `abs`: root-relative, or absolute in an additional directory; undefined outside them all. */
  #rel(abs: string): string | undefined {
    const rel = path.relative(this.root, abs);
    if (!(rel === '' || rel.startsWith('..') || path.isAbsolute(rel))) return rel.split(path.sep).join('/');
    return this.extra.some((r) => abs !== r && isWithin(r, abs)) ? abs : undefined;
  }

  #open(): PromptCheckpoint {
    if (this.#current) return this.#current;
    const cp = this.begin({ text: '(a change outside a prompt)', history: 0, replay: 0 });
    cp.history = null;
    return cp;
  }

  /**
   * A file tool's write of `abs` (`old`: the content it replaces, in hand), recorded while the
   * write goes out (both at once: the old content is in memory, and the write is the slow part).
   * A checkpoint that could not be kept never fails the write; the record says it is lost.
   */
  async write(abs: string, old: { sha256: string; bytes?: Uint8Array } | null, write: () => Promise<void>): Promise<void> {
    const [kept, wrote] = await Promise.allSettled([this.beforeWrite(abs, old), write()]);
    if (wrote.status === 'rejected') throw wrote.reason;
    this.afterWrite(abs, kept.status === 'fulfilled' ? kept.value : { before: null, after: null, by: 'write', lost: String(kept.reason) });
  }

  /** A call that may change any file of the workspace (a command, a checkout): compared before and after it. */
  async around<T>(run: () => Promise<T>): Promise<T> {
    const before = await this.beforeCommand();
    try {
      return await run();
    } finally {
      this.afterCommand(before);
    }
  }

  /**
   * A local_fs write of `abs` is about to happen: the content it replaces (null: a new file) is
   * kept, unless this prompt already kept an earlier version of it. Returns what to record once
   * the write has happened (undefined: nothing new). Runs while the write goes out.
   */
  async beforeWrite(abs: string, old: { sha256: string; bytes?: Uint8Array } | null): Promise<FileChange | undefined> {
    const rel = this.#rel(abs);
    if (rel === undefined || this.#current?.files[rel]) return undefined;
    const change: FileChange = { before: old?.sha256 ?? null, after: null, by: 'write' };
    if (old) {
      const stamp = stampAt(abs);
      if (stamp) change.mode = stamp.mode;
      const lost = old.bytes ? await this.store.put(old.sha256, old.bytes) : await this.store.putFile(abs).then((r) => ('why' in r ? r.why : r.hash === old.sha256 ? undefined : 'the file changed before it was written'));
      if (lost) change.lost = lost;
    }
    return change;
  }

  /** The write happened: recorded, with the stamp the session left the file with (to tell later whether someone else changed it). */
  afterWrite(abs: string, change: FileChange | undefined): void {
    const rel = this.#rel(abs);
    if (rel === undefined) return;
    const cp = this.#open();
    const recorded = cp.files[rel] ?? change;
    if (!recorded) return;
    if (!cp.files[rel]) this.#lost(cp, rel, recorded.lost);
    recorded.after = stampAt(abs);
    cp.files[rel] = recorded;
    this.#known.delete(rel);
    this.#save(cp);
  }

  /**
   * Before a command: the state of the workspace and of each additional directory (the workspace
   * first, then each in turn, all within one budget of MAX_TRACKED_FILES files), and the content of
   * every file in them kept (each version once). What could not be kept is said in the prompt's
   * notes when the command changed it. An additional directory that is gone or a link now is not
   * looked into (what it leads to is not the session's).
   */
  async beforeCommand(limit = MAX_TRACKED_FILES): Promise<BeforeCommand> {
    const compared: Compared[] = [];
    const notes: string[] = [];
    let left = limit;
    for (const dir of [this.root, ...this.#comparedExtra()]) {
      if (dir !== this.root && !stillItself(dir)) {
        notes.push(`the additional directory ${dir} is gone or a link now: a command's changes there are not recorded`);
        continue;
      }
      const state = this.#scan(dir, left);
      compared.push({ dir, state, limit: left });
      left = Math.max(0, left - state.files.size);
    }
    const kept = new Map<string, string | { why: string }>();
    for (const { state } of compared) {
      for (const [key, stamp] of state.files) {
        const known = this.#known.get(key);
        if (known && sameVersion(known.stamp, stamp)) {
          kept.set(key, known.hash);
          continue;
        }
        const r = await this.store.putFile(this.#abs(key), MAX_COMMAND_FILE_BYTES);
        if ('hash' in r) {
          this.#known.set(key, { stamp, hash: r.hash });
          kept.set(key, r.hash);
        } else kept.set(key, { why: r.why });
      }
    }
    return { compared, kept, notes };
  }

  /** After a command: what it changed, recorded against the state before it, in each directory compared. */
  afterCommand(before: BeforeCommand): void {
    const cp = this.#open();
    for (const n of before.notes) note(cp, n);
    for (const c of before.compared) {
      if (c.dir !== this.root && !stillItself(c.dir)) {
        // the command removed it or put a link there: what the link leads to is not the session's
        note(cp, `the additional directory ${c.dir} is gone or a link now: the command's changes there are not recorded`);
        continue;
      }
      this.#recordChanges(cp, c, this.#scan(c.dir, c.limit), before.kept);
    }
    this.#save(cp);
  }

  /** One directory's changes, from its state before to `after`. */
  #recordChanges(cp: PromptCheckpoint, c: Compared, after: WorkspaceState, kept: BeforeCommand['kept']): void {
    if (c.state.capped || after.capped) {
      const where = c.dir === this.root ? 'the workspace has' : `the additional directory ${c.dir} has`;
      note(cp, c.limit === 0 ? `the workspace and the directories before it used up the files a command's checkpoint compares; changes in the additional directory ${c.dir} are not recorded` : `${where} more files than a command's checkpoint compares; changes past the first ${c.state.files.size} files ${c.dir === this.root ? '' : 'there '}are not recorded`);
    }
    for (const ch of diffStates(c.state, after)) {
      const existing = cp.files[ch.rel];
      if (existing) {
        existing.after = ch.after;
        continue;
      }
      const k = kept.get(ch.rel);
      const change: FileChange = { before: null, after: ch.after, by: 'command' };
      if (ch.before) {
        change.mode = ch.before.mode;
        if (typeof k === 'string') change.before = k;
        else {
          change.lost = k?.why ?? 'its content was not kept';
          this.#lost(cp, ch.rel, change.lost);
        }
      }
      cp.files[ch.rel] = change;
    }
  }

  /**
   * The history was rewritten (a compaction): the conversation can no longer go back to before
   * any prompt so far (the files still can).
   */
  historyRewritten(): void {
    for (const cp of this.#prompts) {
      if (cp.history === null) continue;
      cp.history = null;
      this.#save(cp);
    }
  }

  /** A rewind to before prompt `n`: its record and every later one are gone. */
  dropFrom(n: number): void {
    for (const cp of this.#prompts.filter((p) => p.n >= n)) this.o.save(`${CHECKPOINT_KEY}${cp.n}`, undefined);
    this.#prompts = this.#prompts.filter((p) => p.n < n);
    if (this.#current && this.#current.n >= n) this.#current = undefined;
    this.#known.clear();
  }
}

/** The same version for the content-kept cache: size, times and inode unchanged. */
function sameVersion(a: Stamp, b: Stamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

function note(cp: PromptCheckpoint, text: string): void {
  if (!cp.notes.includes(text)) cp.notes.push(text);
}
