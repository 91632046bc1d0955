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
import { asDiskError, damagedError, readRecord } from '../../core/platform/json_record.ts';
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
  /** the verdict file was not a verdict: this deny stands in for it (the file's path) */
  damaged?: string;
}

const VERDICTS: readonly string[] = ['approve', 'deny', 'answer'];
const BY: readonly string[] = ['person', 'agent', 'expired', 'cancelled', 'reclaimed', 'stopped'];

/** A verdict as read from disk, or why it is not one. */
function validVerdict(id: string): (v: unknown) => Verdict | { damaged: string } {
  return (v) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { damaged: 'not a JSON object' };
    const o = v as Record<string, unknown>;
    if (o.askId !== id) return { damaged: `it names ask ${JSON.stringify(o.askId)}, not ${id}` };
    if (typeof o.verdict !== 'string' || !VERDICTS.includes(o.verdict)) return { damaged: `\`verdict\` ${JSON.stringify(o.verdict)} is not approve, deny or answer` };
    if (typeof o.by !== 'string' || !BY.includes(o.by)) return { damaged: `\`by\` ${JSON.stringify(o.by)} is not one of ${BY.join(', ')}` };
    if (typeof o.at !== 'string') return { damaged: '`at` is not a string' };
    for (const k of ['answer', 'reason', 'via'] as const) if (o[k] !== undefined && typeof o[k] !== 'string') return { damaged: `\`${k}\` is not a string` };
    return o as unknown as Verdict;
  };
}

/** An ask as read from disk, or why it is not one. */
function validAsk(id: string): (v: unknown) => Ask | { damaged: string } {
  return (v) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { damaged: 'not a JSON object' };
    const o = v as Record<string, unknown>;
    if (o.v !== 1) return { damaged: `version ${JSON.stringify(o.v)}, not 1` };
    if (o.id !== id) return { damaged: `it names ask ${JSON.stringify(o.id)}, not ${id}` };
    if (o.kind !== 'permission' && o.kind !== 'question') return { damaged: '`kind` is not permission or question' };
    for (const k of ['title', 'summary', 'createdAt'] as const) if (typeof o[k] !== 'string') return { damaged: `\`${k}\` is not a string` };
    if (o.expiresAt !== null && typeof o.expiresAt !== 'string') return { damaged: '`expiresAt` is not a time or null' };
    const w = o.owner as Record<string, unknown> | null;
    if (!w || typeof w !== 'object' || typeof w.host !== 'string' || typeof w.pid !== 'number') return { damaged: '`owner` is not {host, pid}' };
    for (const k of ['missionId', 'sessionId', 'detail'] as const) if (o[k] !== undefined && typeof o[k] !== 'string') return { damaged: `\`${k}\` is not a string` };
    return o as unknown as Ask;
  };
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
    try {
      return this.#create(n);
    } catch (err) {
      throw asDiskError(err, `a new ask (under ${this.dir})`);
    }
  }

  #create(n: NewAsk): Ask {
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
    try {
      fs.writeFileSync(path.join(this.#pending, ask.id), '', { mode: 0o600 });
    } catch (err) {
      // never an ask nobody can list
      fs.rmSync(this.#file(ask.id, '.json'), { force: true });
      throw err;
    }
    return ask;
  }

  /** The ask, or undefined when there is none; a damaged one is an error naming its file. */
  get(id: string): Ask | undefined {
    const file = this.#file(id, '.json');
    const got = this.#read(file, validAsk(id), `ask ${id}`);
    if (got.state === 'damaged') throw damagedError(file, `ask ${id}`, got.why, `cxl does not write over it; to drop the ask, move it and its marker out of the asks dir (mv ${file} ~/; rm ${path.join(this.#pending, id)}).`);
    return got.state === 'ok' ? got.value : undefined;
  }

  /**
   * The verdict recorded, or undefined when there is none yet. A verdict file that is not one (a
   * crash, a full disk, an edit) stands as a deny: it is never read as nobody's answer, and never
   * as an approval.
   */
  verdict(id: string): Verdict | undefined {
    const file = this.#file(id, '.verdict');
    const got = this.#read(file, validVerdict(id), `the verdict of ask ${id}`);
    if (got.state === 'damaged') return { askId: id, verdict: 'deny', by: 'expired', reason: `its verdict file ${file} is damaged (${got.why}); it stands as a deny`, at: new Date(0).toISOString(), damaged: file };
    return got.state === 'ok' ? got.value : undefined;
  }

  #read<T>(file: string, validate: (v: unknown) => T | { damaged: string }, shown: string): ReturnType<typeof readRecord<T>> {
    try {
      return readRecord(file, validate);
    } catch (err) {
      throw new ToolError('io_error', `${shown} (${file}) cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); fix its permissions.`);
    }
  }

  /**
   * Records the verdict unless one is recorded already: `recorded` false then, with the verdict
   * that stands. The verdict's bytes are durable before its name exists, so a reader never sees
   * half of one.
   */
  respond(id: string, v: Omit<Verdict, 'askId' | 'at'>): { recorded: boolean; verdict: Verdict } {
    try {
      return this.#respond(id, v);
    } catch (err) {
      throw asDiskError(err, `the verdict of ask ${id}`);
    }
  }

  #respond(id: string, v: Omit<Verdict, 'askId' | 'at'>): { recorded: boolean; verdict: Verdict } {
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

  /** The asks still waiting, oldest first (a marker whose ask was answered meanwhile is dropped); a damaged one is handed to `damaged`. */
  pending(damaged?: (id: string, message: string) => void): Ask[] {
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
      try {
        const a = this.get(id);
        if (a) out.push(a);
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        damaged?.(id, err.message);
      }
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
