// HTTP plumbing shared by the providers: one POST with a streamed body, failures mapped to
// ProviderError kinds with messages that say what to do next.
import { ProviderError } from './types.ts';

/** Parses Retry-After: seconds, or an HTTP date. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const n = Number(value.trim());
  if (Number.isFinite(n) && n >= 0) return n;
  const t = Date.parse(value);
  if (!Number.isNaN(t)) return Math.max(0, Math.ceil((t - Date.now()) / 1000));
  return undefined;
}

const CONTEXT_RE = /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|exceeds the (?:model'?s? )?(?:context|maximum)/i;

export async function postStream(
  provider: string,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw new ProviderError('cancelled', 'cancelled');
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
    throw new ProviderError('unreachable', `${provider}: cannot reach ${url} (${why}). Is the server running? Check the URL (${provider === 'ollama' ? 'OLLAMA_HOST' : 'OPENAI_BASE_URL'}) or pick another provider with --provider.`);
  }
  if (res.ok && res.body) return res.body;
  let text = '';
  try {
    text = await res.text();
  } catch {
    // the body is only used for the message
  }
  const detail = errorDetail(text);
  if (res.status === 401 || res.status === 403) {
    throw new ProviderError('auth', `${provider}: the server refused the credentials (HTTP ${res.status}${detail ? `: ${detail}` : ''}). Set OPENAI_API_KEY (or the provider's api_key in config) to a valid key.`);
  }
  if (res.status === 429) {
    const after = parseRetryAfter(res.headers.get('retry-after'));
    throw new ProviderError('rate_limited', `${provider}: rate limited (HTTP 429${detail ? `: ${detail}` : ''})${after !== undefined ? `; the server asks to retry after ${after} s` : ''}. Wait and send the prompt again, or use another model.`, after);
  }
  if (CONTEXT_RE.test(text)) {
    throw new ProviderError('context_length', `${provider}: the conversation is longer than the model's context window (${detail || `HTTP ${res.status}`}). Start a new session, or use a model with a larger context.`);
  }
  if (res.status === 404) {
    throw new ProviderError('model_not_found', `${provider}: not found at ${url} (HTTP 404${detail ? `: ${detail}` : ''}). Check the model name (--model) and the base URL${provider === 'ollama' ? '; `ollama pull <model>` fetches a model' : ''}.`);
  }
  throw new ProviderError('http', `${provider}: HTTP ${res.status} from ${url}${detail ? `: ${detail}` : ''}.`);
}

function errorDetail(text: string): string {
  if (!text) return '';
  try {
    const j = JSON.parse(text) as { error?: unknown; message?: unknown };
    const e = j.error;
    if (typeof e === 'string') return e.slice(0, 300);
    if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') return ((e as { message: string }).message).slice(0, 300);
    if (typeof j.message === 'string') return j.message.slice(0, 300);
  } catch {
    // not JSON
  }
  return text.trim().slice(0, 300);
}

/** Yields the lines of a byte stream (split on \n, \r stripped). Throws bad_stream on a read error. */
export async function* lines(body: ReadableStream<Uint8Array>, provider: string, signal?: AbortSignal): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buf = '';
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (signal?.aborted) throw new ProviderError('cancelled', 'cancelled');
        throw new ProviderError('bad_stream', `${provider}: the response stream broke off (${err instanceof Error ? err.message : String(err)}). Send the prompt again.`);
      }
      if (chunk.done) break;
      buf += decoder.decode(chunk.value, { stream: true });
      // walk the buffer by index and cut the remainder once: slicing per line is quadratic
      let start = 0;
      let nl: number;
      while ((nl = buf.indexOf('\n', start)) >= 0) {
        const end = nl > start && buf.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
        yield buf.slice(start, end);
        start = nl + 1;
      }
      if (start > 0) buf = buf.slice(start);
    }
    buf += decoder.decode();
    if (buf.length) yield buf.replace(/\r$/, '');
  } finally {
    reader.releaseLock();
    body.cancel().catch(() => {});
  }
}
