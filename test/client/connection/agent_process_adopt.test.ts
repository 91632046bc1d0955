// The UI adopts an agent spawned before it loaded; under Deno that process comes from Deno's own
// API (src/cli/early_agent.ts), with web streams and a status promise instead of a ChildProcess.
// A real process (sh) in its own process group: its stdout read, its stdin written and ended, its
// stderr kept for the log, its exit or signal reported as a spawned agent's is.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { test } from 'node:test';
import { AgentProcess } from '../../../src/client/connection/agent_process.ts';
import type { DenoChild } from '../../../src/core/platform/runtime.ts';

declare const Deno: { Command: new (cmd: string, o: Record<string, unknown>) => { spawn(): DenoChild } } | undefined;

/** `sh -c script` as Deno's API spawns it: under Deno that API, under Node the same shape over a ChildProcess. */
function denoStyleChild(script: string): DenoChild {
  if (typeof Deno !== 'undefined') {
    return new Deno.Command('sh', { args: ['-c', script], stdin: 'piped', stdout: 'piped', stderr: 'piped', detached: true }).spawn();
  }
  const c = spawn('sh', ['-c', script], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const status = new Promise<{ code: number; signal: string | null }>((resolve) => c.on('close', (code, signal) => resolve({ code: code ?? 128, signal })));
  return {
    pid: c.pid!,
    stdin: Writable.toWeb(c.stdin!) as WritableStream<Uint8Array>,
    stdout: Readable.toWeb(c.stdout!) as unknown as ReadableStream<Uint8Array>,
    stderr: Readable.toWeb(c.stderr!) as unknown as ReadableStream<Uint8Array>,
    status,
    kill: (s) => c.kill(s as NodeJS.Signals),
    ref: () => c.ref(),
    unref: () => c.unref(),
  };
}

async function firstLine(input: ReadableStream<Uint8Array>): Promise<string> {
  const reader = input.getReader();
  let text = '';
  while (!text.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split('\n')[0];
}

test('an adopted Deno-API process: its stdout read, stdin written then ended, stderr in the log, its exit code reported', async () => {
  const child = denoStyleChild('echo starting >&2; while IFS= read -r l; do echo "got:$l"; done; echo bye >&2; exit 3');
  const proc = new AgentProcess(['sh'], { cwd: '.', adopt: { child } });
  const { input, output } = proc.streams();
  const writer = output.getWriter();
  await writer.write(new TextEncoder().encode('ping\n'));
  writer.releaseLock();
  assert.equal(await firstLine(input), 'got:ping');
  proc.endStdin();
  const exit = await proc.exited;
  assert.deepEqual(exit, { code: 3, signal: null });
  assert.deepEqual(proc.log(), ['starting', 'bye'], 'stderr read to its end before the exit is reported');
  proc.kill('SIGKILL'); // ended: nothing is signalled (its pid may be another's by now)
});

test('an adopted Deno-API process that ignores its stdin ending is stopped with its process group, and the signal reported', async () => {
  const child = denoStyleChild('sleep 30 & wait');
  const proc = new AgentProcess(['sh'], { cwd: '.', adopt: { child } });
  proc.endStdin();
  proc.kill('SIGTERM');
  const exit = await proc.exited;
  assert.equal(exit.signal, 'SIGTERM');
  assert.equal(exit.code, null);
});
