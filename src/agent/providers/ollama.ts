// Ollama's native chat API: POST {host}/api/chat with stream: true, one JSON object per line.
// Tool calls come in one piece, with arguments as objects (not JSON text) and no ids; reasoning
// comes as `thinking`. Every request carries `options.num_ctx` (the session's window): without
// it Ollama runs the model with its own small default and silently drops the front of the
// prompt. The final line's prompt_eval_count / eval_count are the real token counts.
import { DEFAULT_HTTP, fetchJson, lineBatches, postStream, preview, type HttpSettings } from './http.ts';
import { inlineCallEvents, InlineTags, pieceEvents, type InlineCall } from './inline_tags.ts';
import { type ChatEvent, type ChatMessage, type ChatRequest, type ModelToolCall, type Provider, ProviderError, type ServerWindow } from './types.ts';

export const DEFAULT_OLLAMA_MODEL = 'qwen3:8b';

/** OLLAMA_HOST may be `host`, `host:port` or a URL; without a port Ollama's 11434 is meant. */
export function ollamaBaseUrl(host: string | undefined): string {
  const h = (host ?? '').trim();
  if (!h) return 'http://127.0.0.1:11434';
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(h);
  const u = new URL(hasScheme ? h : `http://${h}`);
  if (!hasScheme && !/:\d+(\/|$)/.test(h)) u.port = '11434';
  // 0.0.0.0 is how the server is told to listen everywhere; a client connects to loopback
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  return u.toString().replace(/\/+$/, '');
}

const WRONG_URL = 'The URL is probably wrong: OLLAMA_HOST should name the Ollama server, e.g. 127.0.0.1:11434.';

export class OllamaProvider implements Provider {
  readonly name = 'ollama' as const;
  readonly model: string;
  readonly endpoint: string;
  readonly baseUrl: string;
  private readonly http: HttpSettings;
  private readonly inlineToolCalls: boolean;

  /** `inlineToolCalls`: read `<tool_call>` blocks in the text as calls (`inline_tool_calls`) */
  constructor(private readonly opts: { baseUrl: string; model: string; http?: HttpSettings; inlineToolCalls?: boolean }) {
    this.model = opts.model;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.endpoint = `${this.baseUrl}/api/chat`;
    this.http = opts.http ?? DEFAULT_HTTP;
    this.inlineToolCalls = opts.inlineToolCalls === true;
  }

  /** /api/show: model_info["<architecture>.context_length"]. */
  async serverWindow(signal?: AbortSignal): Promise<ServerWindow | undefined> {
    const j = (await fetchJson('ollama', `${this.baseUrl}/api/show`, { method: 'POST', body: { model: this.model }, signal, timeoutMs: 3000 })) as { model_info?: Record<string, unknown> } | undefined;
    for (const [k, v] of Object.entries(j?.model_info ?? {})) {
      if (k.endsWith('.context_length') && typeof v === 'number' && Number.isInteger(v) && v > 0) return { tokens: v, source: `ollama /api/show ${k}` };
    }
    return undefined;
  }

  /** GET /api/tags: the models pulled on this server. */
  async listModels(signal?: AbortSignal): Promise<string[] | undefined> {
    const j = (await fetchJson('ollama', `${this.baseUrl}/api/tags`, { signal, timeoutMs: 3000 })) as { models?: Array<{ name?: unknown; model?: unknown }> } | undefined;
    if (!j || typeof j !== 'object') return undefined;
    return (j.models ?? []).map((m) => m.name ?? m.model).filter((x): x is string => typeof x === 'string');
  }

  withModel(model: string): OllamaProvider {
    return new OllamaProvider({ ...this.opts, model });
  }

  /** 404: name the models the server has, from /api/tags. */
  private async unknownModel(err: ProviderError, signal?: AbortSignal): Promise<ProviderError> {
    const names = await this.listModels(signal);
    if (!names) return new ProviderError('model_not_found', `${err.message} ${WRONG_URL}`);
    const has = names.length ? `It has: ${names.slice(0, 20).join(', ')}${names.length > 20 ? `, … (${names.length} in all)` : ''}. Pick one with --model, or` : 'It has no models yet:';
    return new ProviderError('model_not_found', `ollama: the server at ${this.baseUrl} has no model \`${this.model}\`. ${has} fetch it with \`ollama pull ${this.model}\`.`, names.length ? { models: names } : {});
  }

  async *chat(req: ChatRequest): AsyncGenerator<ChatEvent> {
    const options: Record<string, number> = {};
    if (req.contextWindow) options.num_ctx = req.contextWindow;
    if (req.maxTokens) options.num_predict = req.maxTokens;
    const body = {
      model: this.model,
      stream: true,
      messages: req.messages.map(toWire),
      ...(req.tools.length ? { tools: req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })) } : {}),
      ...(Object.keys(options).length ? { options } : {}),
    };
    let res;
    try {
      res = await postStream('ollama', this.endpoint, body, { signal: req.signal, settings: this.http, onRetry: req.onRetry });
    } catch (err) {
      if (err instanceof ProviderError && err.kind === 'model_not_found') throw await this.unknownModel(err, req.signal);
      throw err;
    }
    if (res.contentType.toLowerCase().includes('text/html')) {
      throw new ProviderError('bad_stream', `ollama: ${this.endpoint} answered 200 with an HTML page (${preview(await res.text())}), not Ollama's stream. ${WRONG_URL}`);
    }
    let done = false;
    let sawLine = false;
    let reason: string | undefined;
    let n = 0;
    const inline = new InlineTags({ calls: this.inlineToolCalls });
    const textCalls: InlineCall[] = [];
    let usage: { promptTokens: number; completionTokens: number } | undefined;
    const pieces = (ps: ReturnType<InlineTags['push']>) => pieceEvents(ps, textCalls, 'ollama_text_');
    read: for await (const batch of lineBatches(res.chunks())) {
      for (const line of batch) {
        if (!line.trim()) continue;
        let obj: OllamaChunk;
        try {
          obj = JSON.parse(line) as OllamaChunk;
        } catch {
          throw new ProviderError('bad_stream', `ollama: the server sent a line that is not JSON (${preview(line)}). ${sawLine ? 'The stream is damaged; send the prompt again.' : WRONG_URL}`);
        }
        sawLine = true;
        if (obj.error) {
          if (/context|too long/i.test(obj.error)) throw new ProviderError('context_length', `ollama: the conversation is longer than the model's context window (${obj.error}). Use /compact or a larger context_window.`);
          throw new ProviderError('http', `ollama: the server reported an error mid-stream: ${obj.error}`);
        }
        const m = obj.message;
        if (m?.thinking) yield { type: 'reasoning', text: m.thinking };
        if (m?.content) for (const ev of pieces(inline.push(m.content))) yield ev;
        for (const tc of m?.tool_calls ?? []) {
          const args = tc.function?.arguments;
          yield {
            type: 'tool_call',
            call: { id: `ollama_${++n}`, name: tc.function?.name ?? '', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
          };
        }
        if (obj.done) {
          done = true;
          reason = obj.done_reason;
          if (typeof obj.prompt_eval_count === 'number') usage = { promptTokens: obj.prompt_eval_count, completionTokens: obj.eval_count ?? 0 };
          break read;
        }
      }
    }
    if (!done) {
      throw new ProviderError('bad_stream', sawLine
        ? 'ollama: the response stream ended before the model finished (no final `done` line). The server may have dropped the connection; send the prompt again.'
        : `ollama: ${this.endpoint} answered 200 with an empty body. ${WRONG_URL}`, { beforeAnything: !sawLine });
    }
    for (const ev of pieces(inline.end())) yield ev;
    for (const ev of inlineCallEvents(textCalls, n)) yield ev;
    if (usage) yield { type: 'usage', usage };
    yield { type: 'done', finishReason: reason === 'length' ? 'length' : n || textCalls.length ? 'tool_calls' : 'stop' };
  }
}

interface OllamaChunk {
  error?: string;
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  message?: { content?: string; thinking?: string; tool_calls?: Array<{ function?: { name?: string; arguments?: unknown } }> };
}

function toWire(m: ChatMessage): Record<string, unknown> {
  switch (m.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content,
        ...(m.toolCalls?.length ? { tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: safeParse(c.arguments) } })) } : {}),
      };
    case 'tool':
      return { role: 'tool', content: m.content, tool_name: m.name };
    default:
      return { role: m.role, content: m.content };
  }
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return {};
  }
}
