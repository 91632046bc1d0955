// The rules of compaction: what is elided first, that a summary replaces only the older part
// (system prompt and tool definitions untouched, the newest part verbatim, the user's request
// kept), that the read-before-write ledger forgets reads the model can no longer see, and that a
// request refused as too long is compacted and sent once more.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { elideOldResults, latestRoundStart, MIN_ELIDE_CHARS, pathsToForget, SUMMARY_HEADER, SUMMARY_PROMPT, summaryCut } from '../../../src/agent/context/compaction.ts';
import { describeCompaction, MIN_SUMMARISED_TOKENS, SessionContext, type CompactionPhase, type CompactionRecord, type UsageReport } from '../../../src/agent/context/session_context.ts';
import { TokenMeter } from '../../../src/agent/context/tokens.ts';
import { agentSetup } from '../../../src/agent/setup.ts';
import { runMission } from '../../../src/agent/unattended.ts';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import type { ChatMessage, Provider, ToolDefinition } from '../../../src/agent/providers/types.ts';
import { runTurn } from '../../../src/agent/loop/turn.ts';
import { startFakeOpenAI, type FakeServer, type Reply } from '../../fixtures/fake_models.ts';

const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const TOOLS: ToolDefinition[] = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
const big = (tag: string, n = 4000) => `${tag}:${'x'.repeat(n)}`;

/** A conversation: system, then rounds of read_file calls with results of `size` characters. */
function conversation(rounds: number, size = 4000): ChatMessage[] {
  const h: ChatMessage[] = [{ role: 'system', content: 'SYSTEM PROMPT' }, { role: 'user', content: 'read every file' }];
  for (let i = 0; i < rounds; i++) {
    h.push({ role: 'assistant', content: '', toolCalls: [{ id: `c${i}`, name: 'read_file', arguments: JSON.stringify({ path: `f${i}.txt` }) }] });
    h.push({ role: 'tool', toolCallId: `c${i}`, name: 'read_file', content: big(`f${i}`, size), reads: [`/w/f${i}.txt`] });
  }
  return h;
}

function context(provider: Provider | null, window: number, log: { usage: UsageReport[]; compactions: CompactionRecord[]; forgot: string[][]; warnings: string[] }): SessionContext {
  return new SessionContext({
    provider,
    window: async () => ({ tokens: window, source: 'test' }),
    meter: new TokenMeter(),
    forget: (p) => log.forgot.push(p),
    onUsage: (u) => void log.usage.push(u),
    onCompaction: (phase, r) => void (phase === 'completed' && log.compactions.push(r)),
    onWarning: (t) => void log.warnings.push(t),
  });
}

const newLog = () => ({ usage: [] as UsageReport[], compactions: [] as CompactionRecord[], forgot: [] as string[][], warnings: [] as string[] });

async function fake(script: Reply[] | ((body: Record<string, unknown>, n: number) => Reply), opts: Parameters<typeof startFakeOpenAI>[1] = {}): Promise<FakeServer> {
  const srv = await startFakeOpenAI(script, opts);
  cleanups.push(() => srv.close());
  return srv;
}

test('elision: oldest results first, never the latest round, never a result smaller than its stub', () => {
  const h = conversation(5);
  h.splice(4, 0, { role: 'assistant', content: '', toolCalls: [{ id: 's', name: 'stat_file', arguments: '{"path":"tiny"}' }] }, { role: 'tool', toolCallId: 's', name: 'stat_file', content: '{"size":3}' });
  const protect = latestRoundStart(h);
  assert.equal(h[protect].role, 'assistant');
  assert.equal((h[protect] as { toolCalls: Array<{ id: string }> }).toolCalls[0].id, 'c4');
  const meter = new TokenMeter();
  // ask for a little: only the oldest goes
  const one = elideOldResults(h, protect, (m) => meter.messageTokens(m), 10);
  assert.deepEqual(one.elided, [3]);
  assert.match(h[3].content, /^\[elided to save context: the result of read_file for "f0\.txt" \(4,003 characters\)\. Call read_file again with path "f0\.txt"/);
  assert.equal((h[3] as { reads?: string[] }).reads, undefined);
  // ask for everything: all old results but the small one and the latest round
  const all = elideOldResults(h, protect, (m) => meter.messageTokens(m), Infinity);
  assert.deepEqual(all.elided, [7, 9, 11]);
  assert.equal(h[5].content, '{"size":3}');
  assert.ok('{"size":3}'.length < MIN_ELIDE_CHARS);
  assert.equal(h.at(-1)!.content, big('f4'), 'the latest round is untouched');
  assert.equal(h[0].content, 'SYSTEM PROMPT');
});

test('the summary cut never separates a call from its results and keeps the latest round', () => {
  const h = conversation(6);
  const meter = new TokenMeter();
  const t = (m: ChatMessage) => meter.messageTokens(m);
  for (const keep of [0, 500, 1300, 2600, 5000, 100_000]) {
    const k = summaryCut(h, keep, t, latestRoundStart(h));
    assert.ok(k >= 1 && k <= latestRoundStart(h), `keep ${keep}: cut ${k}`);
    assert.notEqual(h[k]?.role, 'tool', `keep ${keep}: the kept part starts a round`);
  }
});

test('a summary replaces only the older part: system prompt, tool definitions and the newest messages go out unchanged', async () => {
  const srv = await fake((body) => {
    const sys = (body.messages as Array<{ role: string; content: string }>)[0];
    if (sys.content === SUMMARY_PROMPT) return { text: 'SUMMARY: read f0..f3; user wants every file read.' };
    return { text: 'ok' };
  });
  const provider = new OpenAIProvider({ baseUrl: srv.url, model: 'm' });
  const log = newLog();
  const ctx = context(provider, 8000, log);
  const h = conversation(6, 3000);
  const tail = h.slice(-4).map((m) => ({ ...m }));
  const before = ctx.estimate(h, TOOLS);
  const r = await ctx.compact(h, TOOLS, 'manual');
  assert.ok(r && r.summarised > 0, 'something was summarised');
  assert.equal(h[0].content, 'SYSTEM PROMPT');
  assert.equal(h[1].role, 'user');
  assert.ok(h[1].content.startsWith(SUMMARY_HEADER));
  assert.match(h[1].content, /SUMMARY: read f0\.\.f3/);
  // the user's request was in the summarised part: it survives verbatim
  assert.match(h[1].content, /The user's latest request, verbatim:\nread every file/);
  // the newest part is verbatim (elided results excepted, which only manual compaction elides)
  assert.deepEqual(h.slice(-2), tail.slice(-2));
  assert.ok(r.tokensAfter < before / 2, `${before} → ${r.tokensAfter}`);
  // the summary request: the fixed prompt, no tools
  const asked = srv.requests.at(-1)!;
  assert.equal((asked.messages as Array<{ content: string }>)[0].content, SUMMARY_PROMPT);
  assert.equal(asked.tools, undefined);
  // the next request carries the same tool definitions and system prompt
  const res = await runTurn({ provider, history: h, tools: () => TOOLS, runTool: async () => '', onText: async () => {}, onThought: async () => {}, signal: new AbortController().signal, maxTurns: 1, context: ctx });
  assert.equal(res.stopReason, 'end_turn');
  const next = srv.requests.at(-1)!;
  assert.equal((next.messages as Array<{ content: string }>)[0].content, 'SYSTEM PROMPT');
  assert.equal((next.tools as Array<{ function: { name: string } }>)[0].function.name, 'read_file');
  // every kept tool result still has its call
  const ids = new Set(h.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : [])));
  for (const m of h) if (m.role === 'tool') assert.ok(ids.has(m.toolCallId), `result ${m.toolCallId} lost its call`);
  // the files whose reads went away are forgotten; the one still visible is not
  const forgot = new Set(log.forgot.flat());
  assert.ok(forgot.has('/w/f0.txt'));
  assert.ok(!forgot.has('/w/f5.txt'));
});

test('when the model cannot write a summary, a list made without it stands in, and the work goes on', async () => {
  const srv = await fake((body) => ((body.messages as Array<{ content: string }>)[0].content === SUMMARY_PROMPT ? { status: 500, body: 'down' } : { text: 'ok' }));
  const provider = new OpenAIProvider({ baseUrl: srv.url, model: 'm', http: { timeouts: { connectMs: 5000, firstByteMs: 5000, idleMs: 5000 }, retry: { retries: 0, baseMs: 1, maxWaitS: 0 } } });
  const log = newLog();
  const h = conversation(6, 3000);
  const r = await context(provider, 8000, log).compact(h, TOOLS, 'manual');
  assert.ok(r);
  assert.match(r.note ?? '', /HTTP 500/);
  assert.match(h[1].content, /could not write a summary/);
  assert.match(h[1].content, /- read_file f0\.txt/);
});

/** A context whose hooks keep every phase, for the compactions that do not complete. */
function phased(provider: Provider, window: number): { ctx: SessionContext; phases: Array<[CompactionPhase, CompactionRecord]> } {
  const phases: Array<[CompactionPhase, CompactionRecord]> = [];
  const ctx = new SessionContext({
    provider,
    window: async () => ({ tokens: window, source: 'test' }),
    meter: new TokenMeter(),
    forget: () => {},
    onUsage: () => {},
    onCompaction: (phase, r) => void phases.push([phase, r]),
    onWarning: () => {},
  });
  return { ctx, phases };
}

const isSummaryRequest = (body: Record<string, unknown>) => (body.messages as Array<{ content: string }>)[0].content === SUMMARY_PROMPT;

test('a summary longer than the part it would replace is not applied, and that part is not sent to be summarised again', async () => {
  let asked = 0;
  const srv = await fake((body) => (isSummaryRequest(body) ? (asked++, { text: `SUMMARY ${'s'.repeat(9000)}` }) : { text: 'ok' }));
  const { ctx, phases } = phased(new OpenAIProvider({ baseUrl: srv.url, model: 'm' }), 8000);
  const h: ChatMessage[] = [
    { role: 'system', content: 'SYSTEM PROMPT' },
    { role: 'user', content: 'fix the bug in a.ts' },
    { role: 'assistant', content: `Which line? ${'The file has many parts. '.repeat(100)}` },
    { role: 'user', content: 'line 3' },
  ];
  const copy = structuredClone(h);
  const before = ctx.estimate(h, TOOLS);
  const r = await ctx.compact(h, TOOLS, 'manual');
  assert.equal(asked, 1);
  assert.deepEqual(h, copy, 'the history is as it was');
  assert.ok(r);
  assert.equal(r.summarised, 0);
  assert.equal(r.summary, undefined);
  assert.equal(r.tokensAfter, before);
  assert.match(r.summaryDropped ?? '', /^a summary of the 2 earlier messages would not have been shorter \(~[\d,]+ tokens against ~[\d,]+\), so they were kept as they were$/);
  assert.deepEqual(phases.map(([p]) => p), ['started', 'failed'], 'the compaction that started ends, as failed');
  assert.match(describeCompaction(r), /^Context not compacted \(\/compact\): a summary of the 2 earlier messages would not/);
  // asked again about the same part: the model is not
  assert.equal(await ctx.compact(h, TOOLS, 'manual'), undefined);
  assert.equal(asked, 1);
  // once the conversation moved on, the older part is a new one
  h.push({ role: 'assistant', content: 'Fixed.' }, { role: 'user', content: 'thanks, now b.ts' });
  await ctx.compact(h, TOOLS, 'manual');
  assert.equal(asked, 2);
});

test('a context over its threshold with a short older part asks for its summary once, not before every request', async () => {
  let asked = 0;
  const srv = await fake((body) => (isSummaryRequest(body) ? (asked++, { text: `SUMMARY ${'s'.repeat(6000)}` }) : { text: 'ok' }));
  const { ctx, phases } = phased(new OpenAIProvider({ baseUrl: srv.url, model: 'm' }), 8000);
  // the latest round (never summarised) holds most of the window: the older part is one ask
  const ask = `read big.txt; ${'it matters because of this and that. '.repeat(50)}`;
  const h: ChatMessage[] = [
    { role: 'system', content: 'SYSTEM PROMPT' },
    { role: 'user', content: ask },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"big.txt"}' }] },
    { role: 'tool', toolCallId: 'c1', name: 'read_file', content: big('big', 17000) },
  ];
  assert.ok(ctx.estimate(h, TOOLS) > 0.7 * 8000, 'past the threshold');
  const signal = new AbortController().signal;
  await ctx.prepare(h, TOOLS, signal);
  await ctx.prepare(h, TOOLS, signal);
  await ctx.prepare(h, TOOLS, signal);
  assert.equal(asked, 1);
  assert.equal(h[1].content, ask);
  assert.deepEqual(phases.map(([p]) => p), ['started', 'failed']);
});

test('an older part too small for a summary to shrink is not sent to be summarised at all', async () => {
  let asked = 0;
  const srv = await fake((body) => (isSummaryRequest(body) ? (asked++, { text: 'S' }) : { text: 'ok' }));
  const { ctx, phases } = phased(new OpenAIProvider({ baseUrl: srv.url, model: 'm' }), 8000);
  const h: ChatMessage[] = [
    { role: 'system', content: 'SYSTEM PROMPT' },
    { role: 'user', content: 'fix the bug in a.ts' },
    { role: 'assistant', content: 'Which line?' },
    { role: 'user', content: 'line 3' },
  ];
  assert.ok(new TokenMeter().messageTokens(h[1]) + new TokenMeter().messageTokens(h[2]) < MIN_SUMMARISED_TOKENS);
  assert.equal(await ctx.compact(h, TOOLS, 'manual'), undefined, 'nothing to compact');
  assert.equal(asked, 0);
  assert.deepEqual(phases, []);
});

test('a compaction cancelled while its summary is written ends cancelled, the history as it was', async () => {
  const ac = new AbortController();
  const srv = await fake((body) => (isSummaryRequest(body) ? (setTimeout(() => ac.abort(), 30), { text: 'SUMMARY', delayMs: 2000 }) : { text: 'ok' }));
  const { ctx, phases } = phased(new OpenAIProvider({ baseUrl: srv.url, model: 'm' }), 8000);
  const h = conversation(3, 500);
  const copy = structuredClone(h);
  assert.equal(await ctx.compact(h, TOOLS, 'manual', ac.signal), undefined);
  assert.deepEqual(h, copy);
  assert.deepEqual(phases.map(([p]) => p), ['started', 'cancelled']);
});

test('pathsToForget: a file stays read while another visible result still shows it', () => {
  const a = { role: 'tool' as const, toolCallId: '1', name: 'read_file', content: 'A', reads: ['/w/a', '/w/b'] };
  const b = { role: 'tool' as const, toolCallId: '2', name: 'read_file', content: 'B', reads: ['/w/b'] };
  assert.deepEqual(pathsToForget([a], [b]), ['/w/a']);
  assert.deepEqual(pathsToForget([a, b], []).sort(), ['/w/a', '/w/b']);
});

test('the read-before-write ledger forgets an elided read: a write needs a fresh read, a visible read still counts', async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-compact-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const f of ['a', 'b', 'c', 'd', 'e']) writeFileSync(path.join(dir, `${f}.txt`), `${f}\n${'line of text\n'.repeat(600)}`);
  const steps: Reply[] = [
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'b.txt' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'c.txt' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'd.txt' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'e.txt' } }] },
    // a.txt's read is elided by now; e.txt's is the latest round, still visible
    { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'from memory\n' } }, { name: 'write_file', arguments: { path: 'e.txt', content: 'rewritten\n' } }] },
    { text: 'done' },
  ];
  let step = 0;
  const srv = await fake((body) => ((body.messages as Array<{ content: string }>)[0].content === SUMMARY_PROMPT ? { text: 'summary' } : steps[Math.min(step++, steps.length - 1)]));
  const setup = await agentSetup({ cwd: dir, env: { HOME: dir, OPENAI_BASE_URL: srv.url }, provider: 'openai', model: 'm', envelope: 'auto_edit', contextWindow: '16384', command: 'cxl run' });
  cleanups.push(() => setup.closeAll());
  const progress: string[] = [];
  // an unattended mission that never finishes: the turn runs to its end (then one nudge)
  await runMission(setup, { task: 'tidy the files', intent: 'tidy the files', agent: 'run', envelope: 'auto_edit', signal: new AbortController().signal, emit: (e) => void (e.type === 'notice' && progress.push(e.text)) });
  assert.match(progress.join('\n'), /Context compacted \(the context passed its threshold\).*elided/);
  const results = (srv.requests.at(-1)!.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
  assert.match(results.at(-2)!, /"code":"not_read"/, 'the write from memory was refused');
  assert.match(results.at(-1)!, /"written":true|new_sha256/, 'the write after a visible read went through');
  assert.ok(readFileSync(path.join(dir, 'a.txt'), 'utf8').startsWith('a\n'), 'a.txt was not overwritten');
  assert.equal(readFileSync(path.join(dir, 'e.txt'), 'utf8'), 'rewritten\n');
  assert.match(results[0], /^\[elided to save context: the result of read_file for "a\.txt"/);
});

test('a request the server refuses as too long is compacted and sent once more, not ended', async () => {
  // the server's window is smaller than the one the agent believes; it names its limit
  const srv = await fake([{ text: 'answered after compaction' }], { window: 3000 });
  const provider = new OpenAIProvider({ baseUrl: srv.url, model: 'm' });
  const log = newLog();
  const ctx = context(provider, 32_768, log);
  const history = conversation(4, 3000);
  history.push({ role: 'user', content: 'and now?' });
  history.push({ role: 'assistant', content: 'Reading.', toolCalls: [{ id: 'z', name: 'read_file', arguments: '{"path":"z.txt"}' }] }, { role: 'tool', toolCallId: 'z', name: 'read_file', content: 'z' });
  let text = '';
  const res = await runTurn({ provider, history, tools: () => TOOLS, runTool: async () => '', onText: async (t) => void (text += t), onThought: async () => {}, signal: new AbortController().signal, maxTurns: 2, context: ctx });
  assert.equal(res.error, undefined, res.error?.message);
  assert.equal(text, 'answered after compaction');
  const refused = srv.requests.filter((q) => q._rejected);
  assert.equal(refused.length, 1, 'refused once');
  assert.ok(srv.requests.filter((q) => !q._rejected).every((q) => (q._tokens as number) <= 3000), 'nothing over the window after the compaction');
  assert.equal(log.compactions[0].trigger, 'too_long');
  assert.equal((await ctx.window()).tokens, 3000, 'the window learnt from the refusal');
});

test('usage: nothing before a request is answered (a failed one shows none), then the real counts after each request', async () => {
  const srv = await fake([{ toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] }, { text: 'fine' }]);
  const provider = new OpenAIProvider({ baseUrl: srv.url, model: 'm' });
  const log = newLog();
  const ctx = context(provider, 16_384, log);
  await runTurn({ provider, history: [{ role: 'system', content: 's' }, { role: 'user', content: 'hi' }], tools: () => TOOLS, runTool: async () => 'file text', onText: async () => {}, onThought: async () => {}, signal: new AbortController().signal, maxTurns: 3, context: ctx });
  assert.equal(log.usage[0].real, true, 'the first report is the first answer\'s real count');
  const real = log.usage.filter((u) => u.real);
  assert.equal(real.length, 2, 'one real report per model request');
  assert.equal(real[0].used, (srv.requests[0]._tokens as number) + 1);
  assert.ok(real.every((u) => u.size === 16_384));
  assert.equal(ctx.totals.requests, 2);
  // a server that is not there: no usage at all
  const gone = new OpenAIProvider({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
  const none = newLog();
  await runTurn({ provider: gone, history: [{ role: 'user', content: 'hi' }], tools: () => TOOLS, runTool: async () => '', onText: async () => {}, onThought: async () => {}, signal: new AbortController().signal, maxTurns: 1, context: context(gone, 16_384, none) });
  assert.deepEqual(none.usage, []);
});
