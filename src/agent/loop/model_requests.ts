// Where model requests go and how long they may take: the provider (flags, then configuration,
// then the environment), the request timeouts and the context window's settings. Its own module
// so that `cxl config`, which prints them, loads none of the session machinery of setup.ts.
import { BUILTIN, type EffectiveConfig } from '../../config/load.ts';
import { formatDuration } from '../../config/duration.ts';
import { parseDuration } from '../../core/duration.ts';
import { ToolError } from '../../core/errors.ts';
import { DEFAULT_COMPACT_THRESHOLD } from '../context/session_context.ts';
import { findWindow, parseWindow, type WindowSettings } from '../context/window.ts';
import { DEFAULT_HTTP, type HttpSettings, type Timeouts } from '../providers/http.ts';
import { ProviderConfigError, selectProvider } from '../providers/select.ts';
import type { Provider } from '../providers/types.ts';

/** The flags that choose the provider and model (cxl acp / run / ui). */
export interface ModelChoice {
  provider?: string;
  model?: string;
  env: Record<string, string | undefined>;
}

/** The flags that override the request timeouts. */
export interface TimeoutFlags {
  connectTimeout?: string;
  firstByteTimeout?: string;
  idleTimeout?: string;
}

// ── step: the model provider ───────────────────────────────────────────────────────────────

function configured(cfg: EffectiveConfig, key: 'provider' | 'model'): string | undefined {
  // the built-in layer's provider/model are defaults, not a choice: the environment may override them
  return cfg.sources.get(key) === BUILTIN ? undefined : cfg.data[key];
}

// ── step: model-request timeouts ───────────────────────────────────────────────────────────

const TIMEOUTS: Array<[keyof Timeouts, 'connect_timeout' | 'first_byte_timeout' | 'idle_timeout', 'connectTimeout' | 'firstByteTimeout' | 'idleTimeout', string]> = [
  ['connectMs', 'connect_timeout', 'connectTimeout', '--connect-timeout'],
  ['firstByteMs', 'first_byte_timeout', 'firstByteTimeout', '--first-byte-timeout'],
  ['idleMs', 'idle_timeout', 'idleTimeout', '--idle-timeout'],
];

/** Each timeout from its flag, else [agents.<name>] / the config files, else the default for a local model on a CPU. */
export function requestSettings(cfg: EffectiveConfig, o: TimeoutFlags): HttpSettings {
  const timeouts: Timeouts = { ...DEFAULT_HTTP.timeouts };
  for (const [field, key, opt, flag] of TIMEOUTS) {
    const f = o[opt];
    if (f !== undefined) {
      const ms = parseDuration(f);
      if (ms === undefined) throw new ToolError('bad_args', `${flag} ${JSON.stringify(f)} is not a duration; use e.g. 30s, 5m, 1m30s or a number of seconds.`);
      timeouts[field] = ms;
    } else if (cfg.data[key] !== undefined) {
      timeouts[field] = parseDuration(cfg.data[key]!) ?? timeouts[field];
    }
  }
  return { timeouts, retry: { ...DEFAULT_HTTP.retry } };
}

/** The provider from flags, then configuration, then the environment; a problem is kept, not thrown (direct commands still work). */
export function modelProvider(cfg: EffectiveConfig, o: ModelChoice, http: HttpSettings): { provider: Provider | null; providerProblem?: string } {
  const providerName = o.provider ?? configured(cfg, 'provider');
  // a provider picked by flag does not inherit a model configured for another provider
  const cfgModel = o.provider && o.provider !== cfg.data.provider ? undefined : configured(cfg, 'model');
  try {
    return { provider: selectProvider({ provider: o.provider, model: o.model }, { provider: providerName, model: cfgModel, inlineToolCalls: cfg.data.inline_tool_calls }, o.env, http) };
  } catch (err) {
    if (!(err instanceof ProviderConfigError)) throw err;
    return { provider: null, providerProblem: err.message };
  }
}

// ── step: the context window ────────────────────────────────────────────────────────────────

/** The window's settings from --context-window and context_window. */
export function windowSettings(cfg: EffectiveConfig, flag: string | undefined): WindowSettings {
  const s: WindowSettings = {};
  if (flag !== undefined) {
    const n = parseWindow(flag);
    if (n === undefined) throw new ToolError('bad_args', `--context-window ${JSON.stringify(flag)} is not a window size; give a whole number of tokens of at least 1024 (e.g. 32768 or 32k).`);
    s.flag = n;
  }
  if (cfg.data.context_window !== undefined) s.config = { tokens: cfg.data.context_window, source: `context_window in ${cfg.sources.get('context_window') ?? 'config'}` };
  return s;
}

/** What `cxl config` prints about the model: provider, window (asked of the server) and timeouts. */
export async function describeModelRequests(cfg: EffectiveConfig, env: Record<string, string | undefined>): Promise<{ lines: string[]; provider: Provider | null }> {
  const http = requestSettings(cfg, {});
  const { provider, providerProblem } = modelProvider(cfg, { env }, http);
  const w = await findWindow(provider, windowSettings(cfg, undefined));
  const t = http.timeouts;
  const fmt = (ms: number) => formatDuration(ms);
  const lines = [
    `# model: ${provider ? `${provider.name} ${provider.model} at ${provider.endpoint}` : `none (${providerProblem})`}`,
    `# context window: ${w.tokens} tokens, from ${w.source}; compaction starts at ${Math.round((cfg.data.compact_threshold ?? DEFAULT_COMPACT_THRESHOLD) * 100)}% (${Math.floor(w.tokens * (cfg.data.compact_threshold ?? DEFAULT_COMPACT_THRESHOLD))} tokens)`,
    `# model-request timeouts: connect ${fmt(t.connectMs)}, first byte ${fmt(t.firstByteMs)}, idle ${fmt(t.idleMs)}`,
  ];
  return { lines, provider };
}

