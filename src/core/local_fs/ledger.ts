// The read-before-write ledger (docs/local-fs.md, "Read-before-write"): per session and canonical path, the sha256 of what
// the session last read and whether that read was full or a range. Mutations consult it; a
// successful mutation records the new content. Saved with a session as JSON and restored.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import { replaceFileSync } from '../platform/atomic_file.ts';

export interface LedgerEntry {
  sha256: string;
  /** a full read (write_file needs one) rather than a range */
  full: boolean;
  /** ms since epoch of the read or write that recorded it */
  at: number;
}

export interface LedgerJSON {
  version: 1;
  sessionId: string;
  entries: Record<string, LedgerEntry>;
}

/** What a tool uses of the ledger while it runs. */
export type LedgerUse = Pick<ReadLedger, 'get' | 'check' | 'recordRead' | 'recordWrite' | 'forget'>;

export class ReadLedger {
  readonly sessionId: string;
  readonly #entries = new Map<string, LedgerEntry>();
  /** paths changed since the last takeChanges(), so a saver writes what changed, not the ledger */
  readonly #changed = new Set<string>();

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  /** Records a read of `realPath` whose content hashes to `sha256`. */
  recordRead(realPath: string, sha256: string, full: boolean): void {
    const prev = this.#entries.get(realPath);
    // a range read of the same version does not downgrade an earlier full read
    const keepFull = !full && prev?.full === true && prev.sha256 === sha256;
    this.#entries.set(realPath, { sha256, full: full || keepFull, at: Date.now() });
    this.#changed.add(realPath);
  }

  /** Records content this session just wrote (the writer knows it: counts as a full read). */
  recordWrite(realPath: string, sha256: string): void {
    this.#entries.set(realPath, { sha256, full: true, at: Date.now() });
    this.#changed.add(realPath);
  }

  /** The ledger as one call uses it, telling `report` of each read and write it records (the agent notes which result showed which file). */
  reporting(report: (realPath: string, how: 'read' | 'write') => void): LedgerUse {
    return {
      get: (p) => this.get(p),
      check: (p, sha, needFull, shown) => this.check(p, sha, needFull, shown),
      forget: (p) => this.forget(p),
      recordRead: (p, sha, full) => {
        this.recordRead(p, sha, full);
        report(p, 'read');
      },
      recordWrite: (p, sha) => {
        this.recordWrite(p, sha);
        report(p, 'write');
      },
    };
  }

  get(realPath: string): LedgerEntry | undefined {
    return this.#entries.get(realPath);
  }

  /**
   * Throws unless the session's last read of `realPath` matches `currentSha256`: `not_read`,
   * `range_only` (when `needFull`), or `stale`. `shown` is the path as the model knows it.
   */
  check(realPath: string, currentSha256: string, needFull: boolean, shown: string): void {
    const e = this.#entries.get(realPath);
    if (!e) {
      throw new ToolError('not_read', `${shown} has not been read in this session. Read it with read_file${needFull ? '' : ' or read_file_range'} first, then retry.`);
    }
    if (e.sha256 !== currentSha256) {
      throw new ToolError('stale', `${shown} changed since this session read it. Read it again, then retry against the current text.`);
    }
    if (needFull && !e.full) {
      throw new ToolError('range_only', `Only a range of ${shown} was read; overwriting it whole needs a full read_file of the current version first.`);
    }
  }

  forget(realPath: string): void {
    if (this.#entries.delete(realPath)) this.#changed.add(realPath);
  }

  /** The entries changed since the last call (null: forgotten), and forgets that they changed. */
  takeChanges(): Array<[string, LedgerEntry | null]> {
    const out: Array<[string, LedgerEntry | null]> = [...this.#changed].map((p) => [p, this.#entries.get(p) ?? null]);
    this.#changed.clear();
    return out;
  }

  get size(): number {
    return this.#entries.size;
  }

  toJSON(): LedgerJSON {
    return { version: 1, sessionId: this.sessionId, entries: Object.fromEntries(this.#entries) };
  }

  /** Rebuilds a ledger from `toJSON()` output; malformed entries are dropped, not trusted. */
  static fromJSON(data: unknown): ReadLedger {
    const d = data as Partial<LedgerJSON> | null;
    if (!d || d.version !== 1 || typeof d.sessionId !== 'string') throw new ToolError('bad_args', 'Not a saved read ledger (expected version 1 with a sessionId).');
    const ledger = new ReadLedger(d.sessionId);
    for (const [p, e] of Object.entries(d.entries ?? {})) {
      if (e && typeof e.sha256 === 'string' && /^[0-9a-f]{64}$/.test(e.sha256) && typeof e.full === 'boolean') {
        ledger.#entries.set(p, { sha256: e.sha256, full: e.full, at: typeof e.at === 'number' ? e.at : 0 });
      }
    }
    return ledger;
  }

  /** Writes the ledger to `file` (replaced atomically and durably, private), creating parent directories. */
  save(file: string): void {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    replaceFileSync(file, `${JSON.stringify(this.toJSON())}\n`, { mode: 0o600 });
  }

  /** Loads a saved ledger, or a fresh one for `sessionId` when `file` does not exist. */
  static load(file: string, sessionId: string): ReadLedger {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new ReadLedger(sessionId);
      throw err;
    }
    const ledger = ReadLedger.fromJSON(JSON.parse(text));
    if (ledger.sessionId !== sessionId) throw new ToolError('bad_args', `${file} holds session ${ledger.sessionId}, not ${sessionId}.`);
    return ledger;
  }
}
