// `cxl mission`: the mission records (docs/missions.md). `list`, `show`, `reports` and `stop`
// read and end records (after the sweep: a unit whose process is gone is reclaimed first);
// `fire` runs a unit of a named agent here and waits for its verdict, like `cxl run`.
import process from 'node:process';
import { AskStore } from '../agent/missions/ask_store.ts';
import { MissionStore } from '../agent/missions/mission_store.ts';
import type { Mission, Report } from '../agent/missions/records.ts';
import { sweep } from '../agent/missions/sweep.ts';
import { dataDir } from '../core/platform/data_dir.ts';
import { stopMission } from '../agent/units/lifecycle.ts';
import { isToolError } from '../core/errors.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { parseFlags, UsageError } from './args.ts';
import { ago, table } from './time_words.ts';

const HELP = `cxl mission: unattended mission units and their records

Usage: cxl mission list [--limit N] [--json]
       cxl mission show ID [--json]
       cxl mission reports ID [--json]
       cxl mission stop ID [--reason TEXT]
       cxl mission fire [agent] "<intent>" --wait [the flags of cxl run]

  list      the newest missions: id, agent, envelope, status, age, intent
  show      one record: status and why, session, heartbeat, the plan, pending asks, reports
  reports   every report of a mission, oldest first, with refs and handover
  stop      finish an open mission as abandoned; its pending asks are denied and its unit stops
  fire      run a unit of [agents.<name>] (default: run) here and wait for its verdict; --wait is
            required (the unit runs in this process). Exit codes as cxl run's.

Records live under $XDG_DATA_HOME/cxl/missions.`;

const FIRE_HELP = `cxl mission fire: run a unit of a named agent and wait for its verdict

Usage: cxl mission fire [agent] "<intent>" --wait [--envelope NAME] [--cwd DIR]
                        [--output-format text|json|stream-json] [--timeout D] [--resume ID | --continue]

  agent   an [agents.<name>] section of the configuration; default: run (the agent of cxl run)
  The flags, the output and the exit codes are those of \`cxl run\` (\`cxl run --help\`).`;

const out = (s: string) => process.stdout.write(forTerminal(s));

function stores() {
  const dir = dataDir(process.env);
  return { missions: new MissionStore(dir), asks: new AskStore(dir) };
}

function idArg(command: string, positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(`${command}: name one mission: ${command} ID (\`cxl mission list\` shows them).`);
  return positionals[0];
}

/** A line of a mission's log that is not a record: said on stderr with where it is, and skipped. */
function skippedLines(command: string): (where: string, why: string) => void {
  return (where, why) => process.stderr.write(forTerminal(`${command}: skipped ${where}: ${why}; the lines around it are shown. Look at it; cxl only ever appends to that file.\n`));
}

/** The record, or exit 1 saying why there is none. */
function found(command: string, missions: MissionStore, id: string): Mission | undefined {
  try {
    return missions.require(id);
  } catch (err) {
    if (!isToolError(err)) throw err;
    process.stderr.write(forTerminal(`${command}: ${err.message}\n`));
    return undefined;
  }
}

async function list(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl mission list', argv, { limit: { type: 'string' }, json: { type: 'boolean' } }, HELP);
  if (!flags) return 0;
  const limit = flags.values.limit === undefined ? 50 : Number(flags.values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`cxl mission list: --limit must be a positive whole number; got ${flags.values.limit}.`);
  const s = stores();
  const damaged = new Map<string, string>();
  const note = (id: string, message: string) => damaged.set(id, message);
  await sweep(s.missions, s.asks, Date.now(), note);
  const all = s.missions.list(limit, note);
  for (const d of damaged.values()) process.stderr.write(forTerminal(`cxl mission list: ${d}\n`));
  if (flags.values.json) {
    process.stdout.write(`${JSON.stringify({ missions: all })}\n`);
    return 0;
  }
  if (!all.length) {
    out('No missions recorded. Start one with `cxl run "<task>"`, `cxl mission fire [agent] "<intent>" --wait`, or /mission in a session.\n');
    return 0;
  }
  const rows = [['ID', 'AGENT', 'ENVELOPE', 'STATUS', 'AGE', 'INTENT'], ...all.map((m) => [m.id, m.agent, m.envelope, m.status, ago(m.createdAt), m.intent.slice(0, 80)])];
  out(`${table(rows)}\n`);
  return 0;
}

function reportLines(r: Report, full: boolean): string[] {
  const lines = [`[${r.kind}] ${r.summary}${r.by === 'unit' ? '' : ` (by ${r.by})`}`];
  if (r.refs?.length) lines.push(`    refs: ${r.refs.join(', ')}`);
  if (r.missing?.length) lines.push(`    ⚠ claimed artifacts not found: ${r.missing.join(', ')}`);
  if (!full) return lines;
  lines[0] = `${r.createdAt} ${lines[0]}`;
  if (r.detail) lines.push(...r.detail.split('\n').map((l) => `    ${l}`));
  const h = r.handover;
  if (h) {
    lines.push('    Handover:');
    if (h.outcome) lines.push(`      outcome: ${h.outcome}`);
    if (h.artifacts?.length) lines.push(`      artifacts: ${h.artifacts.join(', ')}`);
    if (h.handoverForNext) lines.push(`      for the next: ${h.handoverForNext}`);
    if (h.caveats) lines.push(`      caveats: ${h.caveats}`);
  }
  return lines;
}

async function show(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl mission show', argv, { json: { type: 'boolean' } }, HELP);
  if (!flags) return 0;
  const id = idArg('cxl mission show', flags.positionals);
  const s = stores();
  await sweep(s.missions, s.asks);
  const m = found('cxl mission show', s.missions, id);
  if (!m) return 1;
  const skip = skippedLines('cxl mission show');
  const plans = s.missions.plans(id, skip);
  const plan = plans[plans.length - 1];
  const asks = s.asks.pending().filter((a) => a.missionId === id);
  const reports = s.missions.reports(id, skip);
  const beat = s.missions.heartbeatAt(id);
  if (flags.values.json) {
    process.stdout.write(`${JSON.stringify({ mission: m, heartbeat: beat ? new Date(beat).toISOString() : null, plan: plan ?? null, plan_revisions: plans.length, asks, reports })}\n`);
    return 0;
  }
  const lines = [
    `Mission:   ${m.id}`,
    `Intent:    ${m.intent}`,
    `Agent:     ${m.agent}`,
    `Envelope:  ${m.envelope}${m.ceiling ? ` (ceiling: ${m.ceiling}, the envelope of the session whose model fired it)` : ''}`,
    `Status:    ${m.status}${m.reason ? ` (${m.reason})` : ''}`,
    `Workspace: ${m.cwd}`,
    `Session:   ${m.sessionId ?? '-'}${m.parentSessionId ? ` (fired by session ${m.parentSessionId})` : ''}`,
    `Process:   pid ${m.owner.pid} on ${m.owner.host}`,
    `Heartbeat: ${beat ? `${ago(new Date(beat).toISOString())} ago` : '-'}`,
    `Created:   ${m.createdAt}`,
    `Updated:   ${m.updatedAt}${m.finishedAt ? `\nFinished:  ${m.finishedAt}` : ''}`,
  ];
  if (plan) {
    lines.push(`Plan (revision ${plan.revision} of ${plans.length}):`);
    for (const e of plan.entries) lines.push(`  ${e.status === 'completed' ? '[x]' : e.status === 'in_progress' ? '[~]' : '[ ]'} ${e.content}${e.priority === 'high' ? ' !' : ''}`);
  } else lines.push('Plan:      none filed yet');
  if (asks.length) {
    lines.push('Waiting on:');
    for (const a of asks) lines.push(`  ${a.id} ${a.kind}: ${a.summary} (cxl approvals respond ${a.id} ${a.kind === 'question' ? '--answer "…"' : '--approve|--deny'})`);
  }
  lines.push(`Reports (${reports.length}):`);
  for (const r of reports) lines.push(...reportLines(r, false).map((l) => `  ${l}`));
  out(`${lines.join('\n')}\n`);
  return 0;
}

async function reports(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl mission reports', argv, { json: { type: 'boolean' } }, HELP);
  if (!flags) return 0;
  const id = idArg('cxl mission reports', flags.positionals);
  const s = stores();
  if (!found('cxl mission reports', s.missions, id)) return 1;
  const all = s.missions.reports(id, skippedLines('cxl mission reports'));
  if (flags.values.json) {
    process.stdout.write(`${JSON.stringify({ reports: all })}\n`);
    return 0;
  }
  out(all.length ? `${all.flatMap((r) => reportLines(r, true)).join('\n')}\n` : `Mission ${id} has no reports yet.\n`);
  return 0;
}

async function stop(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl mission stop', argv, { reason: { type: 'string' } }, HELP);
  if (!flags) return 0;
  const id = idArg('cxl mission stop', flags.positionals);
  const s = stores();
  if (!found('cxl mission stop', s.missions, id)) return 1;
  const reason = typeof flags.values.reason === 'string' && flags.values.reason.trim() ? flags.values.reason.trim() : 'stopped by operator';
  try {
    const r = await stopMission(s, id, reason);
    if (r.changed) await s.missions.addReport(id, { kind: 'blocker', summary: `stopped: ${reason}`, by: 'operator' });
    out(r.changed ? `Mission ${id} stopped (abandoned): ${reason}. Its unit stops at its next step.\n` : `Mission ${id} was already abandoned; nothing changed.\n`);
    return 0;
  } catch (err) {
    if (!isToolError(err)) throw err;
    process.stderr.write(forTerminal(`cxl mission stop: ${err.message}\n`));
    return 1;
  }
}

async function fire(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${FIRE_HELP}\n`);
    return 0;
  }
  const { runUnattendedCommand } = await import('./unattended_run.ts');
  if (!argv.includes('--wait') && !argv.some((a) => a === '--mission' || a.startsWith('--mission='))) {
    throw new UsageError('cxl mission fire: --wait is required: the unit runs in this process and ends with it. Add --wait, or fire from a session (/mission) for a unit that outlives it.');
  }
  return runUnattendedCommand({ name: 'cxl mission fire', help: FIRE_HELP, agentArgument: true }, argv, { wait: { type: 'boolean' }, mission: { type: 'string' } });
}

export async function main(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'list':
      return list(rest);
    case 'show':
      return show(rest);
    case 'reports':
      return reports(rest);
    case 'stop':
      return stop(rest);
    case 'fire':
      return fire(rest);
    case undefined:
    case '--help':
    case '-h':
      process.stdout.write(`${HELP}\n`);
      return sub === undefined ? 2 : 0;
    default:
      throw new UsageError(`cxl mission: unknown subcommand \`${sub}\`; use list, show, reports, stop or fire. Run \`cxl mission --help\`.`);
  }
}
