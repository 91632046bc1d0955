// How an unattended run is shown (`--output-format`, docs/missions.md "Headless output"):
//   text         progress lines on stderr as it happens, the result on stdout, then the verdict
//                and, last, the token use on stderr
//   json         the same progress on stderr; stdout is one JSON object at the end (the summary)
//   stream-json  stdout is one JSON event per line as it happens, ending with the summary
// Everything meant for a terminal passes the one sanitiser (core/terminal_text.ts); JSON is JSON.
import process from 'node:process';
import type { RunEvent, RunSummary } from '../agent/units/events.ts';
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

/** One event as a progress line (or none). */
export function progressLine(e: RunEvent, label: string): string | undefined {
  switch (e.type) {
    case 'init':
      return `${label}: mission ${e.mission_id} (agent ${e.agent}, envelope ${e.envelope}, session ${e.session_id}${e.resumed ? ', resumed' : ''})`;
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
export function describeUsage(s: RunSummary): string {
  const u = s.usage;
  const n = (x: number) => x.toLocaleString('en-US');
  const ctx = u.context ? `context ${u.context.estimated ? '~' : ''}${n(u.context.used)} of ${n(u.context.size)} tokens (${Math.round((100 * u.context.used) / u.context.size)}%)` : 'no model request';
  const counted = u.prompt_tokens || u.completion_tokens ? `; ${n(u.prompt_tokens)} prompt + ${n(u.completion_tokens)} completion tokens in all` : '; the server reported no token counts';
  return `${ctx}; ${u.requests} model request${u.requests === 1 ? '' : 's'}${u.requests ? counted : ''}${u.compactions ? `; ${u.compactions} compaction${u.compactions === 1 ? '' : 's'}` : ''}`;
}

/** Prints a run's events and summary in one format. */
export class RunPrinter {
  constructor(
    private readonly format: OutputFormat,
    private readonly label: string,
  ) {}

  readonly event = (e: RunEvent): void => {
    if (this.format === 'stream-json') {
      process.stdout.write(`${JSON.stringify(e)}\n`);
      return;
    }
    const line = progressLine(e, this.label);
    if (line) err(line.endsWith('\n') ? line : `${line}\n`);
  };

  /** The end: the summary as the format wants it; a stop from outside (`stopped`) is said before the usage line. */
  finish(s: RunSummary, stopped?: string): void {
    if (this.format === 'stream-json') return this.event({ type: 'result', ...s });
    if (this.format === 'json') process.stdout.write(`${JSON.stringify(s)}\n`);
    else if (s.result.trim()) {
      const text = forTerminal(s.result.trim());
      process.stdout.write(`${text}\n`);
    }
    err(`${this.label}: mission ${s.mission_id} finished ${s.status}${s.reason ? `: ${s.reason}` : ''}. Full detail: cxl mission reports ${s.mission_id}\n`);
    if (s.refused.length) err(`${this.label}: ${s.refused.length} call${s.refused.length === 1 ? ' was' : 's were'} refused or unanswered: ${s.refused.map((r) => `${r.title} (${r.code})`).join('; ')}\n`);
    if (stopped) err(`${this.label}: ${stopped}\n`);
    err(`${this.label}: ${describeUsage(s)}.\n`);
  }
}
