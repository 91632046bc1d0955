// How a run with no client is shown, a mission (`cxl run`) or a one-shot conversation (`cxl -p`)
// (`--output-format`, docs/missions.md "Headless output"):
//   text         progress lines on stderr as it happens, the result on stdout, then how it ended
//                and, last, the token use on stderr
//   json         the same progress on stderr; stdout is one JSON object at the end (the summary)
//   stream-json  stdout is one JSON event per line as it happens, ending with the summary
// A conversation's answer is its last message: held back from stderr, printed once on stdout.
// Everything meant for a terminal passes the one sanitiser (core/terminal_text.ts); JSON is JSON.
import process from 'node:process';
import type { OneShotEvent, OneShotSummary } from '../agent/one_shot.ts';
import type { RunEvent, RunSummary, UsageView } from '../agent/units/events.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { UsageError } from './args.ts';

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function outputFormat(command: string, v: unknown): OutputFormat {
  if (v === undefined) return 'text';
  if (typeof v === 'string' && (OUTPUT_FORMATS as readonly string[]).includes(v)) return v as OutputFormat;
  throw new UsageError(`${command}: --output-format ${JSON.stringify(v)} is not one of ${OUTPUT_FORMATS.join(', ')}.`);
}

const err = (s: string) => process.stderr.write(forTerminal(s));

const PLAN_MARK: Record<string, string> = { completed: '[x]', in_progress: '[~]', pending: '[ ]' };

/** One event as a progress line (or none); `envelopeWhy`: why the run is under its envelope, when no --envelope named it. */
export function progressLine(e: RunEvent | OneShotEvent, label: string, envelopeWhy?: string): string | undefined {
  switch (e.type) {
    case 'init':
      if (!('mission_id' in e)) return `${label}: envelope ${e.envelope}${envelopeWhy ? ` (${envelopeWhy})` : ''}, session ${e.session_id}${e.resumed ? ' (resumed)' : ''}`;
      return `${envelopeWhy ? `${label}: envelope ${e.envelope}: ${envelopeWhy}\n` : ''}${label}: mission ${e.mission_id} (agent ${e.agent}, envelope ${e.envelope}, session ${e.session_id}${e.resumed ? ', resumed' : ''})`;
    case 'message':
      return e.text;
    case 'tool_call':
      return `→ ${e.title}`;
    case 'tool_result':
      return e.ok ? `✓ ${e.title}` : `✗ ${e.title}: ${e.code}: ${e.error}`;
    case 'ask':
      return `? ${e.ask.summary}: waiting for a person (ask ${e.ask.ask_id}${e.ask.expires_at ? `, until ${e.ask.expires_at}` : ', no deadline'}). Answer from any terminal: ${e.ask.respond}${e.ask.kind === 'permission' ? ' (cxl approvals list shows the diff)' : ''}`;
    case 'verdict':
      return `  ask ${e.ask_id}: ${e.verdict === 'approve' ? 'approved' : e.verdict === 'answer' ? 'answered' : 'denied'}${e.by === 'person' || e.by === 'agent' ? '' : ` (${e.by})`}`;
    case 'plan':
      return `plan (revision ${e.plan.revision}): ${e.plan.entries.map((x) => `${PLAN_MARK[x.status]} ${x.content}`).join(' · ')}`;
    case 'report':
      return `report [${e.report.kind}] ${e.report.summary}${e.report.missing ? ` (claimed artifacts not found: ${e.report.missing.join(', ')})` : ''}`;
    case 'notice':
      return `${label}: ${e.text}`;
    case 'result':
      return undefined;
  }
}

/** The last stderr line of a run: its token use. */
export function describeUsage(s: { usage: UsageView }): string {
  const u = s.usage;
  const n = (x: number) => x.toLocaleString('en-US');
  const ctx = u.context ? `context ${u.context.estimated ? '~' : ''}${n(u.context.used)} of ${n(u.context.size)} tokens (${Math.round((100 * u.context.used) / u.context.size)}%)` : 'no model request';
  const counted = u.prompt_tokens || u.completion_tokens ? `; ${n(u.prompt_tokens)} prompt + ${n(u.completion_tokens)} completion tokens in all` : '; the server reported no token counts';
  if (!u.requests) return ctx;
  return `${ctx}; ${u.requests} model request${u.requests === 1 ? '' : 's'}${counted}${u.compactions ? `; ${u.compactions} compaction${u.compactions === 1 ? '' : 's'}` : ''}`;
}

export interface PrinterOptions {
  /** why the run is under its envelope (said with the first event), when no --envelope named it */
  envelopeWhy?: string;
  /** a conversation: its last message is the answer, printed on stdout only (not on stderr too) */
  answerOnStdout?: boolean;
}

/** Prints a run's events and summary in one format. */
export class RunPrinter {
  /** the conversation's latest message, not yet shown: the answer, unless a call follows it */
  #held: string | undefined;

  constructor(
    private readonly format: OutputFormat,
    private readonly label: string,
    private readonly o: PrinterOptions = {},
  ) {}

  readonly event = (e: RunEvent | OneShotEvent): void => {
    if (this.format === 'stream-json') {
      process.stdout.write(`${JSON.stringify(e)}\n`);
      return;
    }
    this.#flush();
    if (e.type === 'message' && this.o.answerOnStdout) {
      this.#held = e.text;
      return;
    }
    const line = progressLine(e, this.label, this.o.envelopeWhy);
    if (line) err(line.endsWith('\n') ? line : `${line}\n`);
  };

  #flush(): void {
    if (this.#held !== undefined) err(`${this.#held}\n`);
    this.#held = undefined;
  }

  /** `what`: how they were refused, as said of one call and of several */
  #refused(s: { refused: RunSummary['refused'] }, what: [string, string]): void {
    const n = s.refused.length;
    if (n) err(`${this.label}: ${n} call${n === 1 ? ' was' : 's were'} ${what[n === 1 ? 0 : 1]}: ${s.refused.map((r) => `${r.title} (${r.code})`).join('; ')}\n`);
  }

  /** The result on stdout, as text or as the format's summary; false when the format has no more to say. */
  #result(s: RunSummary | OneShotSummary, shown: boolean): boolean {
    if (this.format === 'stream-json') {
      process.stdout.write(`${JSON.stringify({ type: 'result', ...s })}\n`);
      return false;
    }
    if (this.format === 'json') process.stdout.write(`${JSON.stringify(s)}\n`);
    else if (shown && s.result.trim()) process.stdout.write(`${forTerminal(s.result.trim())}\n`);
    return true;
  }

  /** A mission's end: the summary as the format wants it; a stop from outside (`stopped`) is said before the usage line. */
  finish(s: RunSummary, stopped?: string): void {
    if (!this.#result(s, true)) return;
    err(`${this.label}: mission ${s.mission_id} finished ${s.status}${s.reason ? `: ${s.reason}` : ''}. Full detail: cxl mission reports ${s.mission_id}\n`);
    this.#refused(s, ['refused or unanswered', 'refused or unanswered']);
    if (stopped) err(`${this.label}: ${stopped}\n`);
    err(`${this.label}: ${describeUsage(s)}.\n`);
  }

  /** A conversation's end: its answer on stdout, or (none) what it said last and why there is no answer on stderr. */
  finishAnswer(s: OneShotSummary, stopped?: string): void {
    if (s.is_error) this.#flush();
    this.#held = undefined;
    if (!this.#result(s, !s.is_error)) return;
    this.#refused(s, ['refused (the model carried on without it)', 'refused (the model carried on without them)']);
    if (s.is_error && !stopped) err(`${this.label}: no answer: ${s.reason ?? 'the model gave none'}\n`);
    if (stopped) err(`${this.label}: ${stopped}\n`);
    err(`${this.label}: session ${s.session_id}; ${describeUsage(s)}.\n`);
  }
}
