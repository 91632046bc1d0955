// Durable asks (docs/missions.md, "Durable asks"): an unattended unit that needs a person (an
// approval the envelope asks for, or a question of its own) stores the ask under
// <data>/asks/<id>.json with what a person must see to answer it (the diff, the steps, the
// request), and waits for <id>.verdict. A verdict is recorded exactly once: it is written whole
// to a temp file and hard-linked to its name, which fails when another responder's link got there
// first; the loser is told the verdict that stands. pending/<id> marks the asks still waiting, so
// a listing reads those only.
import fs from 'node:fs';
import path from 'node:path';
import type { ApprovalDiff } from '../../core/contract/toolset.ts';
import { ToolError } from '../../core/errors.ts';
import { replaceFileSync, syncDir } from '../../core/platform/atomic_file.ts';
import { nodeCrypto } from '../../core/platform/runtime.ts';
import { isId, newId } from './ids.ts';
import { currentOwner, type Owner } from './owner.ts';

export type AskKind = 'permission' | 'question';

export interface Ask {
  v: 1;
  id: string;
  kind: AskKind;
  missionId?: string;
  sessionId?: string;
  agent?: string;
  envelope?: string;
  /** a permission: the call (`local_fs`, `write_file`) and how it reads */
  toolset?: string;
  tool?: string;
  title: string;
  /** one line: the call's title, or the question */
  summary: string;
  /** a question's detail */
  detail?: string;
  diff?: ApprovalDiff;
  steps?: string[];
  /** what a request sends (remote tools) */
  request?: string[];
  fileMode?: string;
  args?: Record<string, unknown>;
  locations?: string[];
  /** the envelope's rule and sentence that asked */
  rule?: string;
  sentence?: string;
  createdAt: string;
  /** null: waits for an answer however long it takes (`timeout = "never"`) */
  expiresAt: string | null;
  onTimeout: 'deny';
  owner: Owner;
}

export type VerdictWord = 'approve' | 'deny' | 'answer';

export interface Verdict {
  askId: string;
  verdict: VerdictWord;
  /** a question's answer */
  answer?: string;
  reason?: string;
  /** who gave it: a person (`cxl approvals respond`, the UI), the supervising model, or the runtime */
  by: 'person' | 'agent' | 'expired' | 'cancelled' | 'reclaimed' | 'stopped';
  /** where: `cli`, `session <id>` */
  via?: string;
  at: string;
}

export type NewAsk = Omit<Ask, 'v' | 'id' | 'createdAt' | 'expiresAt' | 'onTimeout' | 'owner'> & { timeoutMs: number };

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export class AskStore {
  readonly dir: string;
  readonly #pending: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'asks');
    this.#pending = path.join(this.dir, 'pending');
  }

  #file(id: string, ext: '.json' | '.verdict'): string {
    if (!isId(id, 'a')) throw new ToolError('bad_args', `"${id}" is not an ask id (they look like a-mb7k2x9q3f); \`cxl approvals list\` shows the pending ones.`);
    return path.join(this.dir, `${id}${ext}`);
  }

  /** Stores the ask whole (temp file, rename) and marks it pending. */
  create(n: NewAsk): Ask {
    fs.mkdirSync(this.#pending, { recursive: true, mode: 0o700 });
    const { timeoutMs, ...rest } = n;
    const now = Date.now();
    const ask: Ask = {
      v: 1,
      id: newId('a'),
      ...rest,
      createdAt: new Date(now).toISOString(),
      expiresAt: Number.isFinite(timeoutMs) ? new Date(now + timeoutMs).toISOString() : null,
      onTimeout: 'deny',
      owner: currentOwner(),
    };
    replaceFileSync(this.#file(ask.id, '.json'), JSON.stringify(ask), { mode: 0o600 });
    fs.writeFileSync(path.join(this.#pending, ask.id), '', { mode: 0o600 });
    return ask;
  }

  get(id: string): Ask | undefined {
    try {
      return JSON.parse(fs.readFileSync(this.#file(id, '.json'), 'utf8')) as Ask;
    } catch (err) {
      if (err instanceof ToolError) throw err;
      return undefined;
    }
  }

  verdict(id: string): Verdict | undefined {
    try {
      return JSON.parse(fs.readFileSync(this.#file(id, '.verdict'), 'utf8')) as Verdict;
    } catch (err) {
      if (err instanceof ToolError) throw err;
      return undefined;
    }
  }

  /**
   * Records the verdict unless one is recorded already: `recorded` false then, with the verdict
   * that stands. The verdict's bytes are durable before its name exists, so a reader never sees
   * half of one.
   */
  respond(id: string, v: Omit<Verdict, 'askId' | 'at'>): { recorded: boolean; verdict: Verdict } {
    const file = this.#file(id, '.verdict');
    const verdict: Verdict = { askId: id, ...v, at: new Date().toISOString() };
    const tmp = `${file}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
    let recorded = false;
    try {
      fs.writeSync(fd, JSON.stringify(verdict));
      fs.fdatasyncSync(fd);
      fs.closeSync(fd);
      try {
        fs.linkSync(tmp, file);
        recorded = true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    syncDir(this.dir);
    fs.rmSync(path.join(this.#pending, id), { force: true });
    if (recorded) return { recorded, verdict };
    return { recorded, verdict: this.verdict(id) ?? verdict };
  }

  /** The asks still waiting, oldest first (a marker whose ask was answered meanwhile is dropped). */
  pending(): Ask[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.#pending);
    } catch {
      return [];
    }
    const out: Ask[] = [];
    for (const id of names.filter((n) => isId(n, 'a')).sort()) {
      if (fs.existsSync(this.#file(id, '.verdict'))) {
        fs.rmSync(path.join(this.#pending, id), { force: true });
        continue;
      }
      const a = this.get(id);
      if (a) out.push(a);
    }
    return out;
  }

  /**
   * Waits for the verdict: it, `expired` once `until` (ms since the epoch) passes with none, or
   * `aborted` when the signal fires. Reads the verdict's name every `pollMs`.
   */
  async wait(id: string, o: { until?: number; signal?: AbortSignal; pollMs?: number }): Promise<Verdict | 'expired' | 'aborted'> {
    const poll = o.pollMs ?? 200;
    for (;;) {
      const v = this.verdict(id);
      if (v) return v;
      if (o.signal?.aborted) return 'aborted';
      const left = o.until === undefined ? poll : o.until - Date.now();
      if (left <= 0) return 'expired';
      await sleep(Math.min(poll, left), o.signal);
    }
  }
}
