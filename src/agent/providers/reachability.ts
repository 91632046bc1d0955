// Is the model there? Asked once when a session opens, in the background, so a user learns at
// once (not at the first prompt) that no server answers, or that the model is not on it, and what
// to do. A server that answers anything at all is up; what it lists says whether the model is.
import { OpenAIProvider } from './openai.ts';
import type { Provider } from './types.ts';
import { ProviderError } from './types.ts';

const TIMEOUT_MS = 4000;

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

/** Why no request to this model could work now, in words; undefined when the server is up (and has the model, where it lists them). */
export async function modelProblem(p: Provider, apiKey?: string): Promise<string | undefined> {
  if (p instanceof OpenAIProvider) {
    try {
      // with only OPENAI_BASE_URL, this asks the server which model it runs
      await p.ensureModel();
    } catch (err) {
      return err instanceof ProviderError ? err.message : String(err);
    }
    const got = await probe(`${p.baseUrl}/models`, apiKey ? { authorization: `Bearer ${apiKey}` } : {});
    return got === undefined ? `nothing answers at ${p.baseUrl}` : undefined;
  }
  const base = (p as { baseUrl?: string }).baseUrl;
  if (!base) return undefined;
  const tags = (await probe(`${base}/api/tags`)) as { models?: Array<{ name?: string; model?: string }> } | null | undefined;
  if (tags === undefined) return `nothing answers at ${base} (is \`ollama serve\` running?)`;
  const names = (tags?.models ?? []).flatMap((m) => [m.name, m.model]).filter((x): x is string => typeof x === 'string');
  const want = p.model.includes(':') ? p.model : `${p.model}:latest`;
  if (tags && names.length > 0 && !names.includes(p.model) && !names.includes(want)) return `Ollama at ${base} has no model \`${p.model}\` (run \`ollama pull ${p.model}\`, or pick one of: ${names.slice(0, 8).join(', ')})`;
  return undefined;
}
