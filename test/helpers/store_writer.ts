// Another process writing one of cxl's stores (test/fixtures/store_writer.ts), started under the
// runtime running the test: its output, when it said "started", and when it ended.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { moduleCommand } from '../../src/core/platform/runtime.ts';

const writer = fileURLToPath(new URL('../fixtures/store_writer.ts', import.meta.url));

/** `wrap`: a command line the writer runs under (a shell that sets a limit first). */
export function runWriter(args: string[], wrap: string[] = []): { done: Promise<number | null>; out: () => string; child: ReturnType<typeof spawn>; started: Promise<void> } {
  const [cmd, ...pre] = moduleCommand(writer);
  const argv = wrap.length ? [...wrap, cmd, ...pre, ...args] : [cmd, ...pre, ...args];
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let said!: () => void;
  const started = new Promise<void>((r) => (said = r));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (out.includes('started')) said();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  return { child, started, done: new Promise((r) => child.once('close', r)), out: () => out };
}
