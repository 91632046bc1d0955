// The rules of compaction, as functions over a conversation (a ChatMessage array whose first
// message is the system prompt):
// 1. elision: old tool results are replaced in place by a stub that names the tool, its path or
//    arguments and how to get the result back; oldest first, never the latest round (the results
//    the model has not answered yet), never a result smaller than its stub would be;
// 2. summary: the older part of the conversation is replaced by one message the model writes
//    from a fixed prompt (SUMMARY_PROMPT), keeping the newest part verbatim; the cut never
//    separates a tool call from its results, and the user's latest request survives verbatim;
// 3. what the model can no longer see is no longer read: pathsToForget lists the files whose
//    only visible reads were elided or summarised away, for the read-before-write ledger.
// The system prompt (and the tool definitions, which are not messages) are never cut.
import type { ChatMessage, ModelToolCall, Provider } from '../providers/types.ts';

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/** A result shorter than this is left alone: its stub would save nothing. */
export const MIN_ELIDE_CHARS = 600;

/**
 * Where the latest round starts: the last assistant message with tool calls when only its results
 * follow it, else the end. Nothing from there on is elided or summarised.
 */
export function latestRoundStart(history: ChatMessage[]): number {
  let i = history.length;
  while (i > 1 && history[i - 1].role === 'tool') i--;
  if (i < history.length && i > 1 && history[i - 1].role === 'assistant') return i - 1;
  return history.length;
}

/** The call a tool result answers, looked up in the assistant messages before it. */
function callOf(history: ChatMessage[], index: number): ModelToolCall | undefined {
  const id = (history[index] as ToolMessage).toolCallId;
  for (let i = index - 1; i >= 0; i--) {
    const m = history[i];
    if (m.role === 'assistant' && m.toolCalls) {
      const c = m.toolCalls.find((x) => x.id === id);
      if (c) return c;
    }
  }
  return undefined;
}

function argsOf(call: ModelToolCall | undefined): Record<string, unknown> {
  if (!call) return {};
  try {
    const a: unknown = JSON.parse(call.arguments);
    return a && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The stub an elided result becomes. */
export function elisionStub(m: ToolMessage, call: ModelToolCall | undefined): string {
  const a = argsOf(call);
  const size = `${m.content.length.toLocaleString('en-US')} characters`;
  const tool = m.name;
  if (typeof a.path === 'string') {
    const again = /read_file|read_file_range/.test(tool) ? `Call ${tool} again with path ${JSON.stringify(a.path)}` : `Call ${tool} again with the same arguments`;
    return `[elided to save context: the result of ${tool} for ${JSON.stringify(a.path)} (${size}). ${again} if you need it; the file counts as not read until then.]`;
  }
  if (typeof a.command === 'string') {
    return `[elided to save context: the output of ${tool} \`${a.command.slice(0, 120)}\` (${size}). Run it again if you need it.]`;
  }
  const shown = call ? ` ${call.arguments.slice(0, 120)}` : '';
  return `[elided to save context: the result of ${tool}${shown} (${size}). Call it again with the same arguments if you need it.]`;
}

export interface ElideResult {
  /** indexes of the results elided */
  elided: number[];
  /** the replaced messages, for pathsToForget */
  removed: ChatMessage[];
}

/**
 * Elides tool results in place, oldest first, before `protectFrom`, until `overBy` tokens are
 * saved (all of them when `all`). `tokensOf` counts a message (cached per message object).
 */
export function elideOldResults(history: ChatMessage[], protectFrom: number, tokensOf: (m: ChatMessage) => number, overBy: number, all = false): ElideResult {
  const out: ElideResult = { elided: [], removed: [] };
  let over = overBy;
  for (let i = 1; i < protectFrom; i++) {
    if (!all && over <= 0) break;
    const m = history[i];
    if (m.role !== 'tool' || m.elided || m.content.length < MIN_ELIDE_CHARS) continue;
    const stub = elisionStub(m, callOf(history, i));
    const { reads: _reads, ...rest } = m;
    const next: ChatMessage = { ...rest, content: stub, elided: true };
    over -= tokensOf(m) - tokensOf(next);
    out.removed.push(m);
    history[i] = next;
    out.elided.push(i);
  }
  return out;
}

/**
 * Where the kept part starts when summarising: the earliest index whose tail fits `keepTokens`,
 * moved forward until it starts a round (not a tool result), and never after `protectFrom`.
 * 1 or less means there is nothing to summarise.
 */
export function summaryCut(history: ChatMessage[], keepTokens: number, tokensOf: (m: ChatMessage) => number, protectFrom: number): number {
  let k = history.length;
  let sum = 0;
  while (k > 1 && sum + tokensOf(history[k - 1]) <= keepTokens) {
    sum += tokensOf(history[k - 1]);
    k--;
  }
  k = Math.min(k, protectFrom);
  // results whose call is summarised go with it (protectFrom itself starts a round)
  while (k < protectFrom && history[k].role === 'tool') k++;
  return k;
}

/** The fixed instructions the model summarises with (docs/acp.md quotes them). */
export const SUMMARY_PROMPT = [
  'You are compacting the earlier part of a coding session between a user and an AI coding agent, so the agent can go on working in a smaller context window.',
  'Write the summary the agent will read instead of that part. Keep:',
  '- the user\'s goals, requests and constraints (quote short ones exactly);',
  '- decisions made, and why;',
  '- every file read, created or changed (exact paths), and what was learned or changed in it;',
  '- commands run and what came of them, errors included;',
  '- what is still to do.',
  'Leave out pleasantries, whole file contents and long outputs. Plain text, short sections. Do not call tools and do not continue the work.',
].join('\n');

/** A conversation as plain text for the summariser; each tool result cut to `perResult` characters. */
export function transcript(messages: ChatMessage[], perResult: number): string {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'user') out.push(`${m.summary ? 'Summary of what came before' : 'User'}:\n${m.content}`);
    else if (m.role === 'assistant') {
      const calls = (m.toolCalls ?? []).map((c) => `[calls ${c.name} ${c.arguments.length > 300 ? `${c.arguments.slice(0, 300)}…` : c.arguments}]`);
      out.push(`Agent:\n${[m.content, ...calls].filter(Boolean).join('\n')}`);
    } else {
      const cut = m.content.length > perResult ? `${m.content.slice(0, perResult)}\n… (${m.content.length - perResult} more characters)` : m.content;
      out.push(`Result of ${m.name}:\n${cut}`);
    }
  }
  return out.join('\n\n');
}

/** Splits `text` into pieces of at most `max` characters, at blank lines where it can. */
export function chunks(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let at = rest.lastIndexOf('\n\n', max);
    if (at < max / 2) at = max;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\n+/, '');
  }
  if (rest) out.push(rest);
  return out;
}

/**
 * Asks the model for a summary of `older`: one request per piece that fits `inputChars`, each
 * folding the summary so far into the next. Reasoning is ignored; throws the provider's error.
 */
export async function writeSummary(provider: Provider, older: ChatMessage[], o: { inputChars: number; maxTokens: number; contextWindow: number; signal?: AbortSignal }): Promise<string> {
  let perResult = 1500;
  let pieces = chunks(transcript(older, perResult), o.inputChars);
  // keep the work bounded: cut results shorter before asking more than four times
  while (pieces.length > 4 && perResult > 100) {
    perResult = Math.floor(perResult / 3);
    pieces = chunks(transcript(older, perResult), o.inputChars);
  }
  let summary = '';
  for (const piece of pieces) {
    const user = `${summary ? `The summary so far:\n${summary}\n\nThe conversation continues:\n` : 'The conversation to summarise:\n'}${piece}`;
    let text = '';
    for await (const ev of provider.chat({ messages: [{ role: 'system', content: SUMMARY_PROMPT }, { role: 'user', content: user }], tools: [], signal: o.signal, maxTokens: o.maxTokens, contextWindow: o.contextWindow })) {
      if (ev.type === 'text') text += ev.text;
    }
    if (text.trim()) summary = text.trim();
  }
  return summary;
}

/** When the model cannot write one: what the user asked and which tools ran on what. */
export function mechanicalSummary(older: ChatMessage[]): string {
  const asks: string[] = [];
  const did: string[] = [];
  for (const m of older) {
    if (m.role === 'user') asks.push(m.summary ? m.content : `- ${m.content.slice(0, 300)}`);
    if (m.role === 'assistant') {
      for (const c of m.toolCalls ?? []) {
        const a = argsOf(c);
        const what = typeof a.path === 'string' ? a.path : typeof a.command === 'string' ? a.command : c.arguments.slice(0, 80);
        did.push(`- ${c.name} ${what}`);
      }
    }
  }
  const tools = did.length > 40 ? [...did.slice(0, 10), `- … ${did.length - 20} more calls …`, ...did.slice(-10)] : did;
  return [`(The model could not write a summary; this list was made without it.)`, asks.length ? `Requests:\n${asks.join('\n')}` : '', tools.length ? `Tool calls:\n${tools.join('\n')}` : ''].filter(Boolean).join('\n\n');
}

export const SUMMARY_HEADER = '[Summary of the earlier conversation, written when the context was compacted. Its full text is gone: read files again before changing them.]';

/**
 * Replaces history[1..cut) by one summary message. When the kept part starts with a user message
 * the two are merged (some chat templates refuse two user messages in a row); the user's latest
 * request, if it was in the summarised part, is repeated verbatim.
 */
export function replaceWithSummary(history: ChatMessage[], cut: number, summary: string): ChatMessage[] {
  const older = history.slice(1, cut);
  let lastAsk: string | undefined;
  for (const m of older) if (m.role === 'user' && !m.summary) lastAsk = m.content;
  const keptAsk = history.slice(cut).some((m) => m.role === 'user' && !m.summary);
  let content = `${SUMMARY_HEADER}\n\n${summary}`;
  if (lastAsk && !keptAsk) content += `\n\nThe user's latest request, verbatim:\n${lastAsk}`;
  const next = history[cut];
  if (next?.role === 'user') {
    history.splice(1, cut, { role: 'user', content: `${content}\n\n---\n\n${next.content}`, summary: true });
    return [...older, next];
  }
  history.splice(1, cut - 1, { role: 'user', content, summary: true });
  return older;
}

function readsOf(m: ChatMessage): string[] {
  return (m.role === 'tool' || m.role === 'assistant') && m.reads ? m.reads : [];
}

/** Files read only in `removed` messages: the model cannot see their content any more. */
export function pathsToForget(removed: ChatMessage[], history: ChatMessage[]): string[] {
  const gone = new Set(removed.flatMap(readsOf));
  if (!gone.size) return [];
  for (const m of history) for (const p of readsOf(m)) gone.delete(p);
  return [...gone];
}
