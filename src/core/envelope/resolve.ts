// Resolution of an envelope's `extends` chain: a child's values replace its parent's, a bare
// axis grant replaces the whole axis, always_deny / always_allow accumulate, the floor goes first.
import { ToolError } from '../errors.ts';
import type { EnvelopeRule, EnvelopeSpec, GrantSpec, MissionsAxisSpec, PathAxisSpec, ShellAxisSpec } from './spec.ts';

export interface Sourced<T> {
  value: T;
  /** the envelope that set it */
  from: string;
}

export interface ResolvedRule extends EnvelopeRule {
  from: string;
}

export interface ResolvedEnvelope {
  name: string;
  description?: string;
  /** the `extends` chain, this envelope first */
  lineage: string[];
  default_action?: Sourced<GrantSpec>;
  read: ResolvedPathAxis;
  write: ResolvedPathAxis;
  shell: ResolvedShellAxis;
  /** missions.fire and missions.answer, each from the envelope that set it */
  missions: Resolved<MissionsAxisSpec>;
  tools: Record<string, Sourced<GrantSpec>>;
  always_deny: ResolvedRule[];
  /** the built-in always-ask rules (from the floor) */
  always_ask: ResolvedRule[];
  always_allow: ResolvedRule[];
}

/** An axis as written, each value tagged with the envelope that set it (`bare` is spent in layering). */
type Resolved<S> = { [K in Exclude<keyof S, 'bare'>]?: Sourced<NonNullable<S[K]>> };
type ResolvedPathAxis = Resolved<PathAxisSpec>;
type ResolvedShellAxis = Resolved<ShellAxisSpec>;

/** A child's axis over its parent's: each value it sets replaces the parent's; a bare grant replaces the whole axis. */
function layerAxis<S extends { bare?: boolean }>(base: Resolved<S>, spec: S | undefined, from: string): Resolved<S> {
  if (!spec) return base;
  const out: Record<string, Sourced<unknown>> = spec.bare ? {} : { ...(base as Record<string, Sourced<unknown>>) };
  for (const [k, value] of Object.entries(spec)) if (k !== 'bare' && value !== undefined) out[k] = { value, from };
  return out as Resolved<S>;
}

/**
 * Resolves `name` against `specs` following `extends`. A child's list replaces its parent's,
 * a bare axis grant replaces the whole axis, always_deny / always_allow accumulate. `floor`
 * rules (the credential quarantine and the write wall) are put first in every envelope's
 * always_deny (and its `ask` rules in always_ask), so no envelope can drop them by inheritance.
 */
export function resolveEnvelope(name: string, specs: Record<string, EnvelopeSpec>, floor: readonly EnvelopeRule[] = []): ResolvedEnvelope {
  if (!Object.hasOwn(specs, name)) {
    throw new ToolError('bad_args', `unknown envelope \`${name}\`. Known envelopes: ${Object.keys(specs).sort().join(', ')}. Define [envelopes.${name}] in agents.toml or pick one of these.`);
  }
  const lineage: string[] = [];
  for (let cur: string | undefined = name; cur !== undefined; cur = specs[cur].extends) {
    if (lineage.includes(cur)) {
      throw new ToolError('bad_args', `envelope \`${name}\`: \`extends\` forms a cycle (${[...lineage, cur].join(' → ')}). Break the cycle.`);
    }
    if (!Object.hasOwn(specs, cur)) {
      const child = lineage[lineage.length - 1];
      throw new ToolError('bad_args', `envelope \`${child}\` extends \`${cur}\`, which is not defined. Known envelopes: ${Object.keys(specs).sort().join(', ')}.`);
    }
    lineage.push(cur);
  }
  let env: ResolvedEnvelope = {
    name,
    lineage,
    read: {},
    write: {},
    shell: {},
    missions: {},
    tools: {},
    always_deny: floor.filter((r) => !r.ask).map((r) => ({ ...r, from: 'built-in' })),
    always_ask: floor.filter((r) => r.ask).map((r) => ({ ...r, from: 'built-in' })),
    always_allow: [],
  };
  // Apply from the root ancestor down to `name`.
  for (let k = lineage.length - 1; k >= 0; k--) {
    const from = lineage[k];
    const s = specs[from];
    env = {
      ...env,
      description: s.description ?? env.description,
      default_action: s.default_action ? { value: s.default_action, from } : env.default_action,
      read: layerAxis(env.read, s.files?.read, from),
      write: layerAxis(env.write, s.files?.write, from),
      shell: layerAxis(env.shell, s.shell, from),
      missions: layerAxis(env.missions, s.missions, from),
      tools: { ...env.tools, ...Object.fromEntries(Object.entries(s.tools ?? {}).map(([p, g]) => [p, { value: g, from }])) },
      always_deny: [...env.always_deny, ...(s.always_deny ?? []).map((r) => ({ ...r, from }))],
      always_allow: [...env.always_allow, ...(s.always_allow ?? []).map((r) => ({ ...r, from }))],
    };
  }
  return env;
}
