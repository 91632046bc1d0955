// tools_policies.native-git as the toolset reads it: where the repository may be (`_allowed_dir`,
// resolved against the session root; the repository is looked for from the root and never above
// the allowed dir) and the output cap, which may only tighten the built-in 32 KiB.

export const NATIVE_GIT = 'native-git';

/** Every text result is cut at this many bytes unless the policy asks for less. */
export const GIT_MAX_OUTPUT_BYTES = 32 * 1024;

/** The keys tools_policies.native-git accepts, with what each means (agents.toml checks them). */
export const GIT_POLICY_KEYS: Readonly<Record<string, string>> = Object.freeze({
  _allowed_dir: 'the directory the repository may be found in (relative to the session root; default the root itself)',
  _max_output_bytes: `cap of a text result in bytes (at most ${GIT_MAX_OUTPUT_BYTES})`,
});

export interface GitPolicy {
  /** as written; resolved against the session root when the toolset opens */
  allowedDir?: string;
  maxOutputBytes: number;
}

/** The policy from its string values, with a warning for each value it could not use. */
export function parseGitPolicy(raw: Readonly<Record<string, unknown>> | undefined): { policy: GitPolicy; warnings: string[] } {
  const policy: GitPolicy = { maxOutputBytes: GIT_MAX_OUTPUT_BYTES };
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (value === undefined || value === null) continue;
    const v = String(value).trim();
    if (key === '_allowed_dir') {
      if (v) policy.allowedDir = v;
    } else if (key === '_max_output_bytes') {
      const n = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isSafeInteger(n) || n < 1) warnings.push(`tools_policies.${NATIVE_GIT}._max_output_bytes = ${JSON.stringify(v)} is not a positive integer; using ${GIT_MAX_OUTPUT_BYTES}.`);
      else policy.maxOutputBytes = Math.min(n, GIT_MAX_OUTPUT_BYTES);
    } else {
      warnings.push(`tools_policies.${NATIVE_GIT}.${key} is not a known key (known: ${Object.keys(GIT_POLICY_KEYS).join(', ')}); ignored.`);
    }
  }
  return { policy, warnings };
}
