// What the tool loop needs from a model: one streamed chat call with tools. Providers translate
// their wire format into these events and their failures into ProviderError.

/** One tool call the model asked for; `arguments` is the raw JSON text the model produced. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ModelToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  signal?: AbortSignal;
}

export type ChatEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; call: ModelToolCall }
  /** the model finished; `length` means it hit its token limit */
  | { type: 'done'; finishReason: 'stop' | 'length' | 'tool_calls' | 'other' };

export interface Provider {
  readonly name: 'openai' | 'ollama';
  readonly model: string;
  /** where requests go, for messages */
  readonly endpoint: string;
  chat(req: ChatRequest): AsyncIterable<ChatEvent>;
}

export type ProviderErrorKind =
  | 'unreachable' // connection refused, DNS, reset before a response
  | 'auth' // 401/403
  | 'rate_limited' // 429
  | 'context_length' // the conversation is longer than the model's window
  | 'model_not_found' // 404 for the model
  | 'bad_stream' // the stream broke off or carried something we cannot parse
  | 'http' // any other non-2xx answer
  | 'cancelled';

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  /** seconds the server asked us to wait (429) */
  readonly retryAfter?: number;
  constructor(kind: ProviderErrorKind, message: string, retryAfter?: number) {
    super(message);
    this.name = 'ProviderError';
    this.kind = kind;
    this.retryAfter = retryAfter;
  }
}
