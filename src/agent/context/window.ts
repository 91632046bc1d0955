// How big a session's context window is, and where that number came from: `--context-window`
// wins; otherwise what the server says (Ollama /api/show, llama.cpp /props, the context fields
// of /v1/models), lowered to `context_window` from config when that is smaller; `context_window`
// alone when the server says nothing; else a stated default. Ollama's own figure is the model's
// trained maximum, and a window costs memory as it grows, so it is capped unless configured.
import type { Provider } from '../providers/types.ts';

/** Used when neither the server, the configuration nor a flag says. */
export const DEFAULT_CONTEXT_WINDOW = 8192;
/** The most of an Ollama model's trained window used unless context_window or the flag asks for more. */
export const OLLAMA_AUTO_MAX = 32_768;
/** Below this a coding session cannot hold its own system prompt and tools. */
export const MIN_CONTEXT_WINDOW = 1024;

export interface WindowChoice {
  tokens: number;
  /** where it came from, for `cxl config` and messages */
  source: string;
}

export interface WindowSettings {
  /** --context-window */
  flag?: number;
  /** context_window from configuration, with the file (and agent section) it came from */
  config?: WindowChoice;
}

export async function findWindow(provider: Provider | null, s: WindowSettings, signal?: AbortSignal): Promise<WindowChoice> {
  if (s.flag !== undefined) return { tokens: s.flag, source: '--context-window' };
  let server;
  try {
    server = provider ? await provider.serverWindow(signal) : undefined;
  } catch {
    server = undefined;
  }
  if (server && s.config) {
    if (s.config.tokens < server.tokens) return { tokens: s.config.tokens, source: `${s.config.source} (the server allows ${server.tokens})` };
    return { tokens: server.tokens, source: `${server.source} (context_window ${s.config.tokens} is more than the server allows)` };
  }
  if (server) {
    if (provider?.name === 'ollama' && server.tokens > OLLAMA_AUTO_MAX) {
      return { tokens: OLLAMA_AUTO_MAX, source: `${server.source} = ${server.tokens}, capped at ${OLLAMA_AUTO_MAX} (set context_window for more)` };
    }
    return server;
  }
  if (s.config) return s.config;
  return { tokens: DEFAULT_CONTEXT_WINDOW, source: `default (${provider ? `${provider.name} at ${provider.endpoint} did not say (or did not answer)` : 'no provider'}; set context_window or --context-window)` };
}

/** Parses a window given as a flag or config value: a whole number of tokens, `32k` allowed. */
export function parseWindow(v: string | number): number | undefined {
  const s = String(v).trim().toLowerCase();
  const m = /^(\d+)(k)?$/.exec(s);
  if (!m) return undefined;
  const n = Number(m[1]) * (m[2] ? 1024 : 1);
  return Number.isSafeInteger(n) && n >= MIN_CONTEXT_WINDOW ? n : undefined;
}
