// `cxl run "<task>"`: one unattended mission of the built-in `run` agent (docs/missions.md). It
// runs here, on the workspace's local_fs and local_shell and its mission tools, under --envelope,
// else default_mission_envelope, else read_only (said on stderr); a call the envelope asks about
// is stored as an ask and waits for `cxl approvals respond` (30 minutes unless the rule says
// otherwise) instead of being refused. For one answer with no verdict, `cxl -p` (print.ts).
import { MODEL_FLAGS_HELP } from './agent_setup.ts';
import { runUnattendedCommand } from './unattended_run.ts';

const HELP = `cxl run: an unattended mission with no client

Usage: cxl run "<task>" [--envelope NAME] [--cwd DIR] [--output-format text|json|stream-json]
                        [--timeout DURATION] [--resume ID | --continue]
                        [--provider ollama|openai] [--model NAME] [--max-turns N] [--context-window N]
                        [--connect-timeout D] [--first-byte-timeout D] [--idle-timeout D]

  The task is a mission of the built-in \`run\` agent: the unit plans, reports and finishes with
  a verdict through its mission tools (for one answer and no verdict: cxl -p). "-" reads the task
  from stdin; anything else piped in is appended to the task between "--- begin piped stdin ---"
  and "--- end piped stdin ---".
  --envelope       the envelope the mission runs under (else default_mission_envelope of
                   agents.toml, else read_only: reads only, no writes or commands); stderr says which
  --cwd            the workspace (default: the current directory)
  --output-format  text (default), json (one object at the end), stream-json (one event per line)
  --timeout        bound on the whole run: 30s, 5m, 1m30s, 1h, or seconds (default: none)
  --resume ID, --continue   continue a stored session (this directory's newest with --continue)
  A call the envelope asks about waits for \`cxl approvals respond ID --approve|--deny\` from any
  terminal (30 minutes unless the rule's timeout says otherwise), then counts as denied.
${MODEL_FLAGS_HELP}

Progress goes to stderr, the result to stdout; the last stderr line is the token use.
Exit codes: 0 landed, 1 derailed or stuck, 2 usage, 3 calls it needed were refused or unanswered,
124 --timeout, 129 SIGHUP, 130 SIGINT, 143 SIGTERM. docs/missions.md has the JSON and event schemas.`;

export function main(argv: string[]): Promise<number> {
  return runUnattendedCommand({ name: 'cxl run', help: HELP, agentArgument: false }, argv);
}
