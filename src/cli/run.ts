// `cxl run "<task>"`: one unattended prompt with no client. local_fs works on the workspace (the
// cwd), local_shell on this machine; nobody can answer an approval, so approve counts as deny.
// Progress goes to stderr, the final answer to stdout; exit 0 only when the run ended normally.
import process from 'node:process';
import { describeUsage, runUnattended } from '../agent/unattended.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { parseDuration } from '../core/duration.ts';
import { onTerminate } from '../core/platform/runtime.ts';
import { setupFromFlags, AGENT_FLAGS, MODEL_FLAGS_HELP } from './agent_setup.ts';
import { parseFlags, UsageError } from './args.ts';

const HELP = `cxl run: an unattended run with no client

Usage: cxl run "<task>" [--provider ollama|openai] [--model NAME] [--envelope NAME]
                        [--timeout DURATION] [--max-turns N] [--context-window N]
                        [--connect-timeout D] [--first-byte-timeout D] [--idle-timeout D]

  The workspace is the current directory. Approvals cannot be answered, so a call the envelope
  would ask about is refused (approval_required) and the model is told so.
  --timeout    bound on the whole run: 30s, 5m, 1m30s, 1h, or seconds (default: none)
${MODEL_FLAGS_HELP}

Progress goes to stderr, the final answer to stdout; the last stderr line is the token use.
Exit codes: 0 ended normally, 1 provider error / turn or token limit, 2 usage, 124 timeout, 130 interrupted.`;

/** --timeout in ms, read like every other duration in cxl (core/duration.ts). */
function timeoutFlag(s: string): number {
  if (s.trim() === '0') return 0; // no bound, as when the flag is absent
  const ms = parseDuration(s);
  if (ms === undefined) throw new UsageError(`cxl run: --timeout ${JSON.stringify(s)} is not a duration; use e.g. 30s, 5m, 1m30s, 1h or a number of seconds.`);
  return ms;
}

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl run', argv, {
    ...AGENT_FLAGS,
    timeout: { type: 'string' },
  }, HELP);
  if (!flags) return 0;
  const { values, positionals } = flags;
  const task = positionals.join(' ').trim();
  if (!task) throw new UsageError('cxl run: give the task as an argument, e.g. cxl run "summarise README.md". Run `cxl run --help`.');
  const timeoutMs = typeof values.timeout === 'string' ? timeoutFlag(values.timeout) : 0;
  const setup = await setupFromFlags('cxl run', values);
  // everything printed passes the one sanitiser: a model's answer, a file's or a command's text
  // in a progress line, an argument with `\r` in it (core/terminal_text.ts)
  const err = (s: string) => process.stderr.write(forTerminal(s));
  const ctrl = new AbortController();
  let why: 'timeout' | 'interrupted' | undefined;
  const timer = timeoutMs > 0 ? setTimeout(() => ((why = 'timeout'), ctrl.abort()), timeoutMs) : undefined;
  const off = onTerminate(() => {
    why = 'interrupted';
    ctrl.abort();
  });
  try {
    const r = await runUnattended(setup, task, { signal: ctrl.signal, progress: err });
    const answer = forTerminal(r.answer ?? '');
    if (answer) process.stdout.write(answer.endsWith('\n') ? answer : `${answer}\n`);
    if (r.usage) err(`cxl run: ${describeUsage(r.usage)}.\n`);
    if (why === 'timeout') {
      err(`cxl run: stopped after the --timeout of ${values.timeout}.\n`);
      return 124;
    }
    if (why === 'interrupted') return 130;
    if (r.error) {
      err(`cxl run: ${r.error}\n`);
      return 1;
    }
    if (r.stopReason !== 'end_turn') {
      err(`cxl run: the run ended with ${r.stopReason}.\n`);
      return 1;
    }
    return 0;
  } finally {
    if (timer) clearTimeout(timer);
    off();
    await setup.closeAll();
  }
}
