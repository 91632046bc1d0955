// OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp server, LM Studio, OpenRouter):
// POST {base}/chat/completions with stream: true, Server-Sent Events back. Handles the shapes
// these servers really send: tool calls in fragments keyed by index (several in parallel), the
// final usage chunk with empty `choices`, `reasoning_content` (vLLM, DeepSeek) or `reasoning`,
// inline <think> and <tool_call> text from servers that do not parse them, and a plain JSON
// completion from a server that ignores `stream`.
import { DEFAULT_HTTP, fetchJson, lineBatches, postStream, preview, type HttpResponse, type HttpSettings } from './http.ts';
import { inlineCallEvents, InlineTags, pieceEvents, type InlineCall } from './inline_tags.ts';
import { type ChatEvent, type ChatMessage, type ChatRequest, type ModelToolCall, type Provider, ProviderError, type ServerWindow, type Usage } from './types.ts';

export interface OpenAIOptions {
  baseUrl: string;
  apiKey?: string;
  /** undefined: the server's own model, read from /v1/models (the only one it lists) */
  model: string | undefined;
  http?: HttpSettings;
  /** read `<tool_call>` blocks in the text as calls (servers without a tool parser): `inline_tool_calls` */
  inlineToolCalls?: boolean;
}

/** What the status line and messages call a model not chosen yet. */
export const SERVER_MODEL = "the server's model";

// OpenAI restricts function names to [a-zA-Z0-9_-]{1,64}; our names carry dots (`server.tool`).
export function wireName(name: string): string {
  return name.replace(/\./g, '__').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

const WRONG_URL = 'The base URL is probably wrong: OPENAI_BASE_URL (or --provider openai\'s base URL) should be the API root that ends in /v1, e.g. http://127.0.0.1:8000/v1.';

export class OpenAIProvider implements Provider {
  readonly name = 'openai' as const;
  #model: string | undefined;
  readonly endpoint: string;
  readonly baseUrl: string;
  private readonly apiKey?: string;
  private readonly http: HttpSettings;
  private readonly inlineToolCalls: boolean;
  /** set when the server refused stream_options: later requests leave it out */
  private noStreamOptions = false;

  constructor(private readonly opts: OpenAIOptions) {
    this.#model = opts.model;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.endpoint = `${this.baseUrl}/chat/completions`;
    this.apiKey = opts.apiKey;
    this.http = opts.http ?? DEFAULT_HTTP;
    this.inlineToolCalls = opts.inlineToolCalls === true;
  }

  /** The model requests name: the one chosen, or the server's only one once /v1/models has said. */
  get model(): string {
    return this.#model ?? SERVER_MODEL;
  }

  /**
   * With no model chosen (only OPENAI_BASE_URL set), the server's own: the only one /v1/models
   * lists. Several are listed back so the user can choose; none, or no answer, is said as such.
   */
  async ensureModel(signal?: AbortSignal): Promise<string> {
    if (this.#model !== undefined) return this.#model;
    const j = (await fetchJson('openai', `${this.baseUrl}/models`, { headers: this.headers(), signal, timeoutMs: 5000 })) as { data?: Array<{ id?: unknown }> } | undefined;
    if (j === undefined) throw new ProviderError('unreachable', `openai: no model was chosen and ${this.baseUrl}/models did not answer, so cxl cannot ask the server which model it runs. Start the server, or choose one with --model NAME (or OPENAI_MODEL).`);
    const ids = (j.data ?? []).map((m) => m.id).filter((x): x is string => typeof x === 'string');
    if (ids.length === 1) return (this.#model = ids[0]);
    if (ids.length === 0) throw new ProviderError('model_not_found', `openai: the server at ${this.baseUrl} lists no models at /models; choose one with --model NAME (or OPENAI_MODEL). ${WRONG_URL}`);
    const shown = ids.slice(0, 20).join(', ') + (ids.length > 20 ? `, … (${ids.length} in all)` : '');
    throw new ProviderError('model_not_found', `openai: the server at ${this.baseUrl} has several models: ${shown}. Choose one with --model NAME (or OPENAI_MODEL=NAME).`, { models: ids });
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { accept: 'text/event-stream' };
    if (this.apiKey) h.authorization = `Bearer ${this.apiKey}`;
    return h;
  }

  private async open(req: ChatRequest, body: Record<string, unknown>): Promise<HttpResponse> {
    try {
      return await postStream('openai', this.endpoint, body, { headers: this.headers(), signal: req.signal, settings: this.http, onRetry: req.onRetry });
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      // an older server that does not know stream_options: once without it
      if (err.kind === 'http' && /stream_options/i.test(err.message) && body.stream_options) {
        this.noStreamOptions = true;
        const { stream_options: _drop, ...rest } = body;
        return await this.open(req, rest);
      }
      if (err.kind === 'model_not_found') throw await this.unknownModel(err, req.signal);
      throw err;
    }
  }

  /** GET /v1/models: the ids a request may name. */
  async listModels(signal?: AbortSignal): Promise<string[] | undefined> {
    const j = (await fetchJson('openai', `${this.baseUrl}/models`, { headers: this.headers(), signal, timeoutMs: 3000 })) as { data?: Array<{ id?: unknown }> } | undefined;
    if (!j || !Array.isArray(j.data)) return undefined;
    return j.data.map((m) => m.id).filter((x): x is string => typeof x === 'string');
  }

  withModel(model: string): OpenAIProvider {
    return new OpenAIProvider({ ...this.opts, model });
  }

  /** 404: name the models the server has, from /v1/models. */
  private async unknownModel(err: ProviderError, signal?: AbortSignal): Promise<ProviderError> {
    const ids = (await this.listModels(signal)) ?? [];
    if (!ids.length) return new ProviderError('model_not_found', `${err.message} ${WRONG_URL}`);
    const shown = ids.slice(0, 20).join(', ') + (ids.length > 20 ? `, … (${ids.length} in all)` : '');
    return new ProviderError('model_not_found', `openai: the server at ${this.baseUrl} has no model \`${this.model}\`. It has: ${shown}. Pick one with --model.`, { models: ids });
  }

  async serverWindow(signal?: AbortSignal): Promise<ServerWindow | undefined> {
    try {
      await this.ensureModel(signal);
    } catch {
      return undefined;
    }
    // llama.cpp: /props (outside /v1) gives the n_ctx a request really gets
    const origin = this.baseUrl.replace(/\/v1$/, '');
    const props = (await fetchJson('openai', `${origin}/props`, { headers: this.headers(), signal, timeoutMs: 3000 })) as { n_ctx?: unknown; default_generation_settings?: { n_ctx?: unknown } } | undefined;
    const n = num(props?.default_generation_settings?.n_ctx) ?? num(props?.n_ctx);
    if (n) return { tokens: n, source: `${origin}/props n_ctx` };
    // vLLM (max_model_len), OpenRouter and others (context_length), LM Studio (max_context_length)
    const models = (await fetchJson('openai', `${this.baseUrl}/models`, { headers: this.headers(), signal, timeoutMs: 3000 })) as { data?: Array<Record<string, unknown>> } | undefined;
    const list = models?.data ?? [];
    const entry = list.find((m) => m.id === this.model) ?? (list.length === 1 ? list[0] : undefined);
    if (!entry) return undefined;
    for (const key of ['max_model_len', 'context_length', 'context_window', 'loaded_context_length', 'max_context_length']) {
      const v = num(entry[key]);
      if (v) return { tokens: v, source: `${this.baseUrl}/models ${key}` };
    }
    return undefined;
  }

  /** The request body for `req`, as it goes on the wire. */
  body(req: ChatRequest): Record<string, unknown> {
    return {
      model: this.model,
      stream: true,
      ...(this.noStreamOptions ? {} : { stream_options: { include_usage: true } }),
      messages: req.messages.map(toWire),
      ...(req.tools.length
        ? { tools: req.tools.map((t) => ({ type: 'function', function: { name: wireName(t.name), description: t.description, parameters: t.parameters } })) }
        : {}),
      ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}),
    };
  }

  async *chat(req: ChatRequest): AsyncGenerator<ChatEvent> {
    await this.ensureModel(req.signal);
    const byWire = new Map(req.tools.map((t) => [wireName(t.name), t.name]));
    const res = await this.open(req, this.body(req));
    const ct = res.contentType.toLowerCase();
    if (ct.includes('text/html')) {
      const text = await res.text();
      throw new ProviderError('bad_stream', `openai: ${this.endpoint} answered 200 with an HTML page (${preview(text)}), not an event stream. ${WRONG_URL}`);
    }
    if (ct.includes('application/json')) {
      // a server that ignores `stream`: one whole completion
      yield* this.whole(await res.text(), byWire);
      return;
    }

    // Tool calls arrive in fragments keyed by index; they are complete at finish_reason or [DONE].
    const pending = new Map<number, { id: string; name: string; args: string }>();
    const textCalls: InlineCall[] = [];
    let finish: string | null = null;
    let sawDone = false;
    let sawData = false;
    let usage: Usage | undefined;
    const inline = new InlineTags({ calls: this.inlineToolCalls });
    const pieces = (ps: ReturnType<InlineTags['push']>) => pieceEvents(ps, textCalls, 'call_text_', (n) => byWire.get(n) ?? n);
    const cutOff = (err: unknown): unknown =>
      err instanceof ProviderError && err.kind === 'bad_stream' && pending.size
        ? new ProviderError('bad_stream', `${err.message.replace(/\.? Send the prompt again\.$/, '')}, in the middle of a tool call, which was not run. Send the prompt again.`)
        : err;
    const stream = lineBatches(res.chunks());
    // [DONE] or an error leaves the stream unfinished: ending it closes the response and drops the
    // cancel listener (a server that holds the connection open after [DONE] kept both, per turn)
    try {
      read: for (;;) {
        let next: IteratorResult<string[]>;
        try {
          next = await stream.next();
        } catch (err) {
          throw cutOff(err);
        }
        if (next.done) break;
        for (const line of next.value) {
          if (!line.startsWith('data:')) {
            // comments (": keep-alive"), event:, id:, retry: and blank lines belong to SSE; anything else before the first event does not
            if (!sawData && line.trim() && !/^(?::|event:|id:|retry:)/.test(line)) {
              throw new ProviderError('bad_stream', `openai: ${this.endpoint} answered 200 with something that is not an event stream (${preview(line)}). ${WRONG_URL}`);
            }
            continue;
          }
          sawData = true;
          const data = line.slice(5).trim();
          if (data === '[DONE]') {
            sawDone = true;
            break read;
          }
          let chunk: OpenAIChunk;
          try {
            chunk = JSON.parse(data) as OpenAIChunk;
          } catch {
            throw new ProviderError('bad_stream', `openai: the server sent a stream chunk that is not JSON (${data.slice(0, 120)}). Check that the base URL points at an OpenAI-compatible API.`);
          }
          if (chunk.error) throw chunkError(chunk.error);
          if (chunk.usage && typeof chunk.usage.prompt_tokens === 'number') {
            usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens ?? 0 };
          }
          const choice = chunk.choices?.[0];
          if (!choice) continue; // the usage chunk has empty choices
          const d = choice.delta ?? {};
          const reasoning = d.reasoning_content ?? d.reasoning;
          if (typeof reasoning === 'string' && reasoning) yield { type: 'reasoning', text: reasoning };
          if (typeof d.content === 'string' && d.content) for (const ev of pieces(inline.push(d.content))) yield ev;
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
      }
    } finally {
      await stream.return(undefined);
    }
    if (!sawDone && finish === null) {
      if (!sawData) throw new ProviderError('bad_stream', `openai: ${this.endpoint} answered 200 with no events at all. ${WRONG_URL}`, { beforeAnything: true });
      throw new ProviderError('bad_stream', `openai: the response stream ended before the model finished (no finish_reason, no [DONE])${pending.size ? ', in the middle of a tool call, which was not run' : ''}. The server may have dropped the connection; send the prompt again.`);
    }
    for (const ev of pieces(inline.end())) yield ev;
    for (const [i, p] of [...pending.entries()].sort((a, b) => a[0] - b[0])) {
      yield { type: 'tool_call', call: { id: p.id || `call_${i}`, name: byWire.get(p.name) ?? p.name, arguments: p.args } };
    }
    const fromText = inlineCallEvents(textCalls, pending.size);
    for (const ev of fromText) yield ev;
    if (usage) yield { type: 'usage', usage };
    const calls = pending.size + (pending.size ? 0 : textCalls.length);
    yield { type: 'done', finishReason: finish === 'length' ? 'length' : finish === 'tool_calls' || (calls && finish === 'stop') ? 'tool_calls' : finish === 'stop' || finish === null ? 'stop' : 'other' };
  }

  /** A non-streamed chat.completion, as events. */
  private *whole(text: string, byWire: Map<string, string>): Generator<ChatEvent> {
    let j: OpenAIWhole;
    try {
      j = JSON.parse(text) as OpenAIWhole;
    } catch {
      throw new ProviderError('bad_stream', `openai: ${this.endpoint} answered 200 with JSON that does not parse (${preview(text)}). ${WRONG_URL}`);
    }
    if (j.error) throw chunkError(j.error);
    const choice = j.choices?.[0];
    if (!choice?.message) throw new ProviderError('bad_stream', `openai: ${this.endpoint} answered 200 with JSON that is not a chat completion (${preview(text)}). ${WRONG_URL}`);
    const m = choice.message;
    const reasoning = m.reasoning_content ?? m.reasoning;
    if (typeof reasoning === 'string' && reasoning) yield { type: 'reasoning', text: reasoning };
    const inline = new InlineTags({ calls: this.inlineToolCalls });
    const textCalls: InlineCall[] = [];
    for (const ev of pieceEvents([...inline.push(m.content ?? ''), ...inline.end()], textCalls, 'call_text_', (n) => byWire.get(n) ?? n)) if (ev.type !== 'text' || ev.text) yield ev;
    const calls: ModelToolCall[] = (m.tool_calls ?? []).map((tc, i) => ({ id: tc.id || `call_${i}`, name: byWire.get(tc.function?.name ?? '') ?? tc.function?.name ?? '', arguments: typeof tc.function?.arguments === 'string' ? tc.function.arguments : JSON.stringify(tc.function?.arguments ?? {}) }));
    for (const call of calls) yield { type: 'tool_call', call };
    for (const ev of inlineCallEvents(textCalls, calls.length)) {
      if (ev.type === 'tool_call') calls.push(ev.call);
      yield ev;
    }
    if (j.usage && typeof j.usage.prompt_tokens === 'number') yield { type: 'usage', usage: { promptTokens: j.usage.prompt_tokens, completionTokens: j.usage.completion_tokens ?? 0 } };
    const f = choice.finish_reason;
    yield { type: 'done', finishReason: f === 'length' ? 'length' : calls.length ? 'tool_calls' : 'stop' };
  }
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

function chunkError(e: string | { message?: string }): ProviderError {
  const msg = typeof e === 'string' ? e : (e.message ?? JSON.stringify(e));
  if (/context|too long|too many tokens/i.test(msg)) return new ProviderError('context_length', `openai: the conversation is longer than the model's context window (${msg}). Use /compact, a larger context_window, or a model with a larger context.`);
  return new ProviderError('http', `openai: the server reported an error mid-stream: ${msg}`);
}

interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

interface OpenAIChunk {
  error?: string | { message?: string };
  usage?: OpenAIUsage | null;
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

interface OpenAIWhole {
  error?: string | { message?: string };
  usage?: OpenAIUsage;
  choices?: Array<{
    message?: { content?: string | null; reasoning_content?: string | null; reasoning?: string | null; tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: unknown } }> };
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
