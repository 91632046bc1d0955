// Token counts without a tokenizer: characters times a tokens-per-character ratio, calibrated on
// the real prompt counts the server reports. Per-message counts are cached by message object
// (compaction replaces messages, it never edits them), so estimating a request costs one addition
// per message, not a pass over its text.
import type { ChatMessage, ToolDefinition } from '../providers/types.ts';

/** ~3.3 characters a token: code and JSON run denser than prose, and guessing high is the safe side. */
export const DEFAULT_TOKENS_PER_CHAR = 0.3;
/** what each message costs besides its text (role markers of the chat template) */
const MESSAGE_OVERHEAD_CHARS = 16;

export class TokenMeter {
  /** tokens per character; starts at the default, then follows the server's counts */
  ratio = DEFAULT_TOKENS_PER_CHAR;
  calibrated = false;
  readonly #chars = new WeakMap<ChatMessage, number>();
  #toolsKey: ToolDefinition[] | undefined;
  #toolsChars = 0;

  /** characters of one message as sent */
  chars(m: ChatMessage): number {
    let n = this.#chars.get(m);
    if (n === undefined) {
      n = MESSAGE_OVERHEAD_CHARS + m.content.length;
      if (m.role === 'assistant') for (const c of m.toolCalls ?? []) n += c.name.length + c.arguments.length + 24;
      this.#chars.set(m, n);
    }
    return n;
  }

  toolChars(tools: ToolDefinition[]): number {
    if (tools !== this.#toolsKey) {
      this.#toolsKey = tools;
      this.#toolsChars = tools.length ? JSON.stringify(tools).length : 0;
    }
    return this.#toolsChars;
  }

  /** characters of a whole request */
  requestChars(messages: ChatMessage[], tools: ToolDefinition[]): number {
    let n = this.toolChars(tools);
    for (const m of messages) n += this.chars(m);
    return n;
  }

  tokens(chars: number): number {
    return Math.ceil(chars * this.ratio);
  }

  messageTokens(m: ChatMessage): number {
    return this.tokens(this.chars(m));
  }

  estimate(messages: ChatMessage[], tools: ToolDefinition[]): number {
    return this.tokens(this.requestChars(messages, tools));
  }

  /** Learns from a real prompt count of a request of `chars` characters. */
  calibrate(promptTokens: number, chars: number): void {
    if (!(promptTokens > 0) || chars < 2000) return; // tiny requests are mostly template overhead
    const seen = Math.min(1.5, Math.max(0.2, promptTokens / chars));
    this.ratio = this.calibrated ? (this.ratio + seen) / 2 : seen;
    this.calibrated = true;
  }
}
