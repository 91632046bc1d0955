// The person's `!line` as a request of the session: run in their own shell here whatever the
// agent, then kept with the session by an agent that keeps them (`_cxl/shell_run`, cxl's), so
// `--continue` and `--resume` show it again. Whether the agent keeps them is one object chosen on
// initialize (`ShellKeeping`), not a flag checked at each run.
import { METHOD_SHELL_RUN, type ShellRunMeta } from '../../core/protocol_names.ts';
import { errorText } from '../connection/request_errors.ts';
import type { Notices, SessionLink } from '../session/link.ts';
import type { ShellRunView } from '../session/views.ts';
import { contextOf, type UserShell } from './user_shell.ts';

/** What of the store the shell requests use. */
export interface ShellShelf extends Notices {
  shellUpdate(run: ShellRunView): void;
}

/** What happens to a finished run beyond the screen: kept by the agent, or only handed with the next prompt. */
export interface ShellKeeping {
  keep(run: ShellRunView): Promise<void>;
}

/** Another agent: the output goes with the next prompt only (the store holds it till then). */
export const HANDED_ONLY: ShellKeeping = { keep: () => Promise.resolve() };

/** cxl's agent keeps the run with the session, and the model still gets it with the next prompt, even in a new UI. */
export class AgentKeepsRuns implements ShellKeeping {
  constructor(private readonly link: SessionLink) {}

  async keep(run: ShellRunView): Promise<void> {
    const { conn, sessionId } = this.link;
    if (!conn || !sessionId || this.link.exited) return;
    const meta: ShellRunMeta = {
      command: run.command,
      output: run.output,
      truncated: run.truncated,
      ...(run.exitCode !== undefined ? { exitCode: run.exitCode } : {}),
      ...(run.signal !== undefined ? { signal: run.signal } : {}),
      sandbox: { state: run.sandbox.state, ...(run.sandbox.reason ? { reason: run.sandbox.reason } : {}) },
      handed: run.handed,
      ...(run.failed ? { failed: run.failed } : {}),
    };
    try {
      await conn.agent.request(METHOD_SHELL_RUN, { sessionId, run: meta, ...(run.handed ? { context: contextOf(run) } : {}) });
      if (this.link.sessionId === sessionId) this.link.markUsed();
    } catch (err) {
      this.link.note(`${METHOD_SHELL_RUN}: ${errorText(err)}`);
    }
  }
}

/** The controller's slice (`controller.shell`): `!line`, run by the person's own shell (the agent gets its output with the next prompt). */
export interface ShellControls {
  run(line: string): void;
}

export class ShellRequests implements ShellControls {
  /** chosen once the agent has said whether it keeps runs */
  keeping: ShellKeeping = HANDED_ONLY;

  constructor(
    private readonly shell: UserShell,
    private readonly store: ShellShelf,
  ) {}

  /** `!line`: one at a time; Ctrl+C stops it. */
  run(line: string): void {
    if (this.shell.running) {
      this.store.notice('warn', `Not run: “${line.split('\n')[0]}”. A shell line is still running; Ctrl+C stops it.`);
      return;
    }
    void this.shell
      .run(line, (v) => this.store.shellUpdate(v))
      .then((run) => this.keeping.keep(run))
      .catch((err) => this.store.notice('error', `Could not run “${line.split('\n')[0]}”: ${errorText(err)}.`));
  }
}
