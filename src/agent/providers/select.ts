// Picks the model provider: flags over config over the environment. The default is Ollama with
// qwen3:8b (the local model the product is built around); OPENAI_BASE_URL alone selects OpenAI,
// and with no model named, the model is the one that server lists (a local server runs one).
import { OllamaProvider, DEFAULT_OLLAMA_MODEL, ollamaBaseUrl } from './ollama.ts';
import { OpenAIProvider } from './openai.ts';
import type { HttpSettings } from './http.ts';
import type { Provider } from './types.ts';

export type ProviderName = 'openai' | 'ollama';

export interface ProviderChoice {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  /** `inline_tool_calls`: the model writes its tool calls as text the server does not parse */
  inlineToolCalls?: boolean;
}

export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';

export class ProviderConfigError extends Error {}

/**
 * `flags` win over `config`; environment fills what neither sets.
 * Env: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, OLLAMA_HOST, OLLAMA_MODEL.
 */
export function selectProvider(flags: ProviderChoice, config: ProviderChoice, env: Record<string, string | undefined>, http?: HttpSettings): Provider {
  const name = (flags.provider ?? config.provider ?? (env.OPENAI_BASE_URL ? 'openai' : 'ollama')).toLowerCase();
  const model = flags.model ?? config.model;
  const baseUrl = flags.baseUrl ?? config.baseUrl;
  if (name === 'openai') {
    return new OpenAIProvider({
      baseUrl: baseUrl ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
      apiKey: flags.apiKey ?? config.apiKey ?? env.OPENAI_API_KEY,
      // api.openai.com has gpt-4o-mini; another server is asked which model it runs
      model: model ?? (env.OPENAI_MODEL || undefined) ?? ((baseUrl ?? env.OPENAI_BASE_URL) ? undefined : DEFAULT_OPENAI_MODEL),
      http,
      inlineToolCalls: flags.inlineToolCalls ?? config.inlineToolCalls,
    });
  }
  if (name === 'ollama') {
    return new OllamaProvider({ baseUrl: baseUrl ?? ollamaBaseUrl(env.OLLAMA_HOST), model: model ?? env.OLLAMA_MODEL ?? DEFAULT_OLLAMA_MODEL, http, inlineToolCalls: flags.inlineToolCalls ?? config.inlineToolCalls });
  }
  throw new ProviderConfigError(`unknown provider \`${name}\`: use \`ollama\` or \`openai\` (any OpenAI-compatible server: vLLM, llama.cpp, LM Studio, OpenRouter).`);
}

/** What a user reads when no model answers: how to configure one, and that direct commands work. */
export function howToConfigure(p: Provider | undefined, why: string): string {
  return [
    `No model is reachable${p ? ` (${p.name} ${p.model} at ${p.endpoint})` : ''}: ${why}`,
    '',
    'To use a model, either:',
    '- run Ollama (`ollama serve`, then `ollama pull qwen3:8b`); set OLLAMA_HOST if it is not on 127.0.0.1:11434; or',
    '- point at any OpenAI-compatible server: `--provider openai` with OPENAI_BASE_URL (e.g. http://127.0.0.1:8000/v1 for vLLM or llama.cpp) and OPENAI_API_KEY if it needs one;',
    '- choose the model with `--model NAME`.',
    '',
    'Meanwhile direct commands work without a model: `!<command>` runs a shell line, `/tool <name> <json>` calls a tool, `/help` lists them.',
  ].join('\n');
}
