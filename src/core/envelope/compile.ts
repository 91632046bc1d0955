// Compilation of a resolved envelope into the form decisions use: glob lists compiled once,
// path-only deny rules grouped, program lists lower-cased, prefixes split into words.
import { GlobList } from './glob_lists.ts';
import type { ResolvedEnvelope, ResolvedRule, Sourced } from './resolve.ts';
import { resolveEnvelope } from './resolve.ts';
import type { EnvelopeRule, EnvelopeSpec, GrantSpec } from './spec.ts';

export interface CompiledRule {
  tools: string[];
  anyTool: boolean;
  paths: GlobList | null;
  glob?: string;
  programs: Set<string> | null;
  program?: string;
  reason?: string;
  from: string;
}

export interface CompiledList<T> {
  list: T;
  from: string;
}

/** An envelope ready for fast decisions. Build once per session (or per config change). */
export interface CompiledEnvelope {
  readonly name: string;
  readonly resolved: ResolvedEnvelope;
  /** path-only always_deny rules grouped by their tool patterns, one combined glob list each:
   * a call that matches none costs one regex test per group and path */
  readonly denyGroups: DenyGroup[];
  /** the always-ask rules, grouped like denyGroups */
  readonly askGroups: DenyGroup[];
  readonly alwaysAllow: CompiledRule[];
  readonly writeDeny?: CompiledList<GlobList>;
  readonly readDeny?: CompiledList<GlobList>;
  readonly readApprove?: CompiledList<GlobList>;
  readonly writeApprove?: CompiledList<GlobList>;
  readonly tools: Map<string, Sourced<GrantSpec>>;
  readonly blacklist?: CompiledList<Set<string>>;
  readonly askAlways?: CompiledList<Set<string>>;
  readonly prefixes?: CompiledList<string[][]>;
  /**
   * A mission unit's: the envelope of the session that fired it. Every decision is the stricter
   * of this envelope's and the ceiling's (ceiling.ts).
   */
  readonly ceiling?: CompiledEnvelope;
}

export interface DenyGroup {
  tools: string[];
  anyTool: boolean;
  /** every path glob of the group's rules (only used when the group has several rules) */
  combined: GlobList;
  rules: CompiledRule[];
}

/**
 * Path-only rules with the same tools form one group (every rule of always_deny denies, so
 * their order only decides which rule a sentence cites); a rule naming programs is its own.
 */
function groupDenies(rules: CompiledRule[]): DenyGroup[] {
  const groups: DenyGroup[] = [];
  const byKey = new Map<string, { tools: string[]; anyTool: boolean; rules: CompiledRule[]; at: number }>();
  for (const r of rules) {
    if (r.glob === undefined || r.programs) {
      groups.push({ tools: r.tools, anyTool: r.anyTool, rules: [r], combined: new GlobList([]) });
      continue;
    }
    const key = r.tools.join('\0');
    let g = byKey.get(key);
    if (!g) {
      g = { tools: r.tools, anyTool: r.anyTool, rules: [], at: groups.length };
      byKey.set(key, g);
      groups.push({ tools: r.tools, anyTool: r.anyTool, rules: g.rules, combined: new GlobList([]) });
    }
    g.rules.push(r);
  }
  for (const g of byKey.values()) groups[g.at] = { ...groups[g.at], combined: new GlobList(g.rules.map((r) => r.glob!)) };
  return groups;
}

function compileRule(r: ResolvedRule): CompiledRule {
  const tools = Array.isArray(r.tool) ? r.tool : [r.tool];
  return {
    tools,
    anyTool: tools.includes('*'),
    paths: r.path !== undefined ? new GlobList([r.path]) : null,
    glob: r.path,
    programs: r.program !== undefined ? new Set(r.program.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean)) : null,
    program: r.program,
    reason: r.reason,
    from: r.from,
  };
}

const globs = (s?: Sourced<string[]>) => (s && s.value.length ? { list: new GlobList(s.value), from: s.from } : undefined);
const programSet = (s?: Sourced<string[]>) => (s && s.value.length ? { list: new Set(s.value.map((p) => p.toLowerCase())), from: s.from } : undefined);

export function compileEnvelope(resolved: ResolvedEnvelope): CompiledEnvelope {
  return {
    name: resolved.name,
    resolved,
    denyGroups: groupDenies(resolved.always_deny.map(compileRule)),
    askGroups: groupDenies(resolved.always_ask.map(compileRule)),
    alwaysAllow: resolved.always_allow.map(compileRule),
    writeDeny: globs(resolved.write.deny_paths),
    readDeny: globs(resolved.read.deny_paths),
    readApprove: globs(resolved.read.approve_paths),
    writeApprove: globs(resolved.write.approve_paths),
    tools: new Map(Object.entries(resolved.tools)),
    blacklist: programSet(resolved.shell.blacklist),
    askAlways: programSet(resolved.shell.ask_always),
    prefixes: resolved.shell.prefix_allowlist?.value.length
      ? { list: resolved.shell.prefix_allowlist.value.map((p) => p.trim().split(/\s+/)), from: resolved.shell.prefix_allowlist.from }
      : undefined,
  };
}

/** Resolve and compile in one step. */
export function buildEnvelope(name: string, specs: Record<string, EnvelopeSpec>, floor: readonly EnvelopeRule[] = []): CompiledEnvelope {
  return compileEnvelope(resolveEnvelope(name, specs, floor));
}
