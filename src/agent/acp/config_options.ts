// A session's ACP config options: `mode` (the envelopes, the same list and current value as the
// `modes` field, which the spec is retiring) and `model` (the models the provider's server lists).
// Config-option clients (Zed, acpx) show pickers from these and set them with
// session/set_config_option; the list of models is asked of the server once and kept a while, so
// session/new never waits on it.
import type * as acp from '@agentclientprotocol/sdk';
import type { Provider } from '../providers/types.ts';

/** A mode as the option lists it (session.ts's SessionMode has this shape). */
interface ModeChoice {
  id: string;
  name: string;
  description?: string;
}

export const CONFIG_MODE = 'mode';
export const CONFIG_MODEL = 'model';

/** How long a listing of the server's models is used before it is asked again. */
const MODELS_FRESH_MS = 60_000;

/** The provider's models as its server lists them (`/v1/models`, `/api/tags`), asked at most once a minute. */
export class ModelCatalog {
  #known: string[] | undefined;
  #at = 0;
  #asking: Promise<string[] | undefined> | undefined;

  constructor(private readonly provider: Provider | null) {}

  /** The last listing, if any (undefined: not asked yet, or the server did not say). */
  known(): string[] | undefined {
    return this.#known;
  }

  /** A fresh listing (one request at a time); the last one when the server does not answer now. */
  refresh(): Promise<string[] | undefined> {
    if (!this.provider?.listModels) return Promise.resolve(undefined);
    if (this.#known && Date.now() - this.#at < MODELS_FRESH_MS) return Promise.resolve(this.#known);
    this.#asking ??= this.provider
      .listModels()
      .catch(() => undefined)
      .then((list) => {
        if (list && list.length > 0) {
          this.#known = [...new Set(list)];
          this.#at = Date.now();
        }
        return this.#known;
      })
      .finally(() => (this.#asking = undefined));
    return this.#asking;
  }
}

/** The mode option: one value per envelope, in the order of `modes`. */
function modeOption(modes: ModeChoice[], current: string): acp.SessionConfigOption {
  return {
    type: 'select',
    id: CONFIG_MODE,
    name: 'Mode',
    description: 'The envelope: what tool calls may do unasked, what asks, what is refused.',
    category: 'mode',
    currentValue: current,
    options: modes.map((m) => ({ value: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) })),
  };
}

/**
 * The model option: the server's models, the one in use first when the server did not list it.
 * `unchosen`: none is chosen yet (the server lists several): the current value is empty, one of
 * the listed ones is to be picked.
 */
function modelOption(current: string, listed: string[] | undefined, unchosen: boolean): acp.SessionConfigOption {
  if (unchosen && listed?.length) return { type: 'select', id: CONFIG_MODEL, name: 'Model', category: 'model', currentValue: '', options: listed.map((v) => ({ value: v, name: v })) };
  const values = listed?.includes(current) ? listed : [current, ...(listed ?? [])];
  return { type: 'select', id: CONFIG_MODEL, name: 'Model', category: 'model', currentValue: current, options: values.map((v) => ({ value: v, name: v })) };
}

/** Every config option of a session, as session/new, load, resume and set_config_option answer. */
export function configOptions(modes: ModeChoice[], mode: string, model: string | undefined, listed: string[] | undefined, unchosen = false): acp.SessionConfigOption[] {
  return [modeOption(modes, mode), ...(model !== undefined ? [modelOption(model, listed, unchosen)] : [])];
}
