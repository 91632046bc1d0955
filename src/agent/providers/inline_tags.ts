// What models write inline in their text when the server does not parse it out:
// - reasoning as <think>…</think> (qwen3 on llama.cpp, vLLM without a reasoning parser, older
//   Ollama);
// - tool calls as <tool_call>{"name": …, "arguments": {…}}</tool_call> (Qwen and Hermes templates
//   on llama.cpp without --jinja, LM Studio), or Qwen3-Coder's
//   <tool_call><function=NAME><parameter=KEY>value</parameter></function></tool_call>.
// InlineTags splits a stream of text chunks into text, reasoning and call pieces, with tags that
// may straddle chunk boundaries; parseToolCallText turns a call piece into a tool call, and
// pieceEvents turns pieces into the events a provider yields.
// A tag the model merely quotes is text, not an action: one inside a fenced code block, an inline
// code span or a blockquote (a README shown to the model can hold a `<tool_call>` example). Tool
// calls are read from text only for a provider configured to need it (`inline_tool_calls`), and a
// provider drops them back to text when the server also sent native calls.
import type { ChatEvent, ModelToolCall } from './types.ts';

export type InlinePiece = { type: 'text' | 'reasoning'; text: string } | { type: 'call'; text: string };

const TAGS: Record<string, { close: string; type: 'reasoning' | 'call' }> = {
  '<think>': { close: '</think>', type: 'reasoning' },
  '<tool_call>': { close: '</tool_call>', type: 'call' },
};
/** A fence line: up to three spaces, then three or more backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** How much of a line is kept to read it as a fence or a blockquote. */
const LINE_KEEP = 256;

function countTicks(s: string): number {
  let n = 0;
  for (let i = s.indexOf('`'); i >= 0; i = s.indexOf('`', i + 1)) n++;
  return n;
}

export class InlineTags {
  /** the tag we are inside, if any */
  private inside: string | undefined;
  private held = '';
  /** a call's text is given whole, at its closing tag */
  private call = '';
  private readonly openers: string[];
  /** the fence we are inside (its marker), if any */
  private fence: string | null = null;
  /** the start of the current line so far, outside tags (enough to tell a fence or a blockquote) */
  private line = '';
  /** backticks on the current line so far: an odd count is an open code span */
  private ticks = 0;

  /** `calls`: read `<tool_call>` blocks as calls (else they are text); `<think>` is always read. */
  constructor(opts: { calls?: boolean } = {}) {
    this.openers = Object.keys(TAGS).filter((t) => opts.calls === true || TAGS[t].type !== 'call');
  }

  /**
   * Text outside tags, given out: the fence and the current line follow it. Only the new text is
   * scanned, so a long answer with no line break (a flood of words) costs the same per chunk as a
   * short one.
   */
  private text(out: InlinePiece[], text: string): void {
    if (!text) return;
    const last = out.at(-1);
    if (last && last.type === 'text') last.text += text;
    else out.push({ type: 'text', text });
    const parts = text.split('\n');
    const rest = parts.pop()!;
    for (const p of parts) {
      this.endLine(this.line + p);
      this.line = '';
      this.ticks = 0;
    }
    // a fence is a short line: past LINE_KEEP characters only its start matters
    if (this.line.length < LINE_KEEP) this.line = (this.line + rest).slice(0, LINE_KEEP);
    this.ticks += countTicks(rest);
  }

  /** A whole line: does it open or close a fence? (`line` is its first LINE_KEEP characters.) */
  private endLine(line: string): void {
    const m = FENCE.exec(line);
    if (!m) return;
    if (this.fence === null) this.fence = m[1];
    else if (m[1][0] === this.fence[0] && m[1].length >= this.fence.length && line.length < LINE_KEEP && line.trim() === m[1]) this.fence = null;
  }

  /** Whether an opener at the current position is quoted: in a fence, a code span or a blockquote. */
  private quoted(): boolean {
    if (this.fence !== null) return true;
    if (/^ {0,3}>/.test(this.line)) return true;
    return this.ticks % 2 === 1;
  }

  /** Feeds one chunk; returns the pieces it completes, in order. */
  push(chunk: string): InlinePiece[] {
    const out: InlinePiece[] = [];
    let s = this.held + chunk;
    this.held = '';
    for (;;) {
      if (this.inside) {
        const { close, type } = TAGS[this.inside];
        const i = s.indexOf(close);
        if (i >= 0) {
          this.emit(out, type, s.slice(0, i), true);
          s = s.slice(i + close.length);
          this.inside = undefined;
          continue;
        }
        const keep = partialTail(s, [close]);
        this.emit(out, type, s.slice(0, s.length - keep), false);
        this.held = s.slice(s.length - keep);
        return out;
      }
      let at = -1;
      let tag = '';
      for (const t of this.openers) {
        const i = s.indexOf(t);
        if (i >= 0 && (at < 0 || i < at)) {
          at = i;
          tag = t;
        }
      }
      if (at >= 0) {
        this.text(out, s.slice(0, at));
        s = s.slice(at + tag.length);
        if (this.quoted()) this.text(out, tag);
        else this.inside = tag;
        continue;
      }
      // keep a possible partial tag at the end for the next chunk
      const keep = partialTail(s, this.openers);
      this.text(out, s.slice(0, s.length - keep));
      this.held = s.slice(s.length - keep);
      return out;
    }
  }

  /** What is left at the end of the stream: an unclosed block counts as closed. */
  end(): InlinePiece[] {
    const out: InlinePiece[] = [];
    const rest = this.held;
    this.held = '';
    if (this.inside) this.emit(out, TAGS[this.inside].type, rest, true);
    else this.text(out, rest);
    this.inside = undefined;
    return out;
  }

  private emit(out: InlinePiece[], type: 'reasoning' | 'call', text: string, closed: boolean): void {
    if (type === 'reasoning') {
      if (text) out.push({ type: 'reasoning', text });
      return;
    }
    this.call += text;
    if (closed) {
      out.push({ type: 'call', text: this.call });
      this.call = '';
    }
  }
}

/** How many characters at the end of `s` could begin one of `tags`. */
function partialTail(s: string, tags: string[]): number {
  let best = 0;
  for (const tag of tags) {
    for (let k = Math.min(tag.length - 1, s.length); k > best; k--) {
      if (tag.startsWith(s.slice(s.length - k))) {
        best = k;
        break;
      }
    }
  }
  return best;
}

/**
 * A tool call written as text. JSON (`{"name", "arguments" | "parameters"}`) or Qwen3-Coder's XML
 * form; a call whose arguments do not parse keeps them raw, so the model is told they are not
 * JSON and can try again. Undefined when no tool name can be found.
 */
export function parseToolCallText(raw: string): { name: string; arguments: string } | undefined {
  const s = raw.trim();
  try {
    const j = JSON.parse(s) as { name?: unknown; arguments?: unknown; parameters?: unknown; function?: { name?: unknown; arguments?: unknown } };
    const f = j.function && typeof j.function === 'object' ? j.function : j;
    const name = typeof f.name === 'string' ? f.name : undefined;
    if (name) {
      const a = 'arguments' in f ? f.arguments : (j as { parameters?: unknown }).parameters;
      return { name, arguments: typeof a === 'string' ? a : JSON.stringify(a ?? {}) };
    }
  } catch {
    // not JSON: the XML form, or broken JSON
  }
  const fn = /<function=([^>\s]+)>([\s\S]*?)(?:<\/function>|$)/.exec(s);
  if (fn) {
    const args: Record<string, unknown> = {};
    for (const m of fn[2].matchAll(/<parameter=([^>\s]+)>\n?([\s\S]*?)\n?<\/parameter>/g)) {
      let v: unknown = m[2];
      try {
        const parsed: unknown = JSON.parse(m[2]);
        if (typeof parsed !== 'string') v = parsed;
      } catch {
        // a plain string value
      }
      args[m[1]] = v;
    }
    return { name: fn[1], arguments: JSON.stringify(args) };
  }
  const name = /"name"\s*:\s*"([^"]+)"/.exec(s);
  if (name) {
    const args = /"(?:arguments|parameters)"\s*:\s*([\s\S]*?)\}?\s*$/.exec(s);
    return { name: name[1], arguments: args ? args[1] : '' };
  }
  return undefined;
}

/**
 * The events of `pieces`: text and reasoning as they are; a call piece parsed into `calls` (id
 * `${idPrefix}N`, its name mapped by `name`), or given back as text when it does not parse. An
 * array, not a generator: `yield*` of a sync generator in an async one awaits each value twice.
 */
export function pieceEvents(pieces: InlinePiece[], calls: InlineCall[], idPrefix: string, name: (n: string) => string = (n) => n): ChatEvent[] {
  const out: ChatEvent[] = [];
  for (const p of pieces) {
    if (p.type === 'call') {
      const c = parseToolCallText(p.text);
      if (c) calls.push({ call: { id: `${idPrefix}${calls.length + 1}`, name: name(c.name), arguments: c.arguments }, raw: asText(p.text) });
      else out.push({ type: 'text', text: asText(p.text) });
    } else out.push(p);
  }
  return out;
}

/** A call read from text, and the text it was read from (given back when it must not run). */
export interface InlineCall {
  call: ModelToolCall;
  raw: string;
}

const asText = (call: string) => `<tool_call>${call}</tool_call>`;

/**
 * The events for calls read from text at the end of a response: the calls, or, when the server
 * also sent native calls, the text they were read from (a model that has native calls and writes
 * a `<tool_call>` in its prose is quoting one, not making one).
 */
export function inlineCallEvents(calls: InlineCall[], nativeCalls: number): ChatEvent[] {
  if (nativeCalls > 0) return calls.map((c) => ({ type: 'text', text: c.raw }));
  return calls.map((c) => ({ type: 'tool_call', call: c.call }));
}
