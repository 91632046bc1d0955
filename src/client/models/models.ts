// Which models a session offers and which one is in use, from either way agents say it: the
// standard `configOptions` entry of category `model` (set with session/set_config_option), or the
// older `models` field ({availableModels, currentModelId}, set with session/set_model; outside the
// stable schema, but the SDK passes it through) that several agents still send. `--model` and `/model` match a
// wish against ids and names, case-insensitively; nothing is sent that the agent did not offer.
import type { SessionConfigOption } from '@agentclientprotocol/sdk';

export interface ModelChoice {
  id: string;
  name: string;
  description?: string;
}

export interface ModelState {
  /** How the agent offers them, and so how a switch is sent. */
  source: 'config_option' | 'models';
  /** The config option's id (source `config_option`). */
  configId?: string;
  current?: string;
  available: ModelChoice[];
}

function choicesOfOption(opt: Extract<SessionConfigOption, { type: 'select' }>): ModelChoice[] {
  const flat = opt.options.flatMap((x) => ('options' in x ? x.options : [x]));
  return flat.map((v) => ({ id: v.value, name: v.name || v.value, ...(v.description ? { description: v.description } : {}) }));
}

/** The model state a session/new (or load, or config update) answer describes, if any (`models`: that answer's field of that name). */
export function modelStateOf(configOptions: SessionConfigOption[] | null | undefined, models?: unknown): ModelState | undefined {
  const opt = configOptions?.find((o) => o.category === 'model' && o.type === 'select');
  if (opt && opt.type === 'select') return { source: 'config_option', configId: opt.id, current: opt.currentValue, available: choicesOfOption(opt) };
  const m = models as { availableModels?: unknown; currentModelId?: unknown } | null | undefined;
  if (!m || !Array.isArray(m.availableModels)) return undefined;
  const available: ModelChoice[] = [];
  for (const x of m.availableModels as Array<Record<string, unknown>>) {
    if (!x || typeof x.modelId !== 'string') continue;
    available.push({ id: x.modelId, name: typeof x.name === 'string' && x.name !== '' ? x.name : x.modelId, ...(typeof x.description === 'string' && x.description ? { description: x.description } : {}) });
  }
  return { source: 'models', current: typeof m.currentModelId === 'string' ? m.currentModelId : undefined, available };
}

/** Case and punctuation aside (`gpt-5.4 mini` is `gpt-5.4-mini`, `sonnet 1m` is `sonnet[1m]`). */
const loose = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}.]+/gu, '-').replace(/^-+|-+$/g, '');

/**
 * A wish matched to one offered model: an exact id or name first, then the same with case and
 * separators aside, then a unique prefix, then a unique substring. Several matches: no hit, the candidates.
 */
export function matchModel(state: ModelState, wish: string): { hit?: ModelChoice; candidates: ModelChoice[] } {
  const all = state.available;
  const tests: ((c: ModelChoice) => boolean)[] = [
    (c) => c.id === wish.trim() || c.name === wish.trim(),
    (c) => loose(c.id) === loose(wish) || loose(c.name) === loose(wish),
    (c) => loose(c.id).startsWith(loose(wish)) || loose(c.name).startsWith(loose(wish)),
    (c) => loose(c.id).includes(loose(wish)) || loose(c.name).includes(loose(wish)),
  ];
  for (const [i, t] of tests.entries()) {
    const found = all.filter(t);
    // an exact id or name is the one meant even when another model also has that name
    if (found.length === 1 || (found.length > 1 && i < 2)) return { hit: found[0], candidates: found };
    if (found.length > 1) return { candidates: found };
  }
  return { candidates: [] };
}

/** How the status line names the model in use: its name, else its id. */
export function modelLabel(state: ModelState | undefined): string | undefined {
  if (!state?.current) return undefined;
  return state.available.find((c) => c.id === state.current)?.name ?? state.current;
}

/** Ids (and names, when different) in a sentence, for a message saying what there is. */
export function modelNames(state: ModelState, max = 12): string {
  const names = state.available.slice(0, max).map((c) => (c.name !== c.id ? `${c.id} (${c.name})` : c.id));
  const more = state.available.length - names.length;
  return `${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
