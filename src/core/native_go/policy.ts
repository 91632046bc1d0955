// tools_policies.native-go: the caps on how much an answer lists, which may only tighten the
// built-in ceilings (hostile or mistaken values are clamped, never refused).

export const NATIVE_GO = 'native-go';

/** default and ceiling of each capped list */
export const GO_CAPS = Object.freeze({
  references: { default: 50, ceiling: 200 },
  symbols: { default: 200, ceiling: 1000 },
  diagnostics: { default: 100, ceiling: 500 },
});

export const GO_POLICY_KEYS: Readonly<Record<string, string>> = Object.freeze({
  _max_references: `the most references go_references lists (at most ${GO_CAPS.references.ceiling})`,
  _max_symbols: `the most symbols go_symbols lists (at most ${GO_CAPS.symbols.ceiling})`,
  _max_diagnostics: `the most diagnostics go_diagnostics lists (at most ${GO_CAPS.diagnostics.ceiling})`,
});

export interface GoPolicy {
  maxReferences: number;
  maxSymbols: number;
  maxDiagnostics: number;
}

export function parseGoPolicy(raw: Readonly<Record<string, unknown>> | undefined): { policy: GoPolicy; warnings: string[] } {
  const policy: GoPolicy = { maxReferences: GO_CAPS.references.ceiling, maxSymbols: GO_CAPS.symbols.ceiling, maxDiagnostics: GO_CAPS.diagnostics.ceiling };
  const warnings: string[] = [];
  const keys: Record<string, keyof GoPolicy> = { _max_references: 'maxReferences', _max_symbols: 'maxSymbols', _max_diagnostics: 'maxDiagnostics' };
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (value === undefined || value === null) continue;
    const v = String(value).trim();
    if (!Object.hasOwn(keys, key)) {
      warnings.push(`tools_policies.${NATIVE_GO}.${key} is not a known key (known: ${Object.keys(GO_POLICY_KEYS).join(', ')}); ignored.`);
      continue;
    }
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < 1) warnings.push(`tools_policies.${NATIVE_GO}.${key} = ${JSON.stringify(v)} is not a positive integer; using the ceiling.`);
    else policy[keys[key]] = Math.min(n, policy[keys[key]]);
  }
  return { policy, warnings };
}

/** A model's `max` within the default, the policy and the ceiling. */
export function capOf(asked: unknown, cap: { default: number; ceiling: number }, policyMax: number): number {
  const n = typeof asked === 'number' && Number.isFinite(asked) && asked > 0 ? Math.floor(asked) : cap.default;
  return Math.max(1, Math.min(n, cap.ceiling, policyMax));
}
