// A 40 MB file through ACP, `cxl acp` as a real child process: its tools ask the client for line
// ranges (served by the cxl UI's own fs host), a whole read or an edit is refused naming the size
// and read_file_range, and a client that answers with more than one ACP message may carry fails
// that one call: the agent goes on answering.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, openSync, closeSync, writeSync, realpathSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { FsHost } from '../../../src/client/hosts/fs_host.ts';
import { startFakeOpenAI, type Reply } from '../../fixtures/fake_models.ts';
import { Harness, type HarnessOptions } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-bigfile-')));
cleanups.push(() => rmSync(root, { recursive: true, force: true }));
const dir = path.join(root, 'project');
mkdirSync(dir);
const big = path.join(dir, 'big.log');
const LINES = 400_000;
/** line n (1-based), 100 bytes with its newline */
const lineOf = (n: number) => `line ${String(n).padStart(7, '0')} ${'x'.repeat(86)}`;
{
  const fd = openSync(big, 'w');
  for (let n = 1; n <= LINES; n += 10_000) {
    const rows: string[] = [];
    for (let i = n; i < n + 10_000; i++) rows.push(lineOf(i));
    writeSync(fd, `${rows.join('\n')}\n`);
  }
  closeSync(fd);
}

/** One tool call per prompt (the prompt's text is the call as JSON), then "done"; the tool results are kept. */
function caller(results: string[]): (body: Record<string, unknown>) => Reply {
  return (body) => {
    const msgs = body.messages as Array<{ role: string; content: string }>;
    const last = msgs.at(-1)!;
    if (last.role === 'tool') {
      results.push(last.content);
      return { text: 'done' };
    }
    const call = JSON.parse(last.content) as { name: string; arguments: Record<string, unknown> };
    return { toolCalls: [call] };
  };
}

async function agent(opts: HarnessOptions): Promise<{ h: Harness; sessionId: string; results: string[] }> {
  const results: string[] = [];
  const srv = await startFakeOpenAI(caller(results));
  const data = mkdtempSync(path.join(root, 'data-'));
  const h = new Harness({ ...opts, terminal: false, args: ['--provider', 'openai', '--model', 'm', '--context-window', '200000'], env: { HOME: root, XDG_DATA_HOME: data, OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' } });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
  });
  await h.start();
  const { sessionId } = await h.newSession(dir);
  return { h, sessionId, results };
}

const call = (name: string, args: Record<string, unknown>) => JSON.stringify({ name, arguments: { path: 'big.log', ...args } });

test('a 40 MB file is read in line ranges the client serves; a whole read and an edit are refused naming the size and read_file_range', async () => {
  // the cxl UI's fs host serves the reads: ranges of a file it would not send whole
  const host = new FsHost(dir, async () => true);
  const asked: Array<[number | null | undefined, number | null | undefined]> = [];
  const { h, sessionId, results } = await agent({
    read: (req) => {
      asked.push([req.line, req.limit]);
      return host.readTextFile(req.path, req.line, req.limit);
    },
  });
  assert.equal((await h.prompt(sessionId, call('read_file_range', { start_line: 300_000, end_line: 300_002 }))).stopReason, 'end_turn');
  assert.equal(results[0], [lineOf(300_000), lineOf(300_001), lineOf(300_002)].join('\n'));
  assert.deepEqual(asked, [[300_000, 3]]);
  // an open-ended range: asked in a bounded part, cut to the output cap with where to go on
  await h.prompt(sessionId, call('read_file_range', { start_line: 399_990 }));
  assert.equal(results[1], Array.from({ length: 11 }, (_, i) => lineOf(399_990 + i)).join('\n') + '\n');
  await h.prompt(sessionId, call('read_file_range', { start_line: 10 }));
  assert.match(results[2], /^line 0000010 /);
  assert.match(results[2].slice(-300), /Continue with read_file_range path="big\.log" start_line=\d+/);
  assert.equal(asked[2][1], 2000);
  // whole: refused before the client is asked, naming the size and read_file_range
  const before = asked.length;
  await h.prompt(sessionId, call('read_file', {}));
  assert.match(results[3], /too_large/);
  assert.match(results[3], /big\.log is 40000000 bytes/);
  assert.match(results[3], /read_file_range/);
  await h.prompt(sessionId, call('edit_file', { old_string: lineOf(5), new_string: 'changed' }));
  assert.match(results[4], /too_large/);
  assert.match(results[4], /40000000 bytes/);
  assert.equal(asked.length, before, 'the whole file was never asked for');
  assert.equal(readFileSync(big, 'utf8').slice(0, 12), 'line 0000001');
});

test('a client answer over 32 MiB fails that call with a reason; the agent goes on', async () => {
  // a client that ignores line/limit and sends the whole 40 MB file
  const { h, sessionId, results } = await agent({ read: (req) => readFileSync(req.path, 'utf8') });
  assert.equal((await h.prompt(sessionId, call('read_file_range', { start_line: 1, end_line: 2 }))).stopReason, 'end_turn');
  assert.match(results[0], /answer was \d+ bytes \(\d+\.\d MiB\), over the 32 MiB one ACP message may carry/);
  assert.match(h.stderr, /over the 32 MiB/);
  // the connection is whole: the next prompt is answered
  assert.equal((await h.prompt(sessionId, call('stat_file', {}))).stopReason, 'end_turn');
  assert.match(results[1], /40000000|38\.1/);
  assert.equal(h.child.exitCode, null);
});
