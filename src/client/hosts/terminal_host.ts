// Serves the agent's terminal/* requests with the core's local terminals: each terminal is a
// child process in its own process group, in the OS sandbox when one works, confined to the
// session root, its output one interleaved stream capped by keeping the tail on a UTF-8
// boundary (ACP truncates from the beginning). Kill and release take the whole group down.
// What is specific to the client lives here: ids, cwd confinement, the shell-line rule, the
// agent's sandbox hint (honoured only when it narrows), and the live view for the screen.
import fs from 'node:fs';
import process from 'node:process';
import { RequestError } from '@agentclientprotocol/sdk';
import { ToolError } from '../../core/errors.ts';
import { confine } from '../../core/paths.ts';
import { META_NETWORK, META_OUTPUT_LIMIT, META_SANDBOX } from '../../core/protocol_names.ts';
import { childEnv } from '../../core/shell/env.ts';
import { LocalTerminalHost, type LocalTerminal } from '../../core/shell/local_terminal.ts';
import type { ProbeOptions } from '../../core/shell/sandbox/probe.ts';
import { INSTALL_HINT, isWorking, type SandboxMode, type SandboxProfile, type SandboxState, type TerminalSandbox } from '../../core/shell/sandbox/settings.ts';
import type { TerminalView } from '../session/views.ts';
import { toRequestError } from './fs_host.ts';

/** Used when the agent names no outputByteLimit, and the most we keep whatever it names. */
export const DEFAULT_TERMINAL_OUTPUT = 1024 * 1024;
export const MAX_TERMINAL_OUTPUT = 16 * 1024 * 1024;

/** The core's scrubbed environment (no credentials, no pagers) plus what the agent set. */
export function scrubbedEnv(extra: { name: string; value: string }[] = []): Record<string, string> {
  return childEnv(process.env, { extra: Object.fromEntries(extra.map((e) => [e.name, e.value])) });
}

interface Term {
  id: string;
  term: LocalTerminal;
  command: string;
  timer?: ReturnType<typeof setTimeout>;
}

export interface CreateTerminal {
  command: string;
  args?: string[] | null;
  env?: { name: string; value: string }[] | null;
  cwd?: string | null;
  outputByteLimit?: number | null;
  _meta?: Record<string, unknown> | null;
}

export interface TerminalHostOptions {
  /** `shell.sandbox` for the terminals this client runs (default auto) */
  mode?: SandboxMode;
  /** `shell.network` (default true); an agent's hint can only turn it off */
  network?: boolean;
  /** where to find the sandbox program (tests point it at a broken one) */
  probe?: Omit<ProbeOptions, 'network'>;
  /**
   * the session's additional directories, checked and canonical (the fs host's `extra`): a
   * terminal's cwd may be there, and the sandbox treats them as the root
   */
  extra?: readonly string[];
}

export class TerminalHost {
  #terms = new Map<string, Term>();
  #seq = 0;
  readonly #local: LocalTerminalHost;
  constructor(
    readonly root: string,
    private readonly onChange: (view: TerminalView) => void = () => {},
    private readonly opts: TerminalHostOptions = {},
  ) {
    // the programs the sandbox starts are chosen outside the directory its commands may write
    this.#local = new LocalTerminalHost({ probe: { ...opts.probe, roots: this.roots } });
  }

  /** The session root and its additional directories. */
  get roots(): string[] {
    return [this.root, ...(this.opts.extra ?? []).filter((d) => d !== this.root)];
  }

  /** The sandbox this client's terminals run in (what the status line and the agent are told). */
  sandboxState(): SandboxState {
    if (this.opts.mode === 'off') return { state: 'off', reason: 'shell.sandbox = "off"' };
    return this.#local.sandboxState(this.opts.network ?? true);
  }

  /** sandboxState(), the first probe run without blocking (the UI loads its screen meanwhile). */
  async sandboxStateAsync(): Promise<SandboxState> {
    if (this.opts.mode === 'off') return this.sandboxState();
    return this.#local.sandboxStateAsync(this.opts.network ?? true);
  }

  #get(id: string): Term {
    const t = this.#terms.get(id);
    if (!t) throw new RequestError(-32002, `No terminal ${id}: it was released or never created.`, { code: 'not_found' });
    return t;
  }

  view(t: Term): TerminalView {
    const s = t.term.snapshot();
    const exit = t.term.exit;
    return { id: t.id, command: t.command, output: s.stdout, truncated: s.truncated, exitCode: exit?.exitCode, signal: exit?.signal, done: exit !== undefined };
  }

  #publish(t: Term, now = false): void {
    if (now) {
      clearTimeout(t.timer);
      t.timer = undefined;
      this.onChange(this.view(t));
      return;
    }
    // Output can arrive thousands of times a second; the screen needs it a few times.
    t.timer ??= setTimeout(() => {
      t.timer = undefined;
      this.onChange(this.view(t));
    }, 50);
  }

  /** The sandbox for one terminal: the client's own setting, narrowed by the agent's hint. */
  #sandbox(p: CreateTerminal): TerminalSandbox | undefined {
    if (this.opts.mode === 'off') return undefined;
    const hint = p._meta?.[META_SANDBOX];
    const profile: SandboxProfile = hint === 'read-only' ? 'read-only' : 'workspace-write';
    const network = (this.opts.network ?? true) && p._meta?.[META_NETWORK] !== false;
    const state = this.#local.sandboxState(network);
    if (!isWorking(state)) {
      if (this.opts.mode === 'required') {
        throw new RequestError(-32603, `No sandbox can run this command (${state.reason ?? state.state}) and shell.sandbox is "required". ${INSTALL_HINT}.`, { code: 'sandbox_unavailable' });
      }
      return undefined;
    }
    return { profile, network, roots: this.roots };
  }

  create(p: CreateTerminal): string {
    let cwd = this.root;
    let sandbox: TerminalSandbox | undefined;
    try {
      if (p.cwd) {
        const c = confine(this.root, p.cwd, this.opts.extra ?? []);
        if (!c.exists || !fs.statSync(c.real).isDirectory()) throw new ToolError('not_directory', `The terminal's cwd ${p.cwd} is not a directory inside the session root${this.opts.extra?.length ? ' or its additional directories' : ''}.`);
        cwd = c.real;
      }
      sandbox = this.#sandbox(p);
    } catch (err) {
      if (err instanceof RequestError) throw err;
      throw toRequestError(err);
    }
    const limit = Math.min(MAX_TERMINAL_OUTPUT, p.outputByteLimit && p.outputByteLimit > 0 ? p.outputByteLimit : DEFAULT_TERMINAL_OUTPUT);
    const args = p.args ?? [];
    // A bare command line (no args) is a shell line, as a terminal would run it.
    const [cmd, argv] = args.length === 0 && /\s/.test(p.command) ? ['/bin/sh', ['-c', p.command]] : [p.command, args];
    const id = `term-${++this.#seq}`;
    let t: Term | undefined;
    const term = this.#local.createSync(
      // ending a command at the cap narrows what it may do: honoured when asked (cxl's agent asks)
      { command: cmd, args: argv, cwd, env: scrubbedEnv(p.env ?? []), outputByteLimit: limit, ...(p._meta?.[META_OUTPUT_LIMIT] === true ? { endAtOutputLimit: true } : {}), ...(sandbox ? { sandbox } : {}) },
      { interleave: true, onChange: () => t && this.#publish(t, t.term.exit !== undefined) },
    );
    t = { id, term, command: [p.command, ...args].join(' ') };
    this.#terms.set(id, t);
    this.#publish(t, true);
    return id;
  }

  output(id: string): { output: string; truncated: boolean; exitStatus?: { exitCode?: number | null; signal?: string | null } } {
    const t = this.#get(id);
    const s = t.term.snapshot();
    const exit = t.term.exit;
    return { output: s.stdout, truncated: s.truncated, ...(exit ? { exitStatus: { exitCode: exit.exitCode, signal: exit.signal } } : {}) };
  }

  async waitForExit(id: string): Promise<{ exitCode?: number | null; signal?: string | null; _meta?: Record<string, unknown> }> {
    const e = await this.#get(id).term.waitForExit();
    return { exitCode: e.exitCode, signal: e.signal, ...(e.outputLimit !== undefined ? { _meta: { [META_OUTPUT_LIMIT]: e.outputLimit } } : {}) };
  }

  kill(id: string): void {
    this.#get(id).term.killNow();
  }

  release(id: string): void {
    const t = this.#terms.get(id);
    if (!t) return;
    t.term.killNow();
    clearTimeout(t.timer);
    this.#terms.delete(id);
  }

  /** Kill every terminal still running (the client is going away). */
  dispose(): void {
    for (const id of [...this.#terms.keys()]) this.release(id);
  }
}
