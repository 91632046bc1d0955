// OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp server, LM Studio, OpenRouter):
// POST {base}/chat/completions with stream: true, Server-Sent Events back.
import { lines, postStream } from './http.ts';
import { ThinkSplitter } from './think_tags.ts';
import { type ChatEvent, type ChatMessage, type ChatRequest, type ModelToolCall, type Provider, ProviderError } from './types.ts';

export interface OpenAIOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
}

// OpenAI restricts function names to [a-zA-Z0-9_-]{1,64}; our names carry dots (`server.tool`).
export function wireName(name: string): string {
  return name.replace(/\./g, '__').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

export class OpenAIProvider implements Provider {
  readonly name = 'openai' as const;
  readonly model: string;
  readonly endpoint: string;
  private readonly apiKey?: string;

  constructor(opts: OpenAIOptions) {
    this.model = opts.model;
    this.endpoint = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.apiKey = opts.apiKey;
  }

  async *chat(req: ChatRequest): AsyncGenerator<ChatEvent> {
    const byWire = new Map(req.tools.map((t) => [wireName(t.name), t.name]));
    const body = {
      model: this.model,
      stream: true,
      messages: req.messages.map(toWire),
      ...(req.tools.length
        ? { tools: req.tools.map((t) => ({ type: 'function', function: { name: wireName(t.name), description: t.description, parameters: t.parameters } })) }
        : {}),
    };
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const stream = await postStream('openai', this.endpoint, body, headers, req.signal);

    // Tool calls arrive in fragments keyed by index; they are complete at finish_reason or [DONE].
    const pending = new Map<number, { id: string; name: string; args: string }>();
    let finish: string | null = null;
    let sawDone = false;
    const think = new ThinkSplitter();
    const flush = function* (): Generator<ChatEvent> {
      for (const [i, p] of [...pending.entries()].sort((a, b) => a[0] - b[0])) {
        const call: ModelToolCall = { id: p.id || `call_${i}`, name: byWire.get(p.name) ?? p.name, arguments: p.args };
        yield { type: 'tool_call', call };
      }
      pending.clear();
    };
    for await (const line of lines(stream, 'openai', req.signal)) {
      if (!line.startsWith('data:')) continue; // comments (": keep-alive"), event:, id:
      const data = line.slice(5).trim();
      if (data === '[DONE]') {
        sawDone = true;
        break;
      }
      let chunk: OpenAIChunk;
      try {
        chunk = JSON.parse(data) as OpenAIChunk;
      } catch {
        throw new ProviderError('bad_stream', `openai: the server sent a stream chunk that is not JSON (${data.slice(0, 120)}). Check that the base URL points at an OpenAI-compatible API.`);
      }
      if (chunk.error) {
        const msg = typeof chunk.error === 'string' ? chunk.error : (chunk.error.message ?? JSON.stringify(chunk.error));
        if (/context|too long|too many tokens/i.test(msg)) throw new ProviderError('context_length', `openai: the conversation is longer than the model's context window (${msg}). Start a new session, or use a model with a larger context.`);
        throw new ProviderError('http', `openai: the server reported an error mid-stream: ${msg}`);
      }
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const d = choice.delta ?? {};
      const reasoning = d.reasoning_content ?? d.reasoning;
      if (typeof reasoning === 'string' && reasoning) yield { type: 'reasoning', text: reasoning };
      if (typeof d.content === 'string' && d.content) for (const piece of think.push(d.content)) yield piece;
      for (const tc of d.tool_calls ?? []) {
        const i = tc.index ?? 0;
        const p = pending.get(i) ?? { id: '', name: '', args: '' };
        if (tc.id) p.id = tc.id;
        if (tc.function?.name) p.name += tc.function.name;
        if (tc.function?.arguments) p.args += tc.function.arguments;
        pending.set(i, p);
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    if (!sawDone && finish === null) {
      throw new ProviderError('bad_stream', 'openai: the response stream ended before the model finished (no finish_reason, no [DONE]). The server may have dropped the connection; send the prompt again.');
    }
    for (const piece of think.end()) yield piece;
    yield* flush();
    yield { type: 'done', finishReason: finish === 'length' ? 'length' : finish === 'tool_calls' ? 'tool_calls' : finish === 'stop' || finish === null ? 'stop' : 'other' };
  }
}

interface OpenAIChunk {
  error?: string | { message?: string };
  choices?: Array<{
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason?: string | null;
  }>;
}

function toWire(m: ChatMessage): Record<string, unknown> {
  switch (m.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content || (m.toolCalls?.length ? null : ''),
        ...(m.toolCalls?.length
          ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: wireName(c.name), arguments: c.arguments } })) }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    default:
      return { role: m.role, content: m.content };
  }
}
