// The prompts sent in a project, kept on disk so ↑ and Ctrl+R reach them from any later session:
// one JSONL file per project under the data dir (`history/<hash of the root>.jsonl`), private
// (0600 in a 0700 directory), capped at the newest entries. A long paste is kept inside its
// prompt's entry, never on its own, so it leaves the disk when that prompt does.
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { dataDir } from '../core/platform/data_dir.ts';
import { nodeCrypto } from '../core/platform/runtime.ts';

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

function parse(line: string): SavedPrompt | undefined {
  try {
    const v = JSON.parse(line) as SavedPrompt;
    if (typeof v.text !== 'string' || v.text === '') return undefined;
    return { text: v.text, at: typeof v.at === 'number' ? v.at : 0, ...(v.pastes && typeof v.pastes === 'object' ? { pastes: v.pastes } : {}) };
  } catch {
    return undefined;
  }
}

export class PromptHistory {
  constructor(
    readonly file: string,
    readonly cap = HISTORY_CAP,
  ) {}

  static forProject(root: string, env: Record<string, string | undefined>): PromptHistory {
    return new PromptHistory(historyFile(root, env));
  }

  /** The saved prompts, oldest first (none when the file is missing or unreadable). Cuts the file back when it is over its cap. */
  load(): SavedPrompt[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    const lines = text.split('\n').filter((l) => l !== '');
    const all = lines.map(parse).filter((p): p is SavedPrompt => p !== undefined);
    if (lines.length > this.cap * 1.5) {
      const kept = all.slice(-this.cap);
      this.#rewrite(kept);
      return kept;
    }
    return all.slice(-this.cap);
  }

  /** Add a sent prompt. Failing to write (a read-only home) never stops the prompt. */
  append(p: SavedPrompt): void {
    const line = `${JSON.stringify(p)}\n`;
    if (Buffer.byteLength(line) > MAX_ENTRY_BYTES) return;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const fd = fs.openSync(this.file, 'a', 0o600);
      try {
        // a file made by hand, or by an older version, is made private too
        fs.fchmodSync(fd, 0o600);
        fs.writeSync(fd, line);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      /* history is a convenience */
    }
  }

  /** Replace the file with `kept`, atomically (a temp file renamed over it), so cut entries are gone. */
  #rewrite(kept: SavedPrompt[]): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(tmp, kept.map((p) => `${JSON.stringify(p)}\n`).join(''), { mode: 0o600 });
      fs.renameSync(tmp, this.file);
    } catch {
      fs.rmSync(tmp, { force: true });
    }
  }
}
