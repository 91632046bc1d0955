// A folder whose own configuration (.contenox/agents.toml, its chain, its commands) is held back
// because it is not trusted (config/trust.ts): the UI offers to trust it at start, after showing
// what trusting it would change. Trusting writes the record (bound to the content shown) and opens
// a new session, which the built-in agent builds with the folder's configuration applied.
import { homeDir, projectConfig } from '../../config/load.ts';
import { trustFolder } from '../../config/trust.ts';
import { describePreview, trustPreview } from '../../config/trust_preview.ts';

export interface TrustOffer {
  dir: string;
  /** the content shown, so what is trusted is what was shown */
  hash: string;
  /** trusted before, changed since */
  changed: boolean;
  files: string[];
  /** what trusting it changes, as lines (a diff of the effective configuration) */
  preview: string[];
  /** closed without an answer; /trust opens it again */
  dismissed?: boolean;
}

/**
 * The provider and model the built-in agent runs when no configuration names them: the flags,
 * else the environment (OPENAI_BASE_URL selects an OpenAI-compatible server, which is asked for
 * its model when none is named), as the agent's provider selection reads them.
 */
export function environmentModel(flags: { provider?: string; model?: string }, env: Record<string, string | undefined>): { provider: string; model: string } {
  const provider = (flags.provider ?? (env.OPENAI_BASE_URL ? 'openai' : 'ollama')).toLowerCase();
  const model = flags.model ?? (provider === 'openai' ? env.OPENAI_MODEL || (env.OPENAI_BASE_URL ? "the server's model" : 'gpt-4o-mini') : env.OLLAMA_MODEL || 'qwen3:8b');
  return { provider, model };
}

/** The offer for `cwd`, or undefined when its configuration applies already (or it has none). `flags`: --provider and --model, which the session runs. */
export function trustOfferFor(cwd: string, env: Record<string, string | undefined>, flags: { provider?: string; model?: string } = {}): TrustOffer | undefined {
  const home = homeDir(env.HOME);
  const p = projectConfig({ cwd, home, env });
  if ((p.state !== 'untrusted' && p.state !== 'changed') || !p.material) return undefined;
  const preview = trustPreview({ cwd, home }, environmentModel(flags, env));
  return { dir: p.material.dir, hash: p.material.hash, changed: p.state === 'changed', files: Object.keys(p.material.files), preview: describePreview(preview) };
}

/**
 * Records the trust; throws when the configuration changed since it was shown, or the store
 * cannot be written. Returns a sentence when a damaged store was kept aside to do it.
 */
export async function acceptTrust(offer: TrustOffer, env: Record<string, string | undefined>): Promise<string | undefined> {
  const done = await trustFolder(offer.dir, homeDir(env.HOME), offer.hash);
  return done?.aside ? `The trust store was damaged (${done.aside.why}): it is kept as ${done.aside.file}, and a new one was started.` : undefined;
}
