// `cxl -p "<prompt>"`: a one-shot conversation, as `claude -p` is (docs/missions.md, "cxl -p"):
// the prompt, and what is piped in, to the model with the workspace's tools; the answer on
// stdout, exit 0 when the model answered. No flag is needed: it runs under --envelope, else
// default_envelope, else read_only, and says which on stderr. A call the envelope asks about is
// refused at once (the model reads why and carries on), unless --wait-for-approvals stores it for
// `cxl approvals respond`. The session is stored, so `cxl --resume ID` opens it.
import { runOneShot } from '../agent/one_shot.ts';
import { addDirFlag } from './add_dir.ts';
import { MODEL_FLAGS_HELP, setupFromFlags } from './agent_setup.ts';
import { parseFlags, UsageError } from './args.ts';
import { chooseEnvelope } from './envelope_choice.ts';
import { outputFormat, RunPrinter } from './run_output.ts';
import { runStop } from './run_stop.ts';
import { taskInput } from './stdin_text.ts';
import { resumed, timeoutFlag, UNATTENDED_FLAGS, workspace } from './unattended_run.ts';

const NAME = 'cxl -p';

const HELP = `cxl -p: one prompt, one answer, no UI (as claude -p)

Usage: cxl -p "<prompt>" [--envelope NAME] [--wait-for-approvals] [--cwd DIR] [--add-dir DIR]...
                         [--output-format text|json|stream-json] [--timeout DURATION]
                         [--resume ID | --continue]
                         [--provider ollama|openai] [--model NAME] [--max-turns N] [--context-window N]
                         [--connect-timeout D] [--first-byte-timeout D] [--idle-timeout D]

  The prompt goes to the model with the workspace's tools (files, shell, native-git, native-jq,
  native-go); the model's answer is printed on stdout. Anything piped in rides after the prompt
  between "--- begin piped stdin ---" and "--- end piped stdin ---"; with no prompt, what is
  piped in is the prompt ("-" reads the prompt from stdin too).
  --envelope       what the model may do (else default_envelope of agents.toml, else read_only:
                   reads only, no writes or commands); stderr says which, and why
  --wait-for-approvals
                   a call the envelope asks about waits for \`cxl approvals respond ID\` from any
                   terminal (30 minutes unless the rule's timeout says otherwise); without it the
                   call is refused at once, and the model reads why and carries on without it
  --cwd            the workspace (default: the current directory)
  --add-dir        another directory the tools reach as they reach the workspace (repeatable);
                   a continued session has the ones given this time, none when none is given
  --output-format  text (default), json (one object at the end), stream-json (one event per line)
  --timeout        bound on the whole run: 30s, 5m, 1m30s, 1h, or seconds (default: none)
  --resume ID, --continue   continue a stored session (this directory's newest with --continue);
                   the session is stored as the UI's are: \`cxl --resume ID\` opens it there
${MODEL_FLAGS_HELP}

Progress goes to stderr, the answer to stdout; the last stderr line names the session and the
token use. Exit codes: 0 the model answered, 1 no answer (no model reachable, the turn limit, an
empty answer), 2 usage, 124 --timeout, 129 SIGHUP, 130 SIGINT, 143 SIGTERM.
docs/missions.md has the JSON and event schemas.`;

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags(NAME, argv, { ...UNATTENDED_FLAGS, 'wait-for-approvals': { type: 'boolean' }, 'add-dir': { type: 'string', multiple: true } }, HELP);
  if (!flags) return 0;
  const { values, positionals } = flags;
  const format = outputFormat(NAME, values['output-format']);
  const timeoutText = values.timeout as string | undefined;
  const timeoutMs = timeoutText !== undefined ? timeoutFlag(NAME, timeoutText) : 0;
  const cwd = workspace(NAME, values.cwd);
  const extraDirs = addDirFlag(NAME, values['add-dir'], cwd);
  const input = await taskInput(positionals, { pipedAlone: true });
  if (!input) throw new UsageError(`${NAME}: give the prompt, e.g. cxl -p "summarise src/" (or pipe it in). Run \`cxl -p --help\`.`);
  const setup = await setupFromFlags(NAME, values, { cwd });
  try {
    const envelope = chooseEnvelope(NAME, values.envelope as string | undefined, setup.configuredEnvelope, 'default_envelope', setup.modes.map((m) => m.id));
    const resume = await resumed(NAME, setup, values, cwd);
    const printer = new RunPrinter(format, NAME, { answerOnStdout: true, ...(envelope.why ? { envelopeWhy: envelope.why } : {}) });
    const stop = runStop(timeoutMs, timeoutText);
    try {
      const s = await runOneShot(setup, {
        prompt: input.text,
        shown: input.pipedBytes ? `${input.typed}\n(+ ${input.pipedBytes} bytes piped stdin)` : input.typed,
        envelope: envelope.name,
        ...(resume ? { resume } : {}),
        extraDirs,
        waitForApprovals: values['wait-for-approvals'] === true,
        signal: stop.signal,
        emit: printer.event,
      });
      const code = stop.code(s.exit_code);
      printer.finishAnswer({ ...s, exit_code: code, is_error: code !== 0 }, stop.said());
      return code;
    } finally {
      stop.dispose();
    }
  } finally {
    await setup.closeAll();
  }
}
