// Sessions on disk, one JSON file each, so session/load and session/list survive the agent
// process: the model history, what to replay to a client, the read ledger and the
// session-scoped allows. Writes are atomic (temp file + rename) so a crash never leaves half a file.
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import type { CompactionRecord } from './context/session_context.ts';
import type { ChatMessage } from './providers/types.ts';

export interface StoredSession {
  version: 1;
  sessionId: string;
  cwd: string;
  title?: string;
  createdAt: string;
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
  /** each compaction of `history`, oldest first (the history itself is saved compacted) */
  compactions?: CompactionRecord[];
}

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

export class SessionStore {
  readonly dir: string;
  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'sessions');
  }

  private file(id: string): string {
    // ids come from clients: never let one name a path outside the store
    if (!ID_RE.test(id)) throw new Error(`invalid session id ${JSON.stringify(id)}`);
    return path.join(this.dir, `${id}.json`);
  }

  async save(s: StoredSession): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const f = this.file(s.sessionId);
    const tmp = `${f}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, JSON.stringify(s), { mode: 0o600 });
    await rename(tmp, f);
  }

  async load(id: string): Promise<StoredSession | undefined> {
    if (!ID_RE.test(id)) return undefined;
    try {
      const s = JSON.parse(await readFile(this.file(id), 'utf8')) as StoredSession;
      return s.version === 1 ? s : undefined;
    } catch {
      return undefined;
    }
  }

  /** Newest first; `cwd` filters to sessions rooted there. */
  async list(cwd?: string): Promise<Array<Pick<StoredSession, 'sessionId' | 'cwd' | 'title' | 'updatedAt'>>> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const out: Array<Pick<StoredSession, 'sessionId' | 'cwd' | 'title' | 'updatedAt'>> = [];
    for (const n of names) {
      if (!n.endsWith('.json')) continue;
      const s = await this.load(n.slice(0, -5));
      if (!s || (cwd && s.cwd !== cwd)) continue;
      out.push({ sessionId: s.sessionId, cwd: s.cwd, title: s.title, updatedAt: s.updatedAt });
    }
    return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }
}
