// The envelope `cxl -p` and `cxl run` run under when no --envelope names one: the one the
// configuration sets (`default_envelope` for a conversation, `default_mission_envelope` for a
// mission), else read_only, which reads and never writes or runs a command. What it is and why
// is said on stderr, so nobody is surprised by what the model could not do.
import { UsageError } from './args.ts';

/** With nothing named or configured: the envelope that cannot change anything. */
export const FALLBACK_ENVELOPE = 'read_only';

export interface EnvelopeChoice {
  name: string;
  /** why it is this one, for stderr; none when --envelope named it */
  why?: string;
}

/**
 * `flag`: --envelope; `configured`: what the configuration sets under `key`, and the file;
 * `known`: the envelopes there are (an unknown one is a usage error).
 */
export function chooseEnvelope(command: string, flag: string | undefined, configured: { name: string; from: string } | undefined, key: string, known: readonly string[]): EnvelopeChoice {
  const c: EnvelopeChoice =
    flag !== undefined
      ? { name: flag }
      : configured
        ? { name: configured.name, why: `${key} in ${configured.from}` }
        : { name: FALLBACK_ENVELOPE, why: `no --envelope and no ${key} set: reads only, no writes or commands; --envelope NAME for more` };
  if (!known.includes(c.name)) throw new UsageError(`${command}: no envelope named \`${c.name}\`${c.why ? ` (${c.why})` : ''}; envelopes: ${[...known].sort().join(', ')}.`);
  return c;
}
