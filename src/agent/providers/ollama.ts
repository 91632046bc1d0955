// Ollama's native chat API: POST {host}/api/chat with stream: true, one JSON object per line.
// Tool call arguments come as objects (not JSON text) and carry no ids.
import { lines, postStream } from './http.ts';
import { ThinkSplitter } from './think_tags.ts';
import { type ChatEvent, type ChatMessage, type ChatRequest, type Provider, ProviderError } from './types.ts';

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

export class OllamaProvider implements Provider {
  readonly name = 'ollama' as const;
  readonly model: string;
  readonly endpoint: string;

  constructor(opts: { baseUrl: string; model: string }) {
    this.model = opts.model;
    this.endpoint = `${opts.baseUrl.replace(/\/+$/, '')}/api/chat`;
  }

  async *chat(req: ChatRequest): AsyncGenerator<ChatEvent> {
    const body = {
      model: this.model,
      stream: true,
      messages: req.messages.map(toWire),
      ...(req.tools.length ? { tools: req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })) } : {}),
    };
    const stream = await postStream('ollama', this.endpoint, body, {}, req.signal);
    let done = false;
    let reason: string | undefined;
    let n = 0;
    const think = new ThinkSplitter();
    for await (const line of lines(stream, 'ollama', req.signal)) {
      if (!line.trim()) continue;
      let obj: OllamaChunk;
      try {
        obj = JSON.parse(line) as OllamaChunk;
      } catch {
        throw new ProviderError('bad_stream', `ollama: the server sent a line that is not JSON (${line.slice(0, 120)}). Check that OLLAMA_HOST points at Ollama.`);
      }
      if (obj.error) {
        if (/context|too long/i.test(obj.error)) throw new ProviderError('context_length', `ollama: the conversation is longer than the model's context window (${obj.error}). Start a new session, or raise num_ctx.`);
        throw new ProviderError('http', `ollama: the server reported an error mid-stream: ${obj.error}`);
      }
      const m = obj.message;
      if (m?.thinking) yield { type: 'reasoning', text: m.thinking };
      if (m?.content) for (const piece of think.push(m.content)) yield piece;
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
        break;
      }
    }
    if (!done) {
      throw new ProviderError('bad_stream', 'ollama: the response stream ended before the model finished (no final `done` line). The server may have dropped the connection; send the prompt again.');
    }
    for (const piece of think.end()) yield piece;
    yield { type: 'done', finishReason: reason === 'length' ? 'length' : 'stop' };
  }
}

interface OllamaChunk {
  error?: string;
  done?: boolean;
  done_reason?: string;
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
