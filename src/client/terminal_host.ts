// Serves the agent's terminal/* requests: each terminal is a child process in its own process
// group, confined to the session root, with output capped by keeping the tail on a UTF-8
// boundary (ACP truncates from the beginning). Kill and release take the whole group down.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import process from 'node:process';
import { RequestError } from '@agentclientprotocol/sdk';
import { ToolError } from '../core/errors.ts';
import { confine } from '../core/paths.ts';
import { killProcessGroup } from '../core/runtime.ts';
import { childEnv } from '../core/shell/env.ts';
import type { TerminalView } from './state.ts';
import { toRequestError } from './fs_host.ts';

/** Used when the agent names no outputByteLimit, and the most we keep whatever it names. */
export const DEFAULT_TERMINAL_OUTPUT = 1024 * 1024;
export const MAX_TERMINAL_OUTPUT = 16 * 1024 * 1024;

/** The core's scrubbed environment (no credentials, no pagers) plus what the agent set. */
export function scrubbedEnv(extra: { name: string; value: string }[] = []): Record<string, string> {
  return childEnv(process.env, { extra: Object.fromEntries(extra.map((e) => [e.name, e.value])) });
}

/** Bytes kept from the end of a stream, never more than `limit`, cut on a character start. */
export class TailBuffer {
  #chunks: Buffer[] = [];
  #len = 0;
  truncated = false;
  constructor(readonly limit: number) {}

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#len += chunk.length;
    while (this.#len > this.limit) {
      this.truncated = true;
      const over = this.#len - this.limit;
      const first = this.#chunks[0];
      if (first.length <= over) {
        this.#chunks.shift();
        this.#len -= first.length;
      } else {
        let cut = over;
        while (cut < first.length && (first[cut] & 0xc0) === 0x80) cut++;
        this.#chunks[0] = first.subarray(cut);
        this.#len -= cut;
      }
    }
  }

  text(): string {
    const buf = Buffer.concat(this.#chunks, this.#len);
    let start = 0;
    while (this.truncated && start < buf.length && start < 3 && (buf[start] & 0xc0) === 0x80) start++;
    return buf.subarray(start).toString('utf8');
  }
}

interface Term {
  id: string;
  child: ChildProcess;
  out: TailBuffer;
  command: string;
  exit?: { exitCode: number | null; signal: string | null };
  exited: Promise<{ exitCode: number | null; signal: string | null }>;
  timer?: ReturnType<typeof setTimeout>;
}

export interface CreateTerminal {
  command: string;
  args?: string[] | null;
  env?: { name: string; value: string }[] | null;
  cwd?: string | null;
  outputByteLimit?: number | null;
}

export class TerminalHost {
  #terms = new Map<string, Term>();
  #seq = 0;
  constructor(
    readonly root: string,
    private readonly onChange: (view: TerminalView) => void = () => {},
  ) {}

  #get(id: string): Term {
    const t = this.#terms.get(id);
    if (!t) throw new RequestError(-32002, `No terminal ${id}: it was released or never created.`, { code: 'not_found' });
    return t;
  }

  view(t: Term): TerminalView {
    return { id: t.id, command: t.command, output: t.out.text(), truncated: t.out.truncated, exitCode: t.exit?.exitCode, signal: t.exit?.signal, done: t.exit !== undefined };
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

  create(p: CreateTerminal): string {
    let cwd = this.root;
    try {
      if (p.cwd) {
        const c = confine(this.root, p.cwd);
        if (!c.exists || !fs.statSync(c.real).isDirectory()) throw new ToolError('not_directory', `The terminal's cwd ${p.cwd} is not a directory inside the session root.`);
        cwd = c.real;
      }
    } catch (err) {
      throw toRequestError(err);
    }
    const limit = Math.min(MAX_TERMINAL_OUTPUT, p.outputByteLimit && p.outputByteLimit > 0 ? p.outputByteLimit : DEFAULT_TERMINAL_OUTPUT);
    const args = p.args ?? [];
    // A bare command line (no args) is a shell line, as a terminal would run it.
    const [cmd, argv] = args.length === 0 && /\s/.test(p.command) ? ['/bin/sh', ['-c', p.command]] : [p.command, args];
    const child = spawn(cmd, argv, { cwd, env: scrubbedEnv(p.env ?? []), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const id = `term-${++this.#seq}`;
    const out = new TailBuffer(limit);
    const shown = [p.command, ...args].join(' ');
    const t: Term = {
      id,
      child,
      out,
      command: shown,
      exited: new Promise((resolve) => {
        child.on('error', (err) => {
          out.push(Buffer.from(`${err.message}\n`));
          t.exit = { exitCode: 127, signal: null };
          this.#publish(t, true);
          resolve(t.exit);
        });
        child.on('close', (code, signal) => {
          t.exit ??= { exitCode: code, signal: signal ?? null };
          this.#publish(t, true);
          resolve(t.exit);
        });
      }),
    };
    const onData = (d: Buffer) => {
      out.push(d);
      this.#publish(t);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    this.#terms.set(id, t);
    this.#publish(t, true);
    return id;
  }

  output(id: string): { output: string; truncated: boolean; exitStatus?: { exitCode?: number | null; signal?: string | null } } {
    const t = this.#get(id);
    return { output: t.out.text(), truncated: t.out.truncated, ...(t.exit ? { exitStatus: { exitCode: t.exit.exitCode, signal: t.exit.signal } } : {}) };
  }

  async waitForExit(id: string): Promise<{ exitCode?: number | null; signal?: string | null }> {
    return await this.#get(id).exited;
  }

  kill(id: string): void {
    const t = this.#get(id);
    if (!t.exit && t.child.pid) killProcessGroup(t.child.pid, 'SIGKILL');
  }

  release(id: string): void {
    const t = this.#terms.get(id);
    if (!t) return;
    if (!t.exit && t.child.pid) killProcessGroup(t.child.pid, 'SIGKILL');
    this.#terms.delete(id);
  }

  /** Kill every terminal still running (the client is going away). */
  dispose(): void {
    for (const id of [...this.#terms.keys()]) this.release(id);
  }
}
