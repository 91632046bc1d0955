// The tool loop: ask the model, run the tools it calls, feed the results back, until it answers
// without tools, hits the turn limit, or the user cancels. Knows nothing of ACP: output goes
// through the callbacks, tool calls through `runTool`, which never throws.
import { type ChatMessage, type ModelToolCall, type Provider, ProviderError, type ToolDefinition } from './providers/types.ts';

export type StopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'cancelled';

export interface TurnOptions {
  provider: Provider;
  /** the conversation so far, including the new user message; the loop appends to it */
  history: ChatMessage[];
  /** the tools to offer, asked before every model request (a withdrawn MCP server drops out) */
  tools: () => ToolDefinition[];
  /** runs one call and returns what the model reads back (errors included) */
  runTool(call: ModelToolCall, signal: AbortSignal): Promise<string>;
  onText(text: string): Promise<void>;
  onThought(text: string): Promise<void>;
  signal: AbortSignal;
  /** model requests per prompt before the turn ends with max_turn_requests */
  maxTurns: number;
  /** longest Retry-After we wait out by ourselves on a 429, in seconds */
  maxRetryWait?: number;
  /** checked after each round of tool calls: true ends the turn (a user rejected and will explain) */
  shouldStop?: () => boolean;
  /**
   * the history grew: after each model answer (`durable`: the end of a model request, so it is
   * fsync'd) and after each tool result; the session store appends what is new
   */
  checkpoint?: (c: { durable: boolean }) => Promise<void>;
}

export interface TurnResult {
  stopReason: StopReason;
  /** a provider failure that ended the turn; its message is for the user */
  error?: ProviderError;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function runTurn(o: TurnOptions): Promise<TurnResult> {
  const maxRetryWait = o.maxRetryWait ?? 10;
  for (let step = 0; step < o.maxTurns; step++) {
    if (o.signal.aborted) return { stopReason: 'cancelled' };
    let text = '';
    const calls: ModelToolCall[] = [];
    let finish: string = 'stop';
    let retries = 0;
    for (;;) {
      try {
        for await (const ev of o.provider.chat({ messages: o.history, tools: o.tools(), signal: o.signal })) {
          if (ev.type === 'text') {
            text += ev.text;
            await o.onText(ev.text);
          } else if (ev.type === 'reasoning') {
            await o.onThought(ev.text);
          } else if (ev.type === 'tool_call') {
            calls.push(ev.call);
          } else {
            finish = ev.finishReason;
          }
        }
        break;
      } catch (err) {
        if (o.signal.aborted) {
          if (text) o.history.push({ role: 'assistant', content: text });
          return { stopReason: 'cancelled' };
        }
        const pe = err instanceof ProviderError ? err : new ProviderError('bad_stream', `${o.provider.name}: ${err instanceof Error ? err.message : String(err)}`);
        // A short Retry-After is waited out once or twice before anything was streamed.
        if (pe.kind === 'rate_limited' && pe.retryAfter !== undefined && pe.retryAfter <= maxRetryWait && retries < 2 && !text && calls.length === 0) {
          retries++;
          await sleep(pe.retryAfter * 1000, o.signal);
          continue;
        }
        if (text) o.history.push({ role: 'assistant', content: text });
        return { stopReason: 'end_turn', error: pe };
      }
    }
    o.history.push({ role: 'assistant', content: text, ...(calls.length ? { toolCalls: calls } : {}) });
    await o.checkpoint?.({ durable: true });
    if (calls.length === 0) return { stopReason: finish === 'length' ? 'max_tokens' : 'end_turn' };
    for (const call of calls) {
      // after a cancel every remaining call still gets an answer, so the history stays well formed
      const content = o.signal.aborted ? JSON.stringify({ code: 'cancelled', error: 'cancelled by the user' }) : await o.runTool(call, o.signal);
      o.history.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
      await o.checkpoint?.({ durable: false });
    }
    if (o.signal.aborted) return { stopReason: 'cancelled' };
    if (o.shouldStop?.()) return { stopReason: 'end_turn' };
  }
  return { stopReason: 'max_turn_requests' };
}
