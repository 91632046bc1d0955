// What the tests of unattended missions share: a workspace with its own data dir, a model server
// on 127.0.0.1 scripted per test, `cxl` running in the background (a run that waits on an ask
// while another process answers it), and the documented schema of the headless output.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { Ajv } from 'ajv';
import { startFakeOpenAI, type FakeOptions, type FakeServer, type Reply } from '../fixtures/fake_models.ts';
import { cxlCommand, repoRoot, runCxl, type RunResult } from './cxl.ts';

export interface Workspace {
  dir: string;
  data: string;
  srv: FakeServer;
  env: Record<string, string>;
  /** `cxl <args>` in the workspace, to the end */
  cxl(args: string[], o?: { input?: string; env?: Record<string, string>; timeoutMs?: number }): Promise<RunResult>;
  close(): Promise<void>;
}

type Script = Reply[] | ((body: Record<string, unknown>, n: number) => Reply);

export async function workspace(script: Script, files: Record<string, string> = { 'notes.txt': 'one\ntwo\n' }, serverOptions: FakeOptions = {}): Promise<Workspace> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-mission-')));
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  const srv = await startFakeOpenAI(script, serverOptions);
  const env = { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' };
  return {
    dir,
    data: path.join(dir, 'data', 'cxl'),
    srv,
    env,
    cxl: (args, o = {}) => runCxl(args, { cwd: dir, env: { ...env, ...o.env }, ...(o.input !== undefined ? { input: o.input } : {}), timeoutMs: o.timeoutMs ?? 60_000 }),
    async close() {
      await srv.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The model flags every run of these tests passes. */
export const MODEL = ['--provider', 'openai', '--model', 'm'];

export interface Background {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** stdout lines with the time each arrived */
  lines: Array<{ at: number; line: string }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** `cxl <args>` started and left running; its stdin is closed (a run with nothing piped in). */
export function background(ws: Workspace, args: string[]): Background {
  const [cmd, ...pre] = cxlCommand();
  const child = spawn(cmd, [...pre, ...args], { cwd: ws.dir, env: { ...process.env, NO_COLOR: '1', ...ws.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let partial = '';
  const lines: Background['lines'] = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    partial += d;
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      lines.push({ at: Date.now(), line: partial.slice(0, nl) });
      partial = partial.slice(nl + 1);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const kill = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(kill);
      resolve({ code, signal, at: Date.now() });
    }),
  );
  return { child, stdout: () => out, stderr: () => err, lines, exited };
}

export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The pending asks, as `cxl approvals list --json` reports them. */
export async function pendingAsks(ws: Workspace): Promise<Array<Record<string, unknown>>> {
  const r = await ws.cxl(['approvals', 'list', '--json']);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { asks: Array<Record<string, unknown>> }).asks;
}

type Check = (x: unknown) => string | undefined;

/**
 * The schema docs/missions.schema.json documents, compiled: `summary` for a mission's json,
 * `event` for its stream-json lines; `oneShotSummary` and `oneShotEvent` for cxl -p's.
 */
export function schema(): { summary: Check; event: Check; oneShotSummary: Check; oneShotEvent: Check } {
  const doc = JSON.parse(fs.readFileSync(path.join(repoRoot, 'docs', 'missions.schema.json'), 'utf8'));
  const ajv = new Ajv({ allErrors: true, formats: { 'date-time': (s: string) => !Number.isNaN(Date.parse(s)) } });
  ajv.addSchema(doc, 'missions');
  const check = (ref: string) => {
    const v = ajv.getSchema(`missions#/definitions/${ref}`)!;
    return (x: unknown) => (v(x) ? undefined : ajv.errorsText(v.errors));
  };
  return { summary: check('summary'), event: check('event'), oneShotSummary: check('oneShotSummary'), oneShotEvent: check('oneShotEvent') };
}

/** Messages of one model request, as the server received them. */
export function messages(req: Record<string, unknown>): Array<{ role: string; content: string; tool_calls?: unknown }> {
  return (req.messages ?? []) as Array<{ role: string; content: string }>;
}
