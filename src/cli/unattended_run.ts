// What `cxl run` and `cxl mission fire` share (docs/missions.md): the task (an argument, `-` for
// stdin, piped input appended between markers), the workspace (--cwd), the agent and the
// envelope the mission must name, a session to continue, the output format, and the exit code:
// 0 landed, 1 derailed or stuck, 3 refused or unanswered calls, 2 usage, 124 --timeout, 129
// SIGHUP, 130 SIGINT, 143 SIGTERM. A stop from outside is written into the mission record before exiting.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { runMission } from '../agent/unattended.ts';
import type { AgentSetup } from '../agent/setup.ts';
import { oneLine, type Mission } from '../agent/missions/records.ts';
import { EXIT } from '../agent/units/events.ts';
import { missionEnvelope, missionStores } from '../agent/units/lifecycle.ts';
import { isToolError } from '../core/errors.ts';
import { parseDuration } from '../core/duration.ts';
import { onTerminate, signalExitCode } from '../core/platform/runtime.ts';
import { setupFromFlags, AGENT_FLAGS } from './agent_setup.ts';
import { parseFlags, UsageError } from './args.ts';
import { outputFormat, RunPrinter } from './run_output.ts';
import { readStdin, stdinIsPiped, withPiped } from './stdin_text.ts';

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
function timeoutFlag(command: string, s: string): number {
  if (s.trim() === '0') return 0; // no bound, as when the flag is absent
  const ms = parseDuration(s);
  if (ms === undefined) throw new UsageError(`${command}: --timeout ${JSON.stringify(s)} is not a duration; use e.g. 30s, 5m, 1m30s, 1h or a number of seconds.`);
  return ms;
}

function workspace(command: string, v: unknown): string {
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
  let task = words.join(' ').trim();
  let piped = '';
  if (task === '-') task = (await readStdin()).trim();
  else if (stdinIsPiped()) piped = await readStdin();
  if (!task) throw new UsageError(`${c.name}: give the task as an argument, e.g. ${c.name} "summarise README.md" (or - to read it from stdin). Run \`${c.name} --help\`.`);
  const bytes = Buffer.byteLength(piped);
  const intent = `${oneLine(task, 400)}${bytes ? ` (+ ${bytes} bytes piped stdin)` : ''}`;
  return { ...(agent ? { agent } : {}), task: withPiped(task, piped), intent };
}

/** The stored session to continue: --resume ID, or --continue (this directory's newest). */
async function resumed(command: string, setup: AgentSetup, values: Record<string, unknown>, cwd: string): Promise<string | undefined> {
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
    let envelope: string;
    try {
      envelope = missionEnvelope(envelopeFlag, setup.missions.defaultEnvelope, setup.modes.map((m) => m.id));
    } catch (err) {
      throw new UsageError(`${c.name}: ${isToolError(err) ? err.message : String(err)}`);
    }
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
  envelope: string;
  resume?: string;
  missionId?: string;
  format: ReturnType<typeof outputFormat>;
  timeoutMs: number;
  timeoutText?: string;
}

async function drive(c: Command, setup: AgentSetup, d: Drive): Promise<number> {
  const printer = new RunPrinter(d.format, c.name);
  const ctrl = new AbortController();
  let why: 'timeout' | NodeJS.Signals | undefined;
  const timer = d.timeoutMs > 0 ? setTimeout(() => ((why = 'timeout'), ctrl.abort()), d.timeoutMs) : undefined;
  const off = onTerminate((signal) => {
    why = signal;
    ctrl.abort();
  });
  try {
    const s = await runMission(setup, {
      task: d.task,
      intent: d.intent,
      agent: d.agent,
      envelope: d.envelope,
      ...(d.missionId ? { missionId: d.missionId } : {}),
      ...(d.resume ? { resume: d.resume } : {}),
      signal: ctrl.signal,
      stoppedBecause: () => (why === 'timeout' ? `--timeout ${d.timeoutText}` : why),
      emit: printer.event,
    });
    const code = why === 'timeout' ? EXIT.timeout : why ? signalExitCode(why) : s.exit_code;
    printer.finish({ ...s, exit_code: code }, why === 'timeout' ? `stopped after the --timeout of ${d.timeoutText}.` : why ? `stopped by ${why}.` : undefined);
    return code;
  } catch (err) {
    if (isToolError(err) && (err.code === 'fleet_full' || err.code === 'conflict' || err.code === 'bad_args' || err.code === 'not_found')) {
      process.stderr.write(`${c.name}: ${err.message}\n`);
      return EXIT.failed;
    }
    throw err;
  } finally {
    if (timer) clearTimeout(timer);
    off();
  }
}
