// `cxl approvals`: the asks unattended units are waiting on (docs/missions.md, "Durable asks").
// `list` first applies what time decided (expired asks denied, units whose process is gone
// reclaimed), then shows each pending ask with what a person needs to answer it: the diff, the
// steps, the request, the question. `respond` records one verdict, exactly once: the unit that
// waits on it continues; a second responder is told the verdict that stands.
import process from 'node:process';
import { answerAsk } from '../agent/missions/answer.ts';
import { AskStore, type Ask } from '../agent/missions/ask_store.ts';
import { MissionStore } from '../agent/missions/mission_store.ts';
import { sweep } from '../agent/missions/sweep.ts';
import { dataDir } from '../core/platform/data_dir.ts';
import { isToolError } from '../core/errors.ts';
import { forTerminal, showLine } from '../core/terminal_text.ts';
import { parseFlags, UsageError } from './args.ts';
import { ago, span, table } from './time_words.ts';

const HELP = `cxl approvals: the asks unattended missions wait on

Usage: cxl approvals list [--json]
       cxl approvals respond ID (--approve | --deny [--reason TEXT] | --answer "TEXT")

  list      pending asks, each with its diff, steps or question (expired asks are denied and
            units whose process is gone are reclaimed first)
  respond   record the verdict on one ask, exactly once; the unit waiting on it continues
            (a permission takes --approve or --deny, a question --answer)

Exit codes: 0 done, 1 the ask was already answered, expired or does not exist, 2 usage.`;

const out = (s: string) => process.stdout.write(forTerminal(s));

function stores() {
  const dir = dataDir(process.env);
  return { missions: new MissionStore(dir), asks: new AskStore(dir) };
}

/** A line of what is asked about, shown, never cleaned: controls and hidden characters as marks (a CRLF ending is a line ending). */
const asked = (line: string) => showLine(line.endsWith('\r') ? line.slice(0, -1) : line);

/** What a person needs to see to answer an ask. */
function shown(a: Ask): string[] {
  const lines: string[] = [];
  if (a.kind === 'question') {
    lines.push(`Question from mission ${a.missionId ?? '?'}: ${a.summary}`);
    if (a.detail) lines.push(...a.detail.split('\n').map((l) => `  ${l}`));
    return lines;
  }
  lines.push(`${a.kind === 'permission' ? 'Diff' : 'Detail'} for ${a.id} (${a.title}${a.sentence ? `; ${a.sentence}` : ''}):`);
  if (a.diff) lines.push(...(a.diff.diff ?? `(no diff: ${a.diff.reason ?? 'unknown'})`).trimEnd().split('\n').map(asked));
  if (a.fileMode) lines.push(`(the file is executable, mode ${a.fileMode}; approving keeps that mode)`);
  if (a.steps?.length) lines.push('Will run:', ...a.steps.map((s) => `  ${asked(s)}`));
  if (a.request?.length) lines.push(...a.request.map(asked));
  if (!a.diff && !a.steps?.length && !a.request?.length) lines.push(JSON.stringify(a.args ?? {}, null, 2));
  return lines;
}

async function list(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl approvals list', argv, { json: { type: 'boolean' } }, HELP);
  if (!flags) return 0;
  const s = stores();
  const damaged: string[] = [];
  const swept = await sweep(s.missions, s.asks, Date.now(), (_id, message) => damaged.push(message));
  for (const d of damaged) process.stderr.write(forTerminal(`cxl approvals list: ${d}\n`));
  const pending = swept.waiting;
  if (flags.values.json) {
    process.stdout.write(`${JSON.stringify({ asks: pending, swept: { expired: swept.expired, reclaimed: swept.reclaimed.map((m) => m.id) } })}\n`);
    return 0;
  }
  if (swept.expired) out(`Swept ${swept.expired} expired ask${swept.expired === 1 ? '' : 's'} to their on-timeout verdict (deny).\n`);
  for (const m of swept.reclaimed) out(`Reclaimed mission ${m.id} as abandoned: ${m.reason}.\n`);
  if (!pending.length) {
    out('No pending asks. An unattended mission\'s gated calls and questions (and those of cxl -p --wait-for-approvals) land here while it waits.\n');
    return 0;
  }
  const now = Date.now();
  const rows = [['ID', 'KIND', 'TOOL', 'MISSION', 'AGE', 'EXPIRES', 'SUMMARY']];
  for (const a of pending) {
    rows.push([a.id, a.kind, a.toolset ? `${a.toolset}.${a.tool}` : '-', a.missionId ?? (a.sessionId ? 'cxl -p' : '-'), ago(a.createdAt, now), a.expiresAt ? `in ${span(Date.parse(a.expiresAt) - now)}` : 'never', a.summary]);
  }
  const blocks = pending.map((a) => shown(a).join('\n'));
  out(`${table(rows)}\n\n${blocks.join('\n\n')}\n\nAnswer with \`cxl approvals respond ID --approve\` or \`--deny\`, or \`--answer "…"\` for a question.\n`);
  return 0;
}

async function respond(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl approvals respond', argv, { approve: { type: 'boolean' }, deny: { type: 'boolean' }, answer: { type: 'string' }, reason: { type: 'string' } }, HELP);
  if (!flags) return 0;
  const { values, positionals } = flags;
  if (positionals.length !== 1) throw new UsageError('cxl approvals respond: name one ask: cxl approvals respond ID --approve | --deny | --answer "…" (`cxl approvals list` shows them).');
  const picked = [values.approve === true, values.deny === true, values.answer !== undefined].filter(Boolean).length;
  if (picked !== 1) throw new UsageError('cxl approvals respond: exactly one of --approve, --deny or --answer "…" is required.');
  if (values.reason !== undefined && !values.deny) throw new UsageError('cxl approvals respond: --reason goes with --deny (the unit reads it).');
  const id = positionals[0];
  const verdict = values.approve ? 'approve' : values.deny ? 'deny' : 'answer';
  try {
    const v = answerAsk(stores().asks, id, {
      verdict,
      ...(typeof values.answer === 'string' ? { answer: values.answer } : {}),
      ...(typeof values.reason === 'string' ? { reason: values.reason } : {}),
      by: 'person',
      via: 'cli',
    });
    out(`Verdict recorded for ${id}: ${v.verdict === 'approve' ? 'approved' : v.verdict === 'deny' ? 'denied' : 'answered'}. The unit waiting on it continues.\n`);
    return 0;
  } catch (err) {
    if (!isToolError(err)) throw err;
    if (err.code === 'bad_args' && !/^".*" is not an ask id/.test(err.message)) throw new UsageError(`cxl approvals respond: ${err.message}`);
    process.stderr.write(forTerminal(`cxl approvals respond: ${err.message}\n`));
    return 1;
  }
}

export async function main(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'list') return list(rest);
  if (sub === 'respond') return respond(rest);
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(`${HELP}\n`);
    return sub === undefined ? 2 : 0;
  }
  throw new UsageError(`cxl approvals: unknown subcommand \`${sub}\`; use list or respond. Run \`cxl approvals --help\`.`);
}
