// The save cost of one prompt at prompt 10 and at prompt 250 of a session whose context is
// compacted as it goes (src/agent/sessions/store.ts): a compaction is a few splice lines in the
// log, not a rewrite of everything before it, so a prompt's saves should cost the same late in a
// long session as early. Each prompt is a user message, three tool calls (~2 KB results) and an
// answer, saved after each step as the agent does; every time the history passes 60 entries the
// old tool results are elided in place and the older half summarised (what agent/context does).
// The reference, in the same run: the same prompt saved as sessions were before the log, the
// whole session rewritten (JSON, temp file, rename), at prompt 10 and at prompt 250.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import type { ChatMessage } from '../src/agent/providers/types.ts';
import { SessionStore, type SessionLog, type StoredSession } from '../src/agent/sessions/store.ts';
import { replaceFileSync } from '../src/core/platform/atomic_file.ts';
import { report } from './report.ts';

const PROMPTS = 260;
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-compact-')));

function session(id: string): StoredSession {
  return { version: 1, sessionId: id, cwd: '/w', createdAt: new Date().toISOString(), updatedAt: '', mode: 'default', history: [{ role: 'system', content: 'You are a coding agent.' }], replay: [], allows: [] };
}

let seq = 0;
/** One prompt, saved step by step through `save`; returns the ms spent saving. */
async function prompt(s: StoredSession, save: () => Promise<void> | void): Promise<number> {
  let ms = 0;
  const timed = async () => {
    const t = performance.now();
    await save();
    ms += performance.now() - t;
  };
  const n = ++seq;
  s.history.push({ role: 'user', content: `prompt ${n}: make module ${n} faster` });
  s.replay.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: `prompt ${n}` } });
  for (let k = 0; k < 3; k++) {
    const id = `call_${n}_${k}`;
    const result = `export function f${n}_${k}(x: number): number {\n  return x * ${n};\n}\n`.repeat(18);
    s.history.push({ role: 'assistant', content: '', toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path: `src/m${n}_${k}.ts` }) }] }, { role: 'tool', toolCallId: id, name: 'read_file', content: result });
    s.replay.push({ sessionUpdate: 'tool_call', toolCallId: id, title: `read src/m${n}_${k}.ts`, kind: 'read', status: 'completed' });
    await timed();
  }
  s.history.push({ role: 'assistant', content: `Module ${n} is faster now.` });
  s.replay.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `Module ${n} is faster now.` } });
  await timed();
  return ms;
}

/** What the context's compaction does once the history is long: old results elided in place, the older half summarised. */
function compact(s: StoredSession, log?: SessionLog): void {
  const h = s.history;
  if (h.length < 60) return;
  for (let i = 1; i < h.length - 10; i++) {
    const m = h[i];
    if (m.role === 'tool' && !m.content.startsWith('[elided')) h[i] = { ...m, content: '[elided: re-read the file if needed]' };
  }
  log?.historyRewritten();
  const cut = Math.floor(h.length / 2);
  const summary: ChatMessage = { role: 'user', content: `Summary of ${cut - 1} earlier entries: modules were made faster.` };
  if (log) log.spliceHistory(1, cut - 1, summary);
  else h.splice(1, cut - 1, summary);
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

try {
  const store = new SessionStore(path.join(base, 'data'));
  const ours = session('ours');
  const theirs = session('theirs');
  const log = await store.create(ours);
  const wholeFile = path.join(base, 'theirs.json');
  const oursMs: number[] = [];
  const theirsMs: number[] = [];
  for (let p = 1; p <= PROMPTS; p++) {
    // alternate, so drift in machine load hits both alike
    oursMs.push(await prompt(ours, () => log.checkpoint({ durable: false })));
    theirsMs.push(await prompt(theirs, () => replaceFileSync(wholeFile, JSON.stringify(theirs), { mode: 0o600 })));
    compact(ours, log);
    compact(theirs);
    if (p % 10 === 0) await log.checkpoint({ durable: false });
  }
  if (log.problem) throw new Error(log.problem.message);
  const back = await store.load('ours');
  if (JSON.stringify(back?.history) !== JSON.stringify(ours.history) || back?.replay.length !== ours.replay.length) throw new Error('the log did not hold what was saved');
  await log.close();
  // a prompt's cost around prompt 10 and around prompt 250 (nine prompts each, so a periodic compaction counts as it falls)
  const at = (xs: number[], p: number) => mean(xs.slice(p - 5, p + 4));
  const [o10, o250, t10, t250] = [at(oursMs, 10), at(oursMs, 250), at(theirsMs, 10), at(theirsMs, 250)];
  report({ name: 'saves of one prompt at prompt 10, compaction on', ours: o10, reference: t10, unit: 'ms', against: 'whole-session rewrite per save' });
  report({ name: 'saves of one prompt at prompt 250, compaction on', ours: o250, reference: t250, unit: 'ms', against: 'whole-session rewrite per save' });
  report({ name: 'per-prompt save cost, prompt 250 over prompt 10, compaction on', ours: o250 / o10, reference: t250 / t10, unit: 'x', against: 'the same growth of the whole-session rewrite', target: 'ours ≤ 1.5 (flat)' });
  const size = fs.statSync(path.join(store.dir, 'ours.jsonl')).size;
  process.stdout.write(`# log ${(size / 1e6).toFixed(2)} MB after ${PROMPTS} prompts; whole session ${(fs.statSync(wholeFile).size / 1e6).toFixed(2)} MB\n`);
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
