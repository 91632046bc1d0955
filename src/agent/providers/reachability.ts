// Is the model there? Asked once when a session opens, in the background, so a user learns at
// once (not at the first prompt) that no server answers, or that the server answered but the
// model is still to be picked from what it lists (LM Studio, llama-swap and Ollama list several),
// and what to do. A server that answers anything at all is up; what it lists says whether the
// model is.
import { OpenAIProvider } from './openai.ts';
import type { Provider } from './types.ts';
import { ProviderError } from './types.ts';

const TIMEOUT_MS = 4000;

/**
 * What the check found: the model is there (`ok`); nothing answers, or answers nothing usable
 * (`unreachable`, with why); or the server answered with models to pick from (`pick`: none was
 * chosen and it lists several, or the one chosen is not among them).
 */
export type ModelCheck = { state: 'ok' } | { state: 'unreachable'; why: string } | { state: 'pick'; why: string; models: string[] };

/** GET `url`: its JSON, null for an answer that is not JSON or not 2xx, undefined when nothing answers. */
async function probe(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!res.ok) return null;
    return await res.json().catch(() => null);
  } catch {
    return undefined;
  }
}

export async function checkModel(p: Provider, apiKey?: string): Promise<ModelCheck> {
  if (p instanceof OpenAIProvider) {
    try {
      // with only OPENAI_BASE_URL, this asks the server which model it runs
      await p.ensureModel();
    } catch (err) {
      if (err instanceof ProviderError && err.models?.length) return { state: 'pick', why: `the server at ${p.baseUrl} offers ${err.models.length} models and none is chosen`, models: err.models };
      return { state: 'unreachable', why: err instanceof ProviderError ? err.message : String(err) };
    }
    const got = await probe(`${p.baseUrl}/models`, apiKey ? { authorization: `Bearer ${apiKey}` } : {});
    return got === undefined ? { state: 'unreachable', why: `nothing answers at ${p.baseUrl}` } : { state: 'ok' };
  }
  const base = (p as { baseUrl?: string }).baseUrl;
  if (!base) return { state: 'ok' };
  const tags = (await probe(`${base}/api/tags`)) as { models?: Array<{ name?: string; model?: string }> } | null | undefined;
  if (tags === undefined) return { state: 'unreachable', why: `nothing answers at ${base} (is \`ollama serve\` running?)` };
  const listed = (tags?.models ?? []).map((m) => m.name ?? m.model).filter((x): x is string => typeof x === 'string');
  const names = (tags?.models ?? []).flatMap((m) => [m.name, m.model]).filter((x): x is string => typeof x === 'string');
  const want = p.model.includes(':') ? p.model : `${p.model}:latest`;
  if (tags && names.length > 0 && !names.includes(p.model) && !names.includes(want)) return { state: 'pick', why: `Ollama at ${base} has no model \`${p.model}\` (\`ollama pull ${p.model}\` fetches it)`, models: [...new Set(listed)] };
  return { state: 'ok' };
}
