// The tool loop: ask the model, run the tools it calls, feed the results back, until it answers
// without tools, hits the turn limit, or the user cancels. Before each request the context gets
// its say (it may compact the history); after each one it learns the real token counts; a
// request the server refuses as too long is compacted and sent once more. Knows nothing of ACP:
// output goes through the callbacks, tool calls through `runTool`, which never throws.
import { type ChatMessage, type ModelToolCall, type Provider, ProviderError, type ToolDefinition, type Usage } from '../providers/types.ts';

export type StopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'cancelled';

/** What the loop asks of the session's context budget (context/session_context.ts). */
export interface TurnContext {
  prepare(history: ChatMessage[], tools: ToolDefinition[], signal: AbortSignal): Promise<void>;
  observe(history: ChatMessage[], tools: ToolDefinition[], usage: Usage | undefined): Promise<void>;
  tooLong(history: ChatMessage[], tools: ToolDefinition[], err: ProviderError, signal: AbortSignal): Promise<boolean>;
  /** the window requests are sized for (Ollama's num_ctx) */
  windowTokens(): number | undefined;
}

/** A tool's answer for the model, with the real paths whose content it showed (for the ledger). */
export type ToolOutcome = string | { content: string; reads?: string[] };

export interface TurnOptions {
  provider: Provider;
  /** the conversation so far, including the new user message; the loop appends to it */
  history: ChatMessage[];
  /** the tools to offer, asked before every model request (a withdrawn MCP server drops out) */
  tools: () => ToolDefinition[];
  /** runs one call and returns what the model reads back (errors included) */
  runTool(call: ModelToolCall, signal: AbortSignal): Promise<ToolOutcome>;
  onText(text: string): Promise<void>;
  onThought(text: string): Promise<void>;
  /** a request is being sent again (429, 5xx) */
  onNotice?: (text: string) => void;
  signal: AbortSignal;
  /** model requests per prompt before the turn ends with max_turn_requests */
  maxTurns: number;
  context?: TurnContext;
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

export async function runTurn(o: TurnOptions): Promise<TurnResult> {
  for (let step = 0; step < o.maxTurns; step++) {
    if (o.signal.aborted) return { stopReason: 'cancelled' };
    const tools = o.tools();
    try {
      await o.context?.prepare(o.history, tools, o.signal);
    } catch (err) {
      if (o.signal.aborted) return { stopReason: 'cancelled' };
      throw err;
    }
    if (o.signal.aborted) return { stopReason: 'cancelled' };
    let text = '';
    const calls: ModelToolCall[] = [];
    let finish: string = 'stop';
    let usage: Usage | undefined;
    let resent = false;
    for (;;) {
      try {
        for await (const ev of o.provider.chat({ messages: o.history, tools, signal: o.signal, contextWindow: o.context?.windowTokens(), onRetry: o.onNotice })) {
          if (ev.type === 'text') {
            text += ev.text;
            await o.onText(ev.text);
          } else if (ev.type === 'reasoning') {
            await o.onThought(ev.text);
          } else if (ev.type === 'tool_call') {
            calls.push(ev.call);
          } else if (ev.type === 'usage') {
            usage = ev.usage;
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
        // refused as too long before anything streamed: compact harder and send once more
        if (pe.kind === 'context_length' && !resent && !text && calls.length === 0 && o.context) {
          resent = true;
          let smaller = false;
          try {
            smaller = await o.context.tooLong(o.history, tools, pe, o.signal);
          } catch (e) {
            if (o.signal.aborted) return { stopReason: 'cancelled' };
            throw e;
          }
          if (smaller) continue;
        }
        if (text) o.history.push({ role: 'assistant', content: text });
        return { stopReason: 'end_turn', error: pe };
      }
    }
    o.history.push({ role: 'assistant', content: text, ...(calls.length ? { toolCalls: calls } : {}) });
    await o.context?.observe(o.history, tools, usage);
    await o.checkpoint?.({ durable: true });
    if (calls.length === 0) return { stopReason: finish === 'length' ? 'max_tokens' : 'end_turn' };
    for (const call of calls) {
      // after a cancel every remaining call still gets an answer, so the history stays well formed
      const out: ToolOutcome = o.signal.aborted ? JSON.stringify({ code: 'cancelled', error: 'cancelled by the user' }) : await o.runTool(call, o.signal);
      const content = typeof out === 'string' ? out : out.content;
      const reads = typeof out === 'string' ? undefined : out.reads;
      o.history.push({ role: 'tool', toolCallId: call.id, name: call.name, content, ...(reads?.length ? { reads } : {}) });
      await o.checkpoint?.({ durable: false });
    }
    if (o.signal.aborted) return { stopReason: 'cancelled' };
    if (o.shouldStop?.()) return { stopReason: 'end_turn' };
  }
  return { stopReason: 'max_turn_requests' };
}
