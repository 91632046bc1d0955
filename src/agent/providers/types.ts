// What the tool loop needs from a model: one streamed chat call with tools. Providers translate
// their wire format into these events and their failures into ProviderError.

/** One tool call the model asked for; `arguments` is the raw JSON text the model produced. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * One message of a conversation. The optional fields are the agent's own bookkeeping, never sent:
 * `reads` are the real paths whose content this result showed the model (the read-before-write
 * ledger forgets them when the result is elided or summarised away), `elided` marks a result
 * replaced by a stub, `summary` the message that stands for a summarised part of the conversation.
 */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string; summary?: true }
  | { role: 'assistant'; content: string; toolCalls?: ModelToolCall[]; reads?: string[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; reads?: string[]; elided?: true };

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  signal?: AbortSignal;
  /** the context window in tokens the request is sized for (Ollama runs the model with it: `num_ctx`) */
  contextWindow?: number;
  /** a cap on the answer's length in tokens (the summary request of a compaction uses it) */
  maxTokens?: number;
  /** told before a request is sent again after a 429 or a 5xx */
  onRetry?: (message: string) => void;
}

/** Token counts the server reported for one request. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

export type ChatEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; call: ModelToolCall }
  | { type: 'usage'; usage: Usage }
  /** the model finished; `length` means it hit its token limit */
  | { type: 'done'; finishReason: 'stop' | 'length' | 'tool_calls' | 'other' };

/** A context window the server reported, and where it said so (for `cxl config` and messages). */
export interface ServerWindow {
  tokens: number;
  source: string;
}

export interface Provider {
  readonly name: 'openai' | 'ollama';
  readonly model: string;
  /** where requests go, for messages */
  readonly endpoint: string;
  chat(req: ChatRequest): AsyncIterable<ChatEvent>;
  /** the model's context window as the server reports it; undefined when it does not say */
  serverWindow(signal?: AbortSignal): Promise<ServerWindow | undefined>;
  /** the models the server offers, by the name a request gives; undefined when it does not say or cannot be reached */
  listModels?(signal?: AbortSignal): Promise<string[] | undefined>;
  /** the same server, credentials and settings, asking another model */
  withModel?(model: string): Provider;
}

export type ProviderErrorKind =
  | 'unreachable' // connection refused, DNS, reset before a response
  | 'timeout' // a connect, first-byte or idle timeout fired (`stage` says which)
  | 'auth' // 401/403
  | 'rate_limited' // 429
  | 'context_length' // the conversation is longer than the model's window
  | 'model_not_found' // 404 for the model
  | 'bad_stream' // the stream broke off or carried something we cannot parse
  | 'http' // any other non-2xx answer
  | 'cancelled';

export type TimeoutStage = 'connect' | 'first_byte' | 'idle';

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  /** seconds the server asked us to wait (429) */
  readonly retryAfter?: number;
  /** context_length: the window in tokens the server named, when it did */
  readonly limit?: number;
  /** context_length: the prompt's size in tokens, when the server said */
  readonly promptTokens?: number;
  /** timeout: which one fired */
  readonly stage?: TimeoutStage;
  /** bad_stream: nothing at all had been received when it broke (a resend repeats nothing) */
  readonly beforeAnything?: boolean;
  /** model_not_found: the server answered and lists these models; the model is to be picked from them */
  readonly models?: string[];
  constructor(kind: ProviderErrorKind, message: string, extra: { retryAfter?: number; limit?: number; promptTokens?: number; stage?: TimeoutStage; beforeAnything?: boolean; models?: string[] } | number = {}) {
    super(message);
    this.name = 'ProviderError';
    this.kind = kind;
    const x = typeof extra === 'number' ? { retryAfter: extra } : extra;
    this.retryAfter = x.retryAfter;
    this.limit = x.limit;
    this.promptTokens = x.promptTokens;
    this.stage = x.stage;
    this.beforeAnything = x.beforeAnything;
    if (x.models) this.models = x.models;
  }
}
