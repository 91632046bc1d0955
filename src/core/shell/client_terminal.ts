// Terminals served by the ACP client (terminal/create, output, wait_for_exit, kill, release).
// The client is injected as a plain object so this module stays free of the protocol SDK; the
// agent side wires it to its connection. The client interleaves stdout and stderr and truncates
// from the start when over the byte limit.
import { META_NETWORK, META_OUTPUT_LIMIT, META_SANDBOX } from '../protocol_names.ts';
import type { SandboxState } from './sandbox/settings.ts';
import type { Terminal, TerminalExit, TerminalHost, TerminalOutput, TerminalRequest } from './terminal.ts';

/** ACP's default when the agent asks for no specific limit is unbounded; we always ask for one. */
export const DEFAULT_CLIENT_OUTPUT_LIMIT = 1024 * 1024;

/** The ACP client's terminal methods, parameters and results as the protocol defines them. */
export interface AcpTerminalClient {
  create(params: {
    sessionId: string;
    command: string;
    args: string[];
    env: { name: string; value: string }[];
    cwd: string;
    outputByteLimit: number;
    _meta?: Record<string, unknown>;
  }): Promise<{ terminalId: string }>;
  output(params: { sessionId: string; terminalId: string }): Promise<{
    output: string;
    truncated: boolean;
    exitStatus?: { exitCode?: number | null; signal?: string | null } | null;
  }>;
  waitForExit(params: { sessionId: string; terminalId: string }): Promise<{ exitCode?: number | null; signal?: string | null; _meta?: Record<string, unknown> | null }>;
  kill(params: { sessionId: string; terminalId: string }): Promise<unknown>;
  release(params: { sessionId: string; terminalId: string }): Promise<unknown>;
}

export interface ClientTerminalOptions {
  sessionId: string;
  /**
   * Environment variables passed to the client. The client runs programs in its own environment,
   * so by default only the no-prompt/no-pager settings go along, never this process's variables.
   */
  envNames?: string[];
  /**
   * The sandbox the client said it runs terminals in (the cxl client puts it on initialize's
   * clientCapabilities `_meta`); absent = the client reported none.
   */
  sandbox?: SandboxState;
}

const DEFAULT_CLIENT_ENV = ['GIT_TERMINAL_PROMPT', 'GIT_PAGER', 'PAGER'];

export class ClientTerminalHost implements TerminalHost {
  readonly kind = 'client' as const;

  constructor(
    private readonly client: AcpTerminalClient,
    private readonly opts: ClientTerminalOptions,
  ) {}

  /** The client runs the commands: its sandbox is the one that counts. */
  sandboxState(): SandboxState {
    return this.opts.sandbox ?? { state: 'unavailable', reason: 'the client runs the commands and reports no sandbox' };
  }

  async create(req: TerminalRequest): Promise<Terminal> {
    const names = this.opts.envNames ?? DEFAULT_CLIENT_ENV;
    const env = Object.entries(req.env)
      .filter(([k]) => names.includes(k) || req.forceEnv?.includes(k))
      .map(([name, value]) => ({ name, value }));
    const { terminalId } = await this.client.create({
      sessionId: this.opts.sessionId,
      command: req.command,
      args: req.args,
      env,
      cwd: req.cwd,
      outputByteLimit: req.outputByteLimit > 0 ? req.outputByteLimit : DEFAULT_CLIENT_OUTPUT_LIMIT,
      // the client honours a hint only when it narrows (read-only, no network, ended at the cap)
      ...(req.sandbox || req.endAtOutputLimit
        ? { _meta: { ...(req.sandbox ? { [META_SANDBOX]: req.sandbox.profile, [META_NETWORK]: req.sandbox.network } : {}), ...(req.endAtOutputLimit ? { [META_OUTPUT_LIMIT]: true } : {}) } }
        : {}),
    });
    return new ClientTerminal(this.client, this.opts.sessionId, terminalId);
  }
}

const toExit = (e: { exitCode?: number | null; signal?: string | null; _meta?: Record<string, unknown> | null }): TerminalExit => {
  const limit = e._meta?.[META_OUTPUT_LIMIT];
  return { exitCode: e.exitCode ?? null, signal: e.signal ?? null, ...(typeof limit === 'number' ? { outputLimit: limit } : {}) };
};

class ClientTerminal implements Terminal {
  private released = false;
  private exit?: TerminalExit;

  constructor(
    private readonly client: AcpTerminalClient,
    private readonly sessionId: string,
    readonly id: string,
  ) {}

  private get ref() {
    return { sessionId: this.sessionId, terminalId: this.id };
  }

  async output(): Promise<TerminalOutput> {
    const r = await this.client.output(this.ref);
    if (r.exitStatus) this.exit = toExit(r.exitStatus);
    return {
      stdout: r.output,
      stderr: '',
      truncated: r.truncated,
      // the client does not say how much it cut
      omittedBytes: 0,
      ...(this.exit ? { exitStatus: this.exit } : {}),
    };
  }

  async waitForExit(): Promise<TerminalExit> {
    this.exit = toExit(await this.client.waitForExit(this.ref));
    return this.exit;
  }

  async kill(): Promise<void> {
    if (this.released) return;
    await this.client.kill(this.ref);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.client.release(this.ref);
  }
}
