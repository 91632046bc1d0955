// A 500-message scripted session (a read of 4 KB per round, a user prompt every ten rounds) in
// a 32k-token window, run twice side by side: once with the agent's context budget (estimate,
// compact past 70%: elide old results, summarise), once sending the whole history every time.
// Measured in the same run: the time to build each request (estimate + compaction check + wire
// body + JSON), how it grows from the first requests to the last, the prompt tokens sent over
// the session, and the whole cost of the requests (building, compacting with its summary
// requests, sending to a local server) against sending the whole history.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SUMMARY_PROMPT } from '../src/agent/context/compaction.ts';
import { SessionContext } from '../src/agent/context/session_context.ts';
import { TokenMeter } from '../src/agent/context/tokens.ts';
import { OpenAIProvider } from '../src/agent/providers/openai.ts';
import type { ChatMessage, ToolDefinition } from '../src/agent/providers/types.ts';
import { agentSetup } from '../src/agent/setup.ts';
import { modelName } from '../src/agent/tools/tool_names.ts';
import { median, report } from './report.ts';

const MESSAGES = 500;
const WINDOW = 32_768;
const RESULT_CHARS = 4096;

// a local server that reads every request and answers at once (a summary for summary requests)
const ANSWER = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
const SUMMARY = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Summary: the agent read src/file*.ts in order for the user; nothing changed yet.' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
const probe = SUMMARY_PROMPT.slice(0, 40);
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d: string) => (body += d));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(body.includes(probe) ? SUMMARY : ANSWER);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
const provider = new OpenAIProvider({ baseUrl: base, model: 'bench' });

// the real system prompt and tool definitions
const dir = mkdtempSync(path.join(tmpdir(), 'cxl-bench-ctx-'));
const setup = await agentSetup({ cwd: dir, env: { HOME: dir, OPENAI_BASE_URL: base }, provider: 'openai', model: 'bench', command: 'bench' });
const sessionTools = await setup.buildLocalTools({ sessionId: 'bench', mode: 'default', notice: () => {}, approvals: false });
const tools: ToolDefinition[] = sessionTools.specs().map((t) => ({ name: modelName(t), description: t.description, parameters: t.inputSchema }));
const system = setup.systemPrompt(dir);

/** The scripted messages of round `i`: a prompt now and then, a call, its 4 KB result. */
function round(i: number): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (i % 10 === 0) out.push({ role: 'user', content: `Now look at the next ten files, starting with src/file${i}.ts, and tell me what they export.` });
  const file = `src/file${i}.ts`;
  out.push({ role: 'assistant', content: '', toolCalls: [{ id: `call_${i}`, name: 'read_file', arguments: JSON.stringify({ path: file }) }] });
  let text = '';
  for (let n = 0; text.length < RESULT_CHARS; n++) text += `export const value${i}_${n} = ${i * 31 + n}; // ${file}\n`;
  out.push({ role: 'tool', toolCallId: `call_${i}`, name: 'read_file', content: text, reads: [`/bench/${file}`] });
  return out;
}

interface Side {
  history: ChatMessage[];
  build: number[];
  totalMs: number;
  tokens: number;
}

const meterWhole = new TokenMeter();
const compactedMeter = new TokenMeter();
let summaryTokens = 0;
let compactMs = 0;
let compactions = 0;
let firstCompaction = -1;
const ctx = new SessionContext({
  provider: {
    // the summary requests go to the server too, counted
    name: provider.name,
    model: provider.model,
    endpoint: provider.endpoint,
    serverWindow: async () => undefined,
    chat: (req) => {
      summaryTokens += compactedMeter.estimate(req.messages, req.tools);
      return provider.chat(req);
    },
  },
  window: async () => ({ tokens: WINDOW, source: 'bench' }),
  meter: compactedMeter,
  forget: () => {},
  onUsage: () => {},
  onWarning: () => {},
  onCompaction: (phase) => void (phase === 'completed' && compactions++),
});

const ours: Side = { history: [{ role: 'system', content: system }], build: [], totalMs: 0, tokens: 0 };
const whole: Side = { history: [{ role: 'system', content: system }], build: [], totalMs: 0, tokens: 0 };

async function send(side: Side, compacted: boolean): Promise<void> {
  const t0 = performance.now();
  // the estimate and compaction check; a compaction itself is counted apart
  let check = 0;
  if (compacted) {
    const before = compactions;
    await ctx.prepare(side.history, tools);
    const ms = performance.now() - t0;
    if (compactions > before) {
      compactMs += ms;
      if (firstCompaction < 0) firstCompaction = side.build.length;
    }
    else check = ms;
  } else {
    meterWhole.estimate(side.history, tools);
    check = performance.now() - t0;
  }
  const b0 = performance.now();
  JSON.stringify(provider.body({ messages: side.history, tools }));
  side.build.push(check + (performance.now() - b0));
  side.tokens += (compacted ? compactedMeter : meterWhole).estimate(side.history, tools);
  for await (const _ of provider.chat({ messages: side.history, tools })) {
    // the answer is not used: the script decides what comes next
  }
  side.totalMs += performance.now() - t0;
}

let i = 0;
while (whole.history.length < MESSAGES) {
  for (const m of round(i)) {
    ours.history.push(m);
    whole.history.push(m);
  }
  i++;
  await send(ours, true);
  await send(whole, false);
}

// from the first full window on: before it, both sides grow alike
const first = (s: Side) => median(s.build.slice(firstCompaction, firstCompaction + 20));
const last = (s: Side) => median(s.build.slice(-20));
report({ name: `request build at ${MESSAGES} messages (estimate, compaction check, wire body, JSON)`, ours: last(ours), reference: last(whole), unit: 'ms', against: 'the whole history', target: 'flat, ≤ 0.2x' });
report({ name: `request build growth, 20 requests from the first compaction (#${firstCompaction}) → last 20 of ${i}`, ours: last(ours) / first(ours), reference: last(whole) / first(whole), unit: 'x', against: 'the whole history', target: 'ours ≈ 1' });
report({ name: `prompt tokens sent over the session (${i} requests, summaries included)`, ours: ours.tokens + summaryTokens, reference: whole.tokens, unit: 'tokens', against: 'the whole history' });
report({ name: `all ${i} requests: build + compaction (${compactions}×, ${compactMs.toFixed(0)} ms with summaries) + send`, ours: ours.totalMs, reference: whole.totalMs, unit: 'ms', against: 'sending the whole history' });

await sessionTools.close();
await setup.closeAll();
server.close();
rmSync(dir, { recursive: true, force: true });
