// Mission records on disk, one directory per mission under <data>/missions (docs/missions.md):
//   mission.json   the record, replaced whole (temp file, fsync, rename) under its lock file, so a
//                  crash leaves the old record or the new one and two processes never lose each
//                  other's change (each re-reads under the lock and bumps `rev`)
//   plan.jsonl     every plan snapshot, appended and flushed before the record counts it
//   reports.jsonl  every report, the same way
//   heartbeat      its modification time is the heartbeat (a touch: no bytes written)
// and open/<id>, present while the mission is open: the fleet cap and the sweep read those only.
// Admission takes the fleet's own lock, so two processes firing at once cannot both take the
// last place.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../../core/errors.ts';
import { replaceFileSync } from '../../core/platform/atomic_file.ts';
import { asDiskError, damagedError, readRecord, UNCHANGED, updateRecord } from '../../core/platform/json_record.ts';
import { withFileLock } from '../../core/platform/write_lock.ts';
import { isId, newId } from './ids.ts';
import { appendLine, readLines } from './jsonl.ts';
import { currentOwner, ownerGone, type Owner } from './owner.ts';
import { invalidPlan, invalidReport, nextPlan, validMission, type FinishedStatus, type Mission, type Plan, type Report } from './records.ts';

export interface NewMission {
  intent: string;
  agent: string;
  envelope: string;
  /** the firing session's envelope, when its model fired the unit */
  ceiling?: string;
  cwd: string;
  sessionId?: string;
  parentSessionId?: string;
  owner?: Owner;
}

/** The default of `fleet_max_parallel`. */
export const DEFAULT_FLEET_MAX = 8;
/** An open mission whose process cannot be seen (another host) is gone after this long without a heartbeat. */
export const HEARTBEAT_STALE_MS = 10 * 60 * 1000;

/** What to do about a damaged record: it is evidence, so it is moved, not deleted. */
const DAMAGED_TODO = (dir: string) => `cxl does not write over it. Look at it; to drop the mission, move its directory out of the missions dir (mv ${dir} ~/${path.basename(dir)}.damaged).`;

function mkdirs(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

export class MissionStore {
  readonly dir: string;
  readonly #openDir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'missions');
    this.#openDir = path.join(this.dir, 'open');
  }

  /** The directory of mission `id`; an id that is not one is refused before it names a path. */
  #at(id: string, file = ''): string {
    if (!isId(id, 'm')) throw new ToolError('bad_args', `"${id}" is not a mission id (they look like m-mb7k2x9q3f); \`cxl mission list\` shows them.`);
    return path.join(this.dir, id, file);
  }

  /**
   * The record, or undefined when there is none. A record that does not parse or is not one (cut
   * short by a crash or a full disk, edited by hand) is an error naming its file: it is not
   * "no such mission", and it is never written over.
   */
  get(id: string): Mission | undefined {
    const file = this.#at(id, 'mission.json');
    let got: ReturnType<typeof readRecord<Mission>>;
    try {
      got = readRecord(file, validMission(id));
    } catch (err) {
      throw new ToolError('io_error', `mission ${id}'s record ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); fix its permissions.`);
    }
    if (got.state === 'absent') return undefined;
    if (got.state === 'damaged') throw damagedError(file, `mission ${id}'s record`, got.why, DAMAGED_TODO(this.#at(id)));
    return got.value;
  }

  require(id: string): Mission {
    const m = this.get(id);
    if (!m) throw new ToolError('not_found', `no mission "${id}" exists; \`cxl mission list\` shows the recorded ones.`);
    return m;
  }

  /** Newest first; a damaged record is left out of the list and handed to `damaged` (its id and why). */
  list(limit = 50, damaged?: (id: string, message: string) => void): Mission[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const ids = names.filter((n) => isId(n, 'm')).sort().reverse();
    const out: Mission[] = [];
    for (const id of ids) {
      if (out.length >= limit) break;
      const m = this.#readable(id, damaged);
      if (m) out.push(m);
    }
    return out;
  }

  /** The record, or undefined when it is absent or cannot be read (said to `damaged`). */
  #readable(id: string, damaged?: (id: string, message: string) => void): Mission | undefined {
    try {
      return this.get(id);
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      damaged?.(id, err.message);
      return undefined;
    }
  }

  /**
   * The open missions, by their markers (a marker whose mission finished meanwhile is dropped).
   * A damaged record keeps its marker: it is not known to be finished, and a person is told of
   * it by `cxl mission list`.
   */
  open(damaged?: (id: string, message: string) => void): Mission[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.#openDir);
    } catch {
      return [];
    }
    const out: Mission[] = [];
    for (const id of names.filter((n) => isId(n, 'm'))) {
      let m: Mission | undefined;
      try {
        m = this.get(id);
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        damaged?.(id, err.message);
        continue;
      }
      if (m && m.status === 'open') out.push(m);
      else fs.rmSync(path.join(this.#openDir, id), { force: true });
    }
    return out;
  }

  /** When the mission's process last said it was alive. */
  heartbeatAt(id: string): number | undefined {
    try {
      return fs.statSync(this.#at(id, 'heartbeat')).mtimeMs;
    } catch {
      return undefined;
    }
  }

  heartbeat(id: string): void {
    const now = new Date();
    try {
      fs.utimesSync(this.#at(id, 'heartbeat'), now, now);
    } catch {
      /* the record is gone or unwritable: the next write says so */
    }
  }

  /** Whether an open mission's process is gone: dead on this host, or silent past the bound elsewhere. */
  gone(m: Mission, now = Date.now(), boundMs = HEARTBEAT_STALE_MS): boolean {
    const dead = ownerGone(m.owner);
    if (dead !== undefined) return dead;
    return now - (this.heartbeatAt(m.id) ?? Date.parse(m.updatedAt)) > boundMs;
  }

  /**
   * Records a new open mission, if the fleet has room: `cap` units open at once (0: no cap),
   * counting only those whose process is alive.
   */
  async create(n: NewMission, cap = DEFAULT_FLEET_MAX): Promise<Mission> {
    try {
      mkdirs(this.#openDir);
      return await withFileLock(path.join(this.dir, 'fleet'), 'the mission fleet', () => this.#create(n, cap));
    } catch (err) {
      throw asDiskError(err, `a new mission's record (under ${this.dir})`);
    }
  }

  #create(n: NewMission, cap: number): Mission {
    {
      if (cap > 0) {
        const live = this.open().filter((m) => !this.gone(m));
        if (live.length >= cap) {
          throw new ToolError(
            'fleet_full',
            `fleet admission refused: ${live.length} units are already open, at the fleet cap (fleet_max_parallel = ${cap}). Wait for one to finish (\`cxl mission list\`), stop one (\`cxl mission stop ID\`), or raise fleet_max_parallel in agents.toml (0: no cap).`,
            { open: live.map((m) => m.id), cap },
          );
        }
      }
      let id = newId('m');
      for (let i = 0; ; i++) {
        try {
          fs.mkdirSync(this.#at(id), { mode: 0o700 });
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || i > 8) throw err;
          id = newId('m');
        }
      }
      const now = new Date().toISOString();
      const m: Mission = {
        v: 1,
        id,
        intent: n.intent,
        agent: n.agent,
        envelope: n.envelope,
        ...(n.ceiling ? { ceiling: n.ceiling } : {}),
        cwd: n.cwd,
        status: 'open',
        ...(n.sessionId ? { sessionId: n.sessionId } : {}),
        ...(n.parentSessionId ? { parentSessionId: n.parentSessionId } : {}),
        owner: n.owner ?? currentOwner(),
        createdAt: now,
        updatedAt: now,
        planRevision: 0,
        reports: 0,
        rev: 1,
      };
      try {
        fs.writeFileSync(this.#at(id, 'heartbeat'), '', { mode: 0o600 });
        replaceFileSync(this.#at(id, 'mission.json'), JSON.stringify(m), { mode: 0o600 });
        fs.writeFileSync(path.join(this.#openDir, id), '', { mode: 0o600 });
      } catch (err) {
        // a full disk part way: no half-made mission left to list or to count against the cap
        fs.rmSync(path.join(this.#openDir, id), { force: true });
        fs.rmSync(this.#at(id), { recursive: true, force: true });
        throw err;
      }
      return m;
    }
  }

  /**
   * Changes the record under its lock: `fn` gets the record as it is on disk now and returns the
   * next one (or the same object: nothing to write); an append `fn` makes (a report, a plan) is
   * flushed before the record that counts it replaces the old one.
   */
  async update(id: string, fn: (m: Mission) => Mission): Promise<Mission> {
    const file = this.#at(id, 'mission.json');
    let found: Mission | undefined;
    const r = await updateRecord(
      file,
      validMission(id),
      (cur) => {
        if (!cur) throw new ToolError('not_found', `no mission "${id}" exists; \`cxl mission list\` shows the recorded ones.`);
        found = cur;
        const next = fn(cur);
        if (next === cur) return UNCHANGED;
        return { ...next, rev: cur.rev + 1, updatedAt: new Date().toISOString() };
      },
      { shown: `mission ${id}'s record`, mode: 0o600, todo: DAMAGED_TODO(this.#at(id)) },
    );
    return r.value ?? found!;
  }

  /** The process that runs the unit now (a unit started for a record another process made). */
  takeOver(id: string, sessionId?: string): Promise<Mission> {
    return this.update(id, (m) => {
      if (m.status !== 'open') throw new ToolError('conflict', `mission ${id} is already finished (${m.status}); nothing to run.`);
      return { ...m, owner: currentOwner(), ...(sessionId ? { sessionId } : {}) };
    });
  }

  bindSession(id: string, sessionId: string): Promise<Mission> {
    return this.update(id, (m) => (m.sessionId === sessionId ? m : { ...m, sessionId }));
  }

  /**
   * Finishes the mission once: the same status again changes nothing (`changed` false), another
   * one is a conflict. Its open marker goes with it.
   */
  async finish(id: string, status: FinishedStatus, reason?: string): Promise<{ mission: Mission; changed: boolean }> {
    let changed = false;
    const mission = await this.update(id, (m) => {
      if (m.status === status) return m;
      if (m.status !== 'open') throw new ToolError('conflict', `mission ${id} already finished as ${m.status}; it cannot be re-finished as ${status}. A verdict is recorded once.`, { status: m.status });
      changed = true;
      return { ...m, status, ...(reason ? { reason } : {}), finishedAt: new Date().toISOString() };
    });
    fs.rmSync(path.join(this.#openDir, id), { force: true });
    return { mission, changed };
  }

  /** Refuses a unit's write to a finished mission: its verdict is in. */
  #stillOpen(m: Mission, by: Report['by']): void {
    if (by === 'unit' && m.status !== 'open') throw new ToolError('conflict', `mission ${m.id} is already finished (${m.status}); nothing more is recorded for it.`, { status: m.status });
  }

  /** Every plan snapshot; a line that is not one is skipped and handed to `skipped` (the file, its line, why). */
  plans(id: string, skipped?: (where: string, why: string) => void): Plan[] {
    const file = this.#at(id, 'plan.jsonl');
    return readLines<Plan>(file, invalidPlan, skipped && ((n, why) => skipped(`${file}:${n}`, why)));
  }

  lastPlan(id: string): Plan | undefined {
    const all = this.plans(id);
    return all[all.length - 1];
  }

  /** Files a full plan snapshot as the next revision (see records.ts nextPlan for what is refused). */
  async setPlan(id: string, args: Record<string, unknown>): Promise<Plan> {
    let plan!: Plan;
    await this.update(id, (m) => {
      this.#stillOpen(m, 'unit');
      plan = { ...nextPlan(this.lastPlan(id), args), createdAt: new Date().toISOString() };
      appendLine(this.#at(id, 'plan.jsonl'), plan);
      return { ...m, planRevision: plan.revision };
    });
    return plan;
  }

  /** Every report; a line that is not one is skipped and handed to `skipped` (the file, its line, why). */
  reports(id: string, skipped?: (where: string, why: string) => void): Report[] {
    const file = this.#at(id, 'reports.jsonl');
    return readLines<Report>(file, invalidReport, skipped && ((n, why) => skipped(`${file}:${n}`, why)));
  }

  async addReport(id: string, r: Omit<Report, 'id' | 'missionId' | 'createdAt'>): Promise<Report> {
    let report!: Report;
    await this.update(id, (m) => {
      this.#stillOpen(m, r.by);
      report = { id: newId('r'), missionId: id, ...r, createdAt: new Date().toISOString() };
      appendLine(this.#at(id, 'reports.jsonl'), report);
      return { ...m, reports: m.reports + 1 };
    });
    return report;
  }
}
