// What a mission is on disk and what its unit may write into it (docs/missions.md, "Records"):
// the record with its status (open until finished once), full plan snapshots kept as revisions,
// reports with refs and a handover. The checks here are the ones the unit tools answer with, so
// their messages say what to send instead.
import { ToolError } from '../../core/errors.ts';
import type { Owner } from './owner.ts';

export const STATUSES = ['open', 'landed', 'derailed', 'stuck', 'abandoned'] as const;
export type MissionStatus = (typeof STATUSES)[number];
export const FINISHED: readonly MissionStatus[] = ['landed', 'derailed', 'stuck', 'abandoned'];
export type FinishedStatus = Exclude<MissionStatus, 'open'>;

export const REPORT_KINDS = ['progress', 'finding', 'blocker', 'result'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

export const PLAN_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export const PRIORITIES = ['high', 'medium', 'low'] as const;

export interface Mission {
  v: 1;
  id: string;
  /** what the unit was asked, on one line (a piped body is summarised by its size) */
  intent: string;
  agent: string;
  envelope: string;
  /**
   * The envelope of the session whose model fired it (docs/missions.md, "The ceiling"): every
   * call of the unit is decided by both envelopes, the stricter wins. Absent when a person named
   * the envelope (`cxl run`, `cxl mission fire`, `/mission --envelope`).
   */
  ceiling?: string;
  cwd: string;
  status: MissionStatus;
  /** why it finished so (or was reclaimed) */
  reason?: string;
  sessionId?: string;
  /** the session that fired it (`/mission`, mission_start): its reports and asks go there */
  parentSessionId?: string;
  owner: Owner;
  createdAt: string;
  updatedAt: string;
  finishedAt?: string;
  /** how many plan snapshots were filed (0: none yet) */
  planRevision: number;
  reports: number;
  /** bumped on every replace: a writer that read an older one re-reads under the lock */
  rev: number;
}

export interface Handover {
  outcome?: string;
  artifacts?: string[];
  handoverForNext?: string;
  caveats?: string;
}

export interface Report {
  id: string;
  missionId: string;
  kind: ReportKind;
  summary: string;
  detail?: string;
  refs?: string[];
  handover?: Handover;
  /** a `result` whose claimed artifacts do not exist was filed as `progress`: these were missing */
  missing?: string[];
  /** who filed it: the unit, the runtime (a silent unit, a failed turn, a reclaim) or a person (`mission stop`) */
  by: 'unit' | 'runtime' | 'operator';
  createdAt: string;
}

export interface PlanEntry {
  id: string;
  content: string;
  status: (typeof PLAN_STATUSES)[number];
  priority: (typeof PRIORITIES)[number];
}

export interface Plan {
  revision: number;
  entries: PlanEntry[];
  explanation?: string;
  createdAt: string;
}

const TEXT_MAX = 8000;
const LIST_MAX = 50;
const ITEM_MAX = 2000;
const PLAN_MAX = 100;
const ENTRY_MAX = 12000;

const bytes = (s: string) => Buffer.byteLength(s);

/** Whitespace runs (newlines included) as one space: a summary or an intent is one line. */
export function oneLine(s: string, max = 500): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function text(field: string, v: unknown, max = TEXT_MAX): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new ToolError('bad_args', `\`${field}\` must be a string.`);
  if (bytes(v) > max) throw new ToolError('bad_args', `\`${field}\` is ${bytes(v)} bytes; keep it under ${max}, and put the rest in a file you name in refs.`);
  return v;
}

/** A list of strings; a single string is split on commas or newlines (models send either). */
function list(field: string, v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const items = typeof v === 'string' ? v.split(/[,\n]/) : v;
  if (!Array.isArray(items) || !items.every((x) => typeof x === 'string')) throw new ToolError('bad_args', `\`${field}\` must be an array of strings.`);
  const out = items.map((x) => x.trim()).filter(Boolean);
  if (out.length > LIST_MAX) throw new ToolError('bad_args', `\`${field}\` names ${out.length} items; at most ${LIST_MAX}.`);
  for (const x of out) if (bytes(x) > ITEM_MAX) throw new ToolError('bad_args', `an item of \`${field}\` is over ${ITEM_MAX} bytes; name it shorter.`);
  return out.length ? out : undefined;
}

/** The handover, from an object or a JSON string; an empty one is none. */
export function parseHandover(v: unknown): Handover | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  let o = v;
  if (typeof v === 'string') {
    try {
      o = JSON.parse(v);
    } catch {
      throw new ToolError('bad_args', '`handover` must be an object {outcome, artifacts, handoverForNext, caveats} (or that object as a JSON string).');
    }
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new ToolError('bad_args', '`handover` must be an object {outcome, artifacts, handoverForNext, caveats}.');
  const h = o as Record<string, unknown>;
  const unknown = Object.keys(h).filter((k) => !['outcome', 'artifacts', 'handoverForNext', 'caveats'].includes(k));
  if (unknown.length) throw new ToolError('bad_args', `\`handover\` has unknown field(s) ${unknown.join(', ')}; it takes outcome, artifacts, handoverForNext, caveats.`);
  const out: Handover = {};
  const outcome = text('handover.outcome', h.outcome);
  if (outcome) out.outcome = outcome;
  const artifacts = list('handover.artifacts', h.artifacts);
  if (artifacts) out.artifacts = artifacts;
  const next = text('handover.handoverForNext', h.handoverForNext);
  if (next) out.handoverForNext = next;
  const caveats = text('handover.caveats', h.caveats);
  if (caveats) out.caveats = caveats;
  return Object.keys(out).length ? out : undefined;
}

/** A report as the unit (or the runtime) files it: its kind, one-line summary, detail, refs, handover. */
export function parseReport(args: Record<string, unknown>): Omit<Report, 'id' | 'missionId' | 'by' | 'createdAt'> {
  const kind = args.kind === undefined || args.kind === null || args.kind === '' ? 'progress' : args.kind;
  if (typeof kind !== 'string' || !(REPORT_KINDS as readonly string[]).includes(kind)) throw new ToolError('bad_args', `\`kind\` must be one of ${REPORT_KINDS.join(', ')}; got ${JSON.stringify(kind)}.`);
  if (typeof args.summary !== 'string' || !args.summary.trim()) throw new ToolError('bad_args', 'mission_report requires a `summary`: one line saying what happened.');
  const summary = oneLine(args.summary);
  const r: Omit<Report, 'id' | 'missionId' | 'by' | 'createdAt'> = { kind: kind as ReportKind, summary };
  const detail = text('detail', args.detail);
  if (detail) r.detail = detail;
  const refs = list('refs', args.refs);
  if (refs) r.refs = refs;
  const handover = parseHandover(args.handover);
  if (handover) r.handover = handover;
  return r;
}

/**
 * The next plan from a full snapshot: missing ids assigned (`e1`, `e2`, … after the highest
 * used), statuses and priorities checked, and completed work never rewritten.
 */
export function nextPlan(prev: Plan | undefined, args: Record<string, unknown>): Omit<Plan, 'createdAt'> {
  const raw = args.entries;
  if (!Array.isArray(raw)) throw new ToolError('bad_args', "mission_plan requires an 'entries' array (a full snapshot of the plan).");
  if (raw.length < 1 || raw.length > PLAN_MAX) throw new ToolError('bad_args', `a plan has 1 to ${PLAN_MAX} entries; got ${raw.length}.`);
  let n = Math.max(0, ...(prev?.entries ?? []).map((e) => Number(/^e(\d+)$/.exec(e.id)?.[1] ?? 0)));
  const seen = new Set<string>();
  const entries: PlanEntry[] = raw.map((x, i) => {
    if (!x || typeof x !== 'object' || Array.isArray(x)) throw new ToolError('bad_args', `plan entry ${i + 1} must be an object {id?, content, status, priority}.`);
    const e = x as Record<string, unknown>;
    if (typeof e.content !== 'string' || !e.content.trim()) throw new ToolError('bad_args', `plan entry ${i + 1} needs \`content\`: what the step is.`);
    if (bytes(e.content) > ENTRY_MAX) throw new ToolError('bad_args', `plan entry ${i + 1} is over ${ENTRY_MAX} bytes.`);
    const status = e.status ?? 'pending';
    if (typeof status !== 'string' || !(PLAN_STATUSES as readonly string[]).includes(status)) throw new ToolError('bad_args', `plan entry ${i + 1}: \`status\` must be one of ${PLAN_STATUSES.join(', ')}.`);
    const priority = e.priority ?? 'medium';
    if (typeof priority !== 'string' || !(PRIORITIES as readonly string[]).includes(priority)) throw new ToolError('bad_args', `plan entry ${i + 1}: \`priority\` must be one of ${PRIORITIES.join(', ')}.`);
    let id = typeof e.id === 'string' && e.id.trim() ? e.id.trim().slice(0, 64) : `e${++n}`;
    if (seen.has(id)) id = `e${++n}`;
    seen.add(id);
    return { id, content: e.content.trim(), status: status as PlanEntry['status'], priority: priority as PlanEntry['priority'] };
  });
  for (const e of entries) {
    const was = prev?.entries.find((p) => p.id === e.id);
    if (was?.status === 'completed' && was.content !== e.content) {
      throw new ToolError('bad_args', `plan entry "${e.id}" rewrites the content of already-completed work; append a correction as a new entry instead.`);
    }
  }
  const explanation = text('explanation', args.explanation);
  return { revision: (prev?.revision ?? 0) + 1, entries, ...(explanation ? { explanation } : {}) };
}

export function isFinished(s: MissionStatus): s is FinishedStatus {
  return s !== 'open';
}

/**
 * A mission record as read from disk, or why it is not one: every field the readers rely on, of
 * its type (a record cut short or edited by hand is reported, not read as another mission or none).
 */
export function validMission(id: string): (v: unknown) => Mission | { damaged: string } {
  return (v) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { damaged: 'not a JSON object' };
    const m = v as Record<string, unknown>;
    if (m.v !== 1) return { damaged: `version ${JSON.stringify(m.v)}, not 1` };
    if (m.id !== id) return { damaged: `it names mission ${JSON.stringify(m.id)}, not ${id}` };
    for (const k of ['intent', 'agent', 'envelope', 'cwd', 'createdAt', 'updatedAt'] as const) if (typeof m[k] !== 'string') return { damaged: `\`${k}\` is not a string` };
    if (typeof m.status !== 'string' || !(STATUSES as readonly string[]).includes(m.status)) return { damaged: `\`status\` ${JSON.stringify(m.status)} is not one of ${STATUSES.join(', ')}` };
    for (const k of ['planRevision', 'reports', 'rev'] as const) if (typeof m[k] !== 'number' || !Number.isInteger(m[k])) return { damaged: `\`${k}\` is not a whole number` };
    const o = m.owner as Record<string, unknown> | null;
    if (!o || typeof o !== 'object' || typeof o.host !== 'string' || typeof o.pid !== 'number') return { damaged: '`owner` is not {host, pid}' };
    for (const k of ['reason', 'sessionId', 'parentSessionId', 'finishedAt', 'ceiling'] as const) if (m[k] !== undefined && typeof m[k] !== 'string') return { damaged: `\`${k}\` is not a string` };
    return m as unknown as Mission;
  };
}

/** Why a line of reports.jsonl is not a report (undefined: it is one). */
export function invalidReport(v: unknown): string | undefined {
  const r = v as Record<string, unknown> | null;
  if (!r || typeof r !== 'object' || Array.isArray(r)) return 'not a JSON object';
  if (typeof r.id !== 'string' || typeof r.summary !== 'string' || typeof r.createdAt !== 'string') return '`id`, `summary` or `createdAt` is not a string';
  if (typeof r.kind !== 'string' || !(REPORT_KINDS as readonly string[]).includes(r.kind)) return `\`kind\` ${JSON.stringify(r.kind)} is not a report kind`;
  if (r.detail !== undefined && typeof r.detail !== 'string') return '`detail` is not a string';
  for (const k of ['refs', 'missing'] as const) if (r[k] !== undefined && (!Array.isArray(r[k]) || !(r[k] as unknown[]).every((x) => typeof x === 'string'))) return `\`${k}\` is not a list of strings`;
  if (r.handover !== undefined && (!r.handover || typeof r.handover !== 'object' || Array.isArray(r.handover))) return '`handover` is not an object';
  return undefined;
}

/** Why a line of plan.jsonl is not a plan (undefined: it is one). */
export function invalidPlan(v: unknown): string | undefined {
  const p = v as Record<string, unknown> | null;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return 'not a JSON object';
  if (typeof p.revision !== 'number' || typeof p.createdAt !== 'string') return '`revision` or `createdAt` is not of its type';
  if (!Array.isArray(p.entries) || !p.entries.every((e) => e && typeof e === 'object' && typeof (e as PlanEntry).id === 'string' && typeof (e as PlanEntry).content === 'string' && typeof (e as PlanEntry).status === 'string')) return '`entries` is not a list of {id, content, status}';
  return undefined;
}
