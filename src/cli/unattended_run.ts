// What `cxl run` and `cxl mission fire` share (docs/missions.md), and `cxl -p` of it: the task
// (an argument, `-` for stdin, piped input appended between markers), the workspace (--cwd), the
// agent and the envelope (--envelope, else default_mission_envelope, else read_only: said on
// stderr), a session to continue, the output format, and the exit code: 0 landed, 1 derailed or
// stuck, 3 refused or unanswered calls, 2 usage, 124 --timeout, 129 SIGHUP, 130 SIGINT, 143
// SIGTERM. A stop from outside is written into the mission record before exiting.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { runMission } from '../agent/unattended.ts';
import type { AgentSetup } from '../agent/setup.ts';
import type { Mission } from '../agent/missions/records.ts';
import { EXIT } from '../agent/units/events.ts';
import { missionStores } from '../agent/units/lifecycle.ts';
import { isToolError } from '../core/errors.ts';
import { parseDuration } from '../core/duration.ts';
import { setupFromFlags, AGENT_FLAGS } from './agent_setup.ts';
import { parseFlags, UsageError } from './args.ts';
import { chooseEnvelope, type EnvelopeChoice } from './envelope_choice.ts';
import { outputFormat, RunPrinter } from './run_output.ts';
import { runStop } from './run_stop.ts';
import { taskInput, taskLine } from './stdin_text.ts';

export const UNATTENDED_FLAGS = {
  ...AGENT_FLAGS,
  timeout: { type: 'string' },
  cwd: { type: 'string' },
  'output-format': { type: 'string' },
  resume: { type: 'string' },
  continue: { type: 'boolean' },
} as const;

export interface Command {
  /** `cxl run` or `cxl mission fire` */
  name: string;
  help: string;
  /** `cxl mission fire [agent] "<intent>"`: a first of two arguments names the agent */
  agentArgument: boolean;
}

/** --timeout in ms, read like every other duration in cxl (core/duration.ts). */
export function timeoutFlag(command: string, s: string): number {
  if (s.trim() === '0') return 0; // no bound, as when the flag is absent
  const ms = parseDuration(s);
  if (ms === undefined) throw new UsageError(`${command}: --timeout ${JSON.stringify(s)} is not a duration; use e.g. 30s, 5m, 1m30s, 1h or a number of seconds.`);
  return ms;
}

/** --cwd as a real directory (default: the current one). */
export function workspace(command: string, v: unknown): string {
  if (v === undefined) return process.cwd();
  const dir = path.resolve(String(v));
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir);
  } catch {
    /* said below */
  }
  if (!st?.isDirectory()) throw new UsageError(`${command}: --cwd ${JSON.stringify(v)} is not a directory.`);
  return fs.realpathSync(dir);
}

/** What the mission is: its agent, the task the model reads and the one-line intent the record keeps. */
async function taskOf(c: Command, positionals: string[]): Promise<{ agent?: string; task: string; intent: string }> {
  let agent: string | undefined;
  let words = positionals;
  if (c.agentArgument) {
    if (positionals.length > 2) throw new UsageError(`${c.name}: quote the intent: ${c.name} [agent] "<intent>" (got ${positionals.length} arguments).`);
    if (positionals.length === 2) [agent, ...words] = positionals;
  }
  const t = await taskInput(words);
  if (!t) throw new UsageError(`${c.name}: give the task as an argument, e.g. ${c.name} "summarise README.md" (or - to read it from stdin). Run \`${c.name} --help\`.`);
  return { ...(agent ? { agent } : {}), task: t.text, intent: taskLine(t, 400) };
}

/** The stored session to continue: --resume ID, or --continue (this directory's newest). */
export async function resumed(command: string, setup: AgentSetup, values: Record<string, unknown>, cwd: string): Promise<string | undefined> {
  const id = values.resume as string | undefined;
  if (id !== undefined && values.continue) throw new UsageError(`${command}: --continue and --resume both pick the session to continue; give one of them.`);
  if (id !== undefined) {
    if (!(await setup.store.load(id))) throw new UsageError(`${command}: no stored session "${id}"; \`cxl mission list\` shows the sessions of past runs.`);
    return id;
  }
  if (!values.continue) return undefined;
  const [newest] = await setup.store.list(cwd);
  if (!newest) throw new UsageError(`${command}: --continue found no stored session for ${cwd}; start one without it.`);
  return newest.sessionId;
}

/** A mission a session recorded for this process to run (`cxl mission fire --mission ID`, internal). */
function recorded(c: Command, dataDir: string, id: string): Mission {
  try {
    return missionStores(dataDir).missions.require(id);
  } catch (err) {
    throw new UsageError(`${c.name}: ${isToolError(err) ? err.message : String(err)}`);
  }
}

export async function runUnattendedCommand(c: Command, argv: string[], extra: Record<string, { type: 'string' | 'boolean' }> = {}): Promise<number> {
  const flags = parseFlags(c.name, argv, { ...UNATTENDED_FLAGS, ...extra }, c.help);
  if (!flags) return 0;
  const { values, positionals } = flags;
  const format = outputFormat(c.name, values['output-format']);
  const timeoutMs = typeof values.timeout === 'string' ? timeoutFlag(c.name, values.timeout) : 0;
  const missionId = typeof values.mission === 'string' ? values.mission : undefined;
  let cwd = workspace(c.name, values.cwd);
  let what: { agent?: string; task: string; intent: string };
  let envelopeFlag = values.envelope as string | undefined;
  if (missionId) {
    const { dataDir } = await import('../core/platform/data_dir.ts');
    const m = recorded(c, dataDir(process.env), missionId);
    cwd = m.cwd;
    envelopeFlag = m.envelope;
    what = { agent: m.agent, task: m.intent, intent: m.intent };
  } else what = await taskOf(c, positionals);
  const setup = await setupFromFlags(c.name, { ...values, envelope: envelopeFlag }, { cwd, agent: what.agent ?? 'run' });
  try {
    const { defaultEnvelope: name, defaultEnvelopeFrom: from } = setup.missions;
    const envelope = chooseEnvelope(c.name, envelopeFlag, name && from ? { name, from } : undefined, 'default_mission_envelope', setup.modes.map((m) => m.id));
    const resume = await resumed(c.name, setup, values, cwd);
    return await drive(c, setup, { ...what, agent: setup.missions.agent, envelope, resume, missionId, format, timeoutMs, timeoutText: values.timeout as string | undefined });
  } finally {
    await setup.closeAll();
  }
}

interface Drive {
  agent: string;
  task: string;
  intent: string;
  envelope: EnvelopeChoice;
  resume?: string;
  missionId?: string;
  format: ReturnType<typeof outputFormat>;
  timeoutMs: number;
  timeoutText?: string;
}

async function drive(c: Command, setup: AgentSetup, d: Drive): Promise<number> {
  const printer = new RunPrinter(d.format, c.name, d.envelope.why ? { envelopeWhy: d.envelope.why } : {});
  const stop = runStop(d.timeoutMs, d.timeoutText);
  try {
    const s = await runMission(setup, {
      task: d.task,
      intent: d.intent,
      agent: d.agent,
      envelope: d.envelope.name,
      ...(d.missionId ? { missionId: d.missionId } : {}),
      ...(d.resume ? { resume: d.resume } : {}),
      signal: stop.signal,
      stoppedBecause: stop.because,
      emit: printer.event,
    });
    const code = stop.code(s.exit_code);
    printer.finish({ ...s, exit_code: code }, stop.said());
    return code;
  } catch (err) {
    if (isToolError(err) && (err.code === 'fleet_full' || err.code === 'conflict' || err.code === 'bad_args' || err.code === 'not_found')) {
      process.stderr.write(`${c.name}: ${err.message}\n`);
      return EXIT.failed;
    }
    throw err;
  } finally {
    stop.dispose();
  }
}
