// The prompts sent in a project, kept on disk so ↑ and Ctrl+R reach them from any later session:
// one JSONL file per project under the data dir (`history/<hash of the root>.jsonl`), private
// (0600 in a 0700 directory), capped at the newest entries. A long paste is kept inside its
// prompt's entry, never on its own, so it leaves the disk when that prompt does. Several UIs may
// share one file: every append and every trim holds the file's lock, and a trim re-reads the file
// under it, so no UI drops another's prompts; a torn last line is ended before the next append.
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { replaceFileSync } from '../../core/platform/atomic_file.ts';
import { dataDir } from '../../core/platform/data_dir.ts';
import { appendJsonLines, parseJsonLines, readJsonLines } from '../../core/platform/jsonl_file.ts';
import { withFileLock } from '../../core/platform/write_lock.ts';
import { nodeCrypto } from '../../core/platform/runtime.ts';

export interface SavedPrompt {
  /** The prompt as typed: a long paste is one token character, its text in `pastes`. */
  text: string;
  pastes?: Record<string, string>;
  /** When it was sent (ms since the epoch). */
  at: number;
}

/** Entries kept per project; the file is cut back to this many once it holds half as many again. */
export const HISTORY_CAP = 1000;
/** A prompt bigger than this (a huge paste) is not written to disk at all. */
export const MAX_ENTRY_BYTES = 64 * 1024;

export function historyFile(root: string, env: Record<string, string | undefined>): string {
  const hash = nodeCrypto().createHash('sha256').update(root).digest('hex').slice(0, 16);
  return path.join(dataDir(env), 'history', `${hash}.jsonl`);
}

/** Why a parsed line is not a saved prompt (undefined: it is one). */
function invalidPrompt(v: unknown): string | undefined {
  const p = v as Partial<SavedPrompt> | null;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return 'not an object';
  return typeof p.text === 'string' && p.text !== '' ? undefined : 'a prompt without text';
}

function normalise(v: SavedPrompt): SavedPrompt {
  return { text: v.text, at: typeof v.at === 'number' ? v.at : 0, ...(v.pastes && typeof v.pastes === 'object' ? { pastes: v.pastes } : {}) };
}

/** A temp file a killed trim left beside `file` (atomic_file.ts names them so). */
const leftover = (file: string, name: string) => name.startsWith(`.${path.basename(file)}.cxl-`) && name.endsWith('.tmp');

export class PromptHistory {
  /** the last tidy started here (load starts one), for tests and for exit to wait on */
  tidying: Promise<void> = Promise.resolve();
  /** the damaged lines the last load skipped, each `path:line: why`, for the UI to name */
  skipped: string[] = [];

  constructor(
    readonly file: string,
    readonly cap = HISTORY_CAP,
  ) {}

  static forProject(root: string, env: Record<string, string | undefined>): PromptHistory {
    return new PromptHistory(historyFile(root, env));
  }

  /**
   * The saved prompts, oldest first (none when the file is missing or unreadable); a damaged line
   * is left out and named in `skipped`. A file over its cap is cut back afterwards, under the lock
   * (see `tidy`), never from what was read here.
   */
  load(): SavedPrompt[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    this.skipped = [];
    const all = parseJsonLines<SavedPrompt>(text, { invalid: invalidPrompt, skipped: (n, why) => this.skipped.push(`${this.file}:${n}: ${why}`) }).map(normalise);
    const lines = all.length + this.skipped.length;
    this.tidying = this.tidy(lines > this.cap * 1.5);
    return all.slice(-this.cap);
  }

  /**
   * Adds a sent prompt, under the file's lock (a torn last line is ended first, so it never takes
   * this prompt with it). Failing to write (a read-only home) never stops the prompt: history is a
   * convenience, so this never rejects.
   */
  append(p: SavedPrompt): Promise<void> {
    const line = `${JSON.stringify(p)}\n`;
    if (Buffer.byteLength(line) > MAX_ENTRY_BYTES) return Promise.resolve();
    return this.#locked(() => {
      appendJsonLines(this.file, [p]);
      // a file made by hand, or by an older version, is made private too
      fs.chmodSync(this.file, 0o600);
    });
  }

  /**
   * Under the lock: removes the temp files a killed trim left (full copies of private history),
   * and when `trim`, cuts the file back to the newest `cap` prompts as it reads now (so a prompt
   * another UI appended a moment ago is kept).
   */
  tidy(trim: boolean): Promise<void> {
    return this.#locked(() => {
      const dir = path.dirname(this.file);
      for (const name of fs.readdirSync(dir)) if (leftover(this.file, name)) fs.rmSync(path.join(dir, name), { force: true });
      if (!trim) return;
      const all = readJsonLines<SavedPrompt>(this.file, { invalid: invalidPrompt }).map(normalise);
      if (all.length <= this.cap) return;
      replaceFileSync(this.file, all.slice(-this.cap).map((p) => `${JSON.stringify(p)}\n`).join(''), { mode: 0o600 });
    });
  }

  #locked(fn: () => void): Promise<void> {
    try {
      // the lock file lives beside the history
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    } catch {
      return Promise.resolve();
    }
    return withFileLock(this.file, 'the prompt history', fn).catch(() => {
      /* history is a convenience: a full disk or a lock held too long costs this one change */
    });
  }
}
