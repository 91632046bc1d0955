// tools_policies.native-jq and jq_query's limits: the built-in caps are ceilings a policy may only
// lower (input 8 MiB, output 32 KiB, 5000 values, deadline 30 s), never raise.

export const NATIVE_JQ = 'native-jq';

export const JQ_LIMITS = Object.freeze({
  /** bytes of the document, read from a file or given inline */
  maxInputBytes: 8 * 1024 * 1024,
  /** bytes of the values emitted, in total */
  maxOutputBytes: 32 * 1024,
  /** bytes of the filter */
  maxFilterBytes: 4096,
  /** documents of a stream (JSON Lines, multi-document YAML) */
  maxDocuments: 1000,
  /** nesting of arrays and objects */
  maxDepth: 200,
  /** values when `max` is not given, and the most `max` may ask for */
  defaultValues: 200,
  maxValues: 5000,
  /** ms: the default deadline and the most `deadline_ms` may ask for */
  defaultDeadlineMs: 2000,
  maxDeadlineMs: 30000,
});

export const JQ_POLICY_KEYS: Readonly<Record<string, string>> = Object.freeze({
  _allowed_dir: 'the directory `path` is confined to (relative to the session root; default the root)',
  _max_input_bytes: `the largest document in bytes (at most ${JQ_LIMITS.maxInputBytes})`,
  _max_output_bytes: `the most bytes of values a call returns (at most ${JQ_LIMITS.maxOutputBytes})`,
  _max_values: `the most values a call returns (at most ${JQ_LIMITS.maxValues})`,
  _deadline_ms: `the longest deadline a call may ask for, in ms (at most ${JQ_LIMITS.maxDeadlineMs})`,
});

export interface JqPolicy {
  allowedDir?: string;
  maxInputBytes: number;
  maxOutputBytes: number;
  maxValues: number;
  maxDeadlineMs: number;
}

export function parseJqPolicy(raw: Readonly<Record<string, unknown>> | undefined): { policy: JqPolicy; warnings: string[] } {
  const policy: JqPolicy = { maxInputBytes: JQ_LIMITS.maxInputBytes, maxOutputBytes: JQ_LIMITS.maxOutputBytes, maxValues: JQ_LIMITS.maxValues, maxDeadlineMs: JQ_LIMITS.maxDeadlineMs };
  const warnings: string[] = [];
  const caps: Record<string, keyof JqPolicy> = { _max_input_bytes: 'maxInputBytes', _max_output_bytes: 'maxOutputBytes', _max_values: 'maxValues', _deadline_ms: 'maxDeadlineMs' };
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (value === undefined || value === null) continue;
    const v = String(value).trim();
    if (key === '_allowed_dir') {
      if (v) policy.allowedDir = v;
    } else if (Object.hasOwn(caps, key)) {
      const field = caps[key] as Exclude<keyof JqPolicy, 'allowedDir'>;
      const n = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isSafeInteger(n) || n < 1) warnings.push(`tools_policies.${NATIVE_JQ}.${key} = ${JSON.stringify(v)} is not a positive integer; using ${policy[field]}.`);
      else policy[field] = Math.min(n, policy[field]);
    } else {
      warnings.push(`tools_policies.${NATIVE_JQ}.${key} is not a known key (known: ${Object.keys(JQ_POLICY_KEYS).join(', ')}); ignored.`);
    }
  }
  return { policy, warnings };
}
