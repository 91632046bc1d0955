// The envelope engine: decides allow / approve / deny for one tool call from the session's
// envelope (REFERENCE 7). Pure and synchronous: callers pass the facts (tool, requested and
// resolved paths, the checked steps of a shell line); nothing here touches the disk.
import { ToolError } from './errors.ts';
import { GlobList, normalizeForMatch, widenForDeny } from './envelope_glob.ts';
import type { SandboxMode } from './shell/sandbox/settings.ts';

export type Grant = 'allow' | 'approve' | 'deny';
export const GRANTS: readonly Grant[] = ['allow', 'approve', 'deny'];

/** A grant with how long an ask waits (ms); an unanswered ask resolves as deny. */
export interface GrantSpec {
  grant: Grant;
  timeoutMs?: number;
}

export interface PathAxisSpec {
  /** written as a bare grant (`files.read = "allow"`): replaces the parent's whole axis */
  bare?: boolean;
  grant?: GrantSpec;
  /** how long an ask raised on this axis waits (ms) */
  timeoutMs?: number;
  deny_paths?: string[];
  approve_paths?: string[];
}

export interface ShellAxisSpec {
  /** written as a bare grant (`shell = "deny"`): replaces the parent's whole axis */
  bare?: boolean;
  grant?: GrantSpec;
  /** how long an ask raised on this axis waits (ms) */
  timeoutMs?: number;
  blacklist?: string[];
  prefix_allowlist?: string[];
  ask_always?: string[];
  substitution?: GrantSpec;
  /** the OS sandbox for commands: auto (default), required, off */
  sandbox?: SandboxMode;
  /** commands may use the network (default true); false runs them with --unshare-net */
  network?: boolean;
}

/** An always_deny / always_allow rule: a tool pattern (or several) with an optional path glob. */
export interface EnvelopeRule {
  tool: string | string[];
  path?: string;
  /** program names (shell): the rule matches when a step runs one of them */
  program?: string;
  /** why, shown in the decision sentence */
  reason?: string;
  /** built-in floor rules only: asked in every envelope instead of denied (the always-ask tier) */
  ask?: boolean;
}

/** One envelope as written at one level (before `extends` is resolved). */
export interface EnvelopeSpec {
  extends?: string;
  description?: string;
  default_action?: GrantSpec;
  files?: { read?: PathAxisSpec; write?: PathAxisSpec };
  shell?: ShellAxisSpec;
  tools?: Record<string, GrantSpec>;
  always_deny?: EnvelopeRule[];
  always_allow?: EnvelopeRule[];
}

export const ENVELOPE_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** local_fs tools on each file axis (REFERENCE 7): between them, every local_fs tool. */
export const READ_TOOLS: readonly string[] = ['read_file', 'read_file_range', 'list_dir', 'grep', 'find_files', 'stat_file', 'count_stats'];
export const WRITE_TOOLS: readonly string[] = ['write_file', 'edit_file', 'sed'];
const READ_SET = new Set(READ_TOOLS);
const WRITE_SET = new Set(WRITE_TOOLS);

export type Axis = 'files.read' | 'files.write' | 'shell' | null;

export function axisOf(toolset: string, tool: string): Axis {
  if (toolset === 'local_fs') return READ_SET.has(tool) ? 'files.read' : WRITE_SET.has(tool) ? 'files.write' : null;
  if (toolset === 'local_shell') return 'shell';
  return null;
}

// ── facts and decisions ────────────────────────────────────────────────────────────────────

export interface ShellStep {
  /** the argv as the checker read it; argv[0] is the program as written */
  argv: string[];
}

export interface ShellFacts {
  command: string;
  /** every step of the line (cd steps included) */
  steps: ShellStep[];
  /**
   * Set when the line holds something whose effect cannot be read statically (command or
   * process substitution, `$VAR`, backticks, anything the checker could not split into steps).
   * The words of such a line are still scanned for blacklisted and ask_always programs.
   */
  opaque?: string;
}

export interface CallFacts {
  toolset: string;
  tool: string;
  /** paths as the model asked for them (root-relative or absolute) */
  paths?: readonly string[];
  /** the same after symlink resolution (root-relative) */
  resolved?: readonly string[];
  /** absolute forms (lexical and real), tested by deny and approve lists only: an allow list
   * written relative to the root must not need them to match */
  absolute?: readonly string[];
  shell?: ShellFacts;
  /**
   * For a toolset no axis names (remote tools): whether the call reads or writes. After the
   * tools patterns and always_allow, the files.read or files.write grant decides it, so a
   * `GET` is a read and a `POST` asks where writes ask. Local tools' axes ignore it.
   */
  access?: 'read' | 'write';
  /** what made it one, for the decision's sentence: `a POST` */
  accessReason?: string;
  /**
   * What the filesystem says about the call's paths beyond their names (found by the caller:
   * a git dir by shape, the hooks dir git config names): a `write_wall` fact denies a write or
   * shell line like the floor; an `always_ask` fact asks like the always-ask rules.
   */
  protected?: readonly ProtectedFact[];
}

export interface ProtectedFact {
  tier: 'write_wall' | 'always_ask';
  /** the path as shown */
  path: string;
  /** what it was found to be, for the sentence: "inside the git dir `bare.git`" */
  why: string;
}

/** Which rule decided, in the order of REFERENCE 7. */
export type RuleId =
  | 'always_deny'
  | 'always_ask'
  | 'files.write.deny_paths'
  | 'files.read.deny_paths'
  | 'files.read.approve_paths'
  | 'files.write.approve_paths'
  | 'tools'
  | 'always_allow'
  | 'files.read'
  | 'files.write'
  | 'shell.blacklist'
  | 'shell.substitution'
  | 'shell.prefix_allowlist'
  | 'shell.ask_always'
  | 'shell'
  | 'default_action';

/**
 * Every rule in first-match order. `always_ask` is not in it: it is an overlay that turns the
 * decision of these rules into an ask unless they deny.
 */
export const RULE_ORDER: readonly RuleId[] = [
  'always_deny',
  'files.write.deny_paths',
  'files.read.deny_paths',
  'files.read.approve_paths',
  'files.write.approve_paths',
  'tools',
  'always_allow',
  'files.read',
  'files.write',
  'shell.blacklist',
  'shell.substitution',
  'shell.prefix_allowlist',
  'shell.ask_always',
  'shell',
  'default_action',
];

export interface Decision {
  action: Grant;
  rule: RuleId;
  /** the envelope in use */
  envelope: string;
  /** the envelope that defined the matched rule, when it was inherited */
  from?: string;
  /** what matched: a glob, a program, a tools pattern, a prefix */
  matched?: string;
  /** how long an ask waits (approve only) */
  timeoutMs?: number;
  /** one human sentence: "approve: shell program `rm` is in ask_always of envelope default" */
  sentence: string;
}

// ── resolution: extends, inheritance ───────────────────────────────────────────────────────

interface Sourced<T> {
  value: T;
  /** the envelope that set it */
  from: string;
}

interface ResolvedRule extends EnvelopeRule {
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
      tools: { ...env.tools, ...Object.fromEntries(Object.entries(s.tools ?? {}).map(([p, g]) => [p, { value: g, from }])) },
      always_deny: [...env.always_deny, ...(s.always_deny ?? []).map((r) => ({ ...r, from }))],
      always_allow: [...env.always_allow, ...(s.always_allow ?? []).map((r) => ({ ...r, from }))],
    };
  }
  return env;
}

// ── compilation ────────────────────────────────────────────────────────────────────────────

interface CompiledRule {
  tools: string[];
  anyTool: boolean;
  paths: GlobList | null;
  glob?: string;
  programs: Set<string> | null;
  program?: string;
  reason?: string;
  from: string;
}

interface CompiledList<T> {
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
}

interface DenyGroup {
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

// ── matching helpers ───────────────────────────────────────────────────────────────────────

/** `*`, `<toolset>` or `<toolset>.<tool>` against a call. */
export function toolPatternMatches(pattern: string, toolset: string, tool: string): boolean {
  if (pattern === '*') return true;
  if (pattern === toolset) return true;
  return pattern.length === toolset.length + 1 + tool.length && pattern.startsWith(toolset) && pattern[toolset.length] === '.' && pattern.endsWith(tool);
}

/** The name a program runs as, for deny-type lists: its base name, lower-cased. */
function programKey(word: string): string {
  const slash = word.lastIndexOf('/');
  return (slash >= 0 ? word.slice(slash + 1) : word).toLowerCase();
}

// Words of a line that could name a program even where the checker could not split it:
// every run of name characters, so `$(rm -rf x)`, `a|sudo b` and `` `shred f` `` all show theirs.
const WORD = /[A-Za-z0-9._+\/-]+/g;

/** Programs whose arguments name programs to run: wrappers, shells, interpreters with -c, find. */
export const RUNS_OTHERS: ReadonlySet<string> = new Set([
  'env', 'sudo', 'doas', 'su', 'nice', 'nohup', 'timeout', 'xargs', 'command', 'builtin', 'exec', 'eval', 'time',
  'stdbuf', 'ionice', 'chrt', 'taskset', 'setsid', 'flock', 'watch', 'strace', 'ltrace', 'busybox', 'script',
  'parallel', 'sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'find', 'npx', 'ssh',
]);

interface Prepared {
  /** normalised paths for allow-type matching */
  exact: string[];
  /** normalised paths plus their trailing-dot/space variants, for deny/approve lists */
  wide: string[];
  /** program keys (base names, lower-cased) of every non-cd step, plus words of an opaque line */
  programs: string[];
  /** argv of the steps that are not `cd` */
  argvs: string[][];
}

function prepare(call: CallFacts): Prepared {
  const exact: string[] = [];
  const wide: string[] = [];
  const add = (p: string) => {
    const n = normalizeForMatch(p);
    if (!exact.includes(n)) {
      exact.push(n);
      widenForDeny(n, wide);
    }
  };
  if (call.paths) for (const p of call.paths) add(p);
  if (call.resolved) for (const p of call.resolved) add(p);
  if (call.absolute) for (const p of call.absolute) widenForDeny(normalizeForMatch(p), wide);
  const programs: string[] = [];
  const argvs: string[][] = [];
  const sh = call.shell;
  if (sh) {
    for (const step of sh.steps) {
      if (step.argv.length === 0) continue;
      if (step.argv[0] === 'cd') {
        // runs nothing, but where it goes is a path: `cd .ssh && ls` lists the keys
        for (let k = 1; k < step.argv.length; k++) widenForDeny(normalizeForMatch(step.argv[k]), wide);
        continue;
      }
      argvs.push(step.argv);
      const prog = programKey(step.argv[0]);
      programs.push(prog);
      // A program that runs other programs (`env rm x`, `sh -c 'rm x'`, `find -exec rm`) has
      // every word of its arguments checked as a program too, by the deny-type lists.
      if (RUNS_OTHERS.has(prog)) {
        for (let k = 1; k < step.argv.length; k++) for (const m of step.argv[k].matchAll(WORD)) programs.push(programKey(m[0]));
      }
      // The arguments of every step are path candidates for always_deny (`cat .ssh/id_rsa`).
      for (let k = 1; k < step.argv.length; k++) {
        const a = step.argv[k];
        if (a.startsWith('-')) {
          const eq = a.indexOf('=');
          if (eq > 0 && eq < a.length - 1) widenForDeny(normalizeForMatch(a.slice(eq + 1)), wide);
          continue;
        }
        if (a !== '') widenForDeny(normalizeForMatch(a), wide);
      }
    }
    if (sh.opaque !== undefined) {
      for (const m of sh.command.matchAll(WORD)) {
        programs.push(programKey(m[0]));
        widenForDeny(normalizeForMatch(m[0]), wide);
      }
    }
  }
  return { exact, wide, programs, argvs };
}

function ruleMatches(r: CompiledRule, call: CallFacts, paths: string[], programs: string[]): { path?: string; program?: string } | undefined {
  if (!r.anyTool && !r.tools.some((t) => toolPatternMatches(t, call.toolset, call.tool))) return undefined;
  let path: string | undefined;
  let program: string | undefined;
  if (r.paths) {
    const hit = r.paths.firstMatch(paths);
    if (!hit) return undefined;
    path = hit.path;
  }
  if (r.programs) {
    program = programs.find((p) => r.programs!.has(p));
    if (program === undefined) return undefined;
  }
  return { path, program };
}

function describeRule(r: CompiledRule): string {
  const parts = [`tool = ${r.tools.length === 1 ? `"${r.tools[0]}"` : `[${r.tools.map((t) => `"${t}"`).join(', ')}]`}`];
  if (r.glob !== undefined) parts.push(`path = "${r.glob}"`);
  if (r.program !== undefined) parts.push(`program = "${r.program}"`);
  return `{ ${parts.join(', ')} }${r.reason ? ` (${r.reason})` : ''}`;
}

function axisTimeout(a: { grant?: Sourced<GrantSpec>; timeoutMs?: Sourced<number> }): number | undefined {
  return a.timeoutMs?.value ?? a.grant?.value.timeoutMs;
}

/** With substitution unset, a line whose programs cannot all be seen is asked, never allowed. */
function capOpaque(g: Grant, opaque: string | undefined): Grant {
  return g === 'allow' && opaque !== undefined ? 'approve' : g;
}

function opaqueNote(g: Grant, written: Grant, opaque: string | undefined): string {
  return g !== written ? ` but the line holds ${opaque} and substitution is unset (ask)` : '';
}

// ── the decision ───────────────────────────────────────────────────────────────────────────

/** The first rule of `groups` that matches the call, and what it matched. */
function firstInGroups(groups: DenyGroup[], call: CallFacts, p: Prepared): { r: CompiledRule; m: { path?: string; program?: string } } | undefined {
  for (const g of groups) {
    if (g.rules.length > 1) {
      if (!g.anyTool && !g.tools.some((t) => toolPatternMatches(t, call.toolset, call.tool))) continue;
      if (!p.wide.some((x) => g.combined.test(x))) continue;
    }
    for (const r of g.rules) {
      const m = ruleMatches(r, call, p.wide, p.programs);
      if (m) return { r, m };
    }
  }
  return undefined;
}

function outFor(env: CompiledEnvelope) {
  const name = env.name;
  const of = (from: string) => (from === name ? `of envelope ${name}` : `of envelope ${name} (from ${from})`);
  return (action: Grant, rule: RuleId, from: string, why: string, matched?: string, timeoutMs?: number): Decision => {
    const d: Decision = { action, rule, envelope: name, sentence: `${action}: ${why} ${of(from)}` };
    if (from !== name) d.from = from;
    if (matched !== undefined) d.matched = matched;
    if (action === 'approve' && timeoutMs !== undefined) d.timeoutMs = timeoutMs;
    return d;
  };
}

/**
 * The envelope's decision on one call. The always-ask tier (its floor rules and `always_ask`
 * facts) turns any decision that is not a deny into an ask, whatever allowed it.
 */
export function decide(env: CompiledEnvelope, call: CallFacts): Decision {
  const p = prepare(call);
  const d = decideRules(env, call, p);
  if (d.action === 'deny') return d;
  const axis = axisOf(call.toolset, call.tool);
  if (axis !== 'files.write' && axis !== 'shell') return d;
  const out = outFor(env);
  const timeout = axisTimeout(axis === 'shell' ? env.resolved.shell : env.resolved.write) ?? (d.action === 'approve' ? d.timeoutMs : undefined);
  const fact = call.protected?.find((f) => f.tier === 'always_ask');
  if (fact) return out('approve', 'always_ask', 'built-in', `path \`${fact.path}\` is ${fact.why} (always ask: asked in every envelope)`, fact.why, timeout);
  const hit = firstInGroups(env.askGroups, call, p);
  if (hit) {
    const what = hit.m.path !== undefined ? `path \`${hit.m.path}\`` : call.tool;
    return out('approve', 'always_ask', hit.r.from, `${what} matches always_ask rule ${describeRule(hit.r)}`, hit.r.glob ?? hit.r.tools.join(','), timeout);
  }
  return d;
}

function decideRules(env: CompiledEnvelope, call: CallFacts, p: Prepared): Decision {
  const qualified = `${call.toolset}.${call.tool}`;
  const shown = call.tool === call.toolset ? call.toolset : qualified;
  const axis = axisOf(call.toolset, call.tool);
  const out = outFor(env);

  // 1. always_deny beats everything; so does a write_wall fact on a write or a shell line.
  const denied = firstInGroups(env.denyGroups, call, p);
  if (denied) {
    const { r, m } = denied;
    const what = m.path !== undefined ? `path \`${m.path}\`` : m.program !== undefined ? `program \`${m.program}\`` : `${shown}`;
    return out('deny', 'always_deny', r.from, `${what} matches always_deny rule ${describeRule(r)}`, r.glob ?? r.program ?? r.tools.join(','));
  }
  const walled = (axis === 'files.write' || axis === 'shell') && call.protected?.find((f) => f.tier === 'write_wall');
  if (walled) return out('deny', 'always_deny', 'built-in', `path \`${walled.path}\` is ${walled.why} (write wall: never written by a tool)`, walled.why);

  const isRead = axis === 'files.read';
  const isWrite = axis === 'files.write';
  const isFile = isRead || isWrite;

  // 2-5. path refinements. Read refinements also cover writes: a path the session may not
  // read it may not overwrite either (the diff and the read-before-write would reveal it).
  // For local_shell the arguments of every step are the paths, tested against all four lists,
  // so `cat .env` asks even where `cat` is on the prefix_allowlist.
  // An approve_paths list reached from another axis (read approve_paths on a write or a shell
  // line, write approve_paths on a shell line) only raises an allow to an ask: the rest of the
  // order still runs, and a deny there wins, so `edit .env` stays denied in read_only.
  const writeLike = isWrite || axis === 'shell';
  let pending: Decision | undefined;
  if ((isFile || axis === 'shell') && p.wide.length) {
    if (writeLike && env.writeDeny) {
      const hit = env.writeDeny.list.firstMatch(p.wide);
      if (hit) return out('deny', 'files.write.deny_paths', env.writeDeny.from, `path \`${hit.path}\` matches files.write.deny_paths \`${hit.glob}\``, hit.glob);
    }
    if (env.readDeny) {
      const hit = env.readDeny.list.firstMatch(p.wide);
      if (hit) return out('deny', 'files.read.deny_paths', env.readDeny.from, `path \`${hit.path}\` matches files.read.deny_paths \`${hit.glob}\``, hit.glob);
    }
    if (env.readApprove) {
      const hit = env.readApprove.list.firstMatch(p.wide);
      if (hit) {
        const d = out('approve', 'files.read.approve_paths', env.readApprove.from, `path \`${hit.path}\` matches files.read.approve_paths \`${hit.glob}\``, hit.glob, axisTimeout(axis === 'shell' ? env.resolved.shell : isWrite ? env.resolved.write : env.resolved.read));
        if (isRead) return d;
        pending = d;
      }
    }
    if (writeLike && env.writeApprove) {
      const hit = env.writeApprove.list.firstMatch(p.wide);
      if (hit) {
        const d = out('approve', 'files.write.approve_paths', env.writeApprove.from, `path \`${hit.path}\` matches files.write.approve_paths \`${hit.glob}\``, hit.glob, axisTimeout(axis === 'shell' ? env.resolved.shell : env.resolved.write));
        if (isWrite) return pending ?? d;
        pending ??= d;
      }
    }
  }
  if (pending) {
    const rest = decideRest(env, call, p, axis, qualified, out);
    return rest.action === 'deny' ? rest : pending;
  }
  return decideRest(env, call, p, axis, qualified, out);
}

type Out = (action: Grant, rule: RuleId, from: string, why: string, matched?: string, timeoutMs?: number) => Decision;

/** Rules 6-11: tools patterns, always_allow, the axis grants, the shell lists, default_action. */
function decideRest(env: CompiledEnvelope, call: CallFacts, p: Prepared, axis: Axis, qualified: string, out: Out): Decision {
  const name = env.name;
  const shown = call.tool === call.toolset ? call.toolset : qualified;
  const isRead = axis === 'files.read';
  const isWrite = axis === 'files.write';

  // 6. tools patterns: the most specific pattern that names the call.
  if (env.tools.size) {
    const pattern = env.tools.has(qualified) ? qualified : env.tools.has(call.toolset) ? call.toolset : env.tools.has('*') ? '*' : undefined;
    if (pattern !== undefined) {
      const g = env.tools.get(pattern)!;
      return out(g.value.grant, 'tools', g.from, `${shown} matches tools pattern \`${pattern}\``, pattern, g.value.timeoutMs);
    }
  }

  // 7. always_allow: every path of the call (requested and resolved) must match its glob.
  for (const r of env.alwaysAllow) {
    const m = ruleMatches(r, call, p.exact, p.programs);
    if (m) {
      if (r.paths && !p.exact.every((x) => r.paths!.test(x))) continue;
      // A shell rule naming a program allows the line only when every step runs that program.
      if (r.programs && p.programs.some((x) => !r.programs!.has(x))) continue;
      if (r.programs && call.shell?.opaque !== undefined) continue;
      return out('allow', 'always_allow', r.from, `${shown}${m.path !== undefined ? ` on \`${m.path}\`` : ''} matches always_allow rule ${describeRule(r)}`, r.glob ?? r.program ?? r.tools.join(','));
    }
  }

  // 8-9. file axis grants (and a remote call that says it reads or writes)
  const counted = axis === null && call.accessReason !== undefined ? ` (${call.accessReason})` : '';
  if ((isRead || (axis === null && call.access === 'read')) && env.resolved.read.grant) {
    const g = env.resolved.read.grant;
    return out(g.value.grant, 'files.read', g.from, `${shown} is a read${counted}, files.read is \`${g.value.grant}\``, undefined, axisTimeout(env.resolved.read));
  }
  if ((isWrite || (axis === null && call.access === 'write')) && env.resolved.write.grant) {
    const g = env.resolved.write.grant;
    return out(g.value.grant, 'files.write', g.from, `${shown} is a write${counted}, files.write is \`${g.value.grant}\``, undefined, axisTimeout(env.resolved.write));
  }

  // 10. the shell axis, every program of the line checked against each list.
  if (axis === 'shell') {
    const sh = env.resolved.shell;
    const askTimeout = axisTimeout(sh);
    if (env.blacklist) {
      const hit = p.programs.find((x) => env.blacklist!.list.has(x));
      if (hit !== undefined) return out('deny', 'shell.blacklist', env.blacklist.from, `shell program \`${hit}\` is in blacklist`, hit);
    }
    const opaque = call.shell?.opaque;
    if (opaque !== undefined && sh.substitution) {
      const g = sh.substitution;
      return out(g.value.grant, 'shell.substitution', g.from, `the line holds ${opaque}, substitution is \`${g.value.grant}\``, opaque, g.value.timeoutMs ?? askTimeout);
    }
    // A line whose programs cannot all be seen is never allowed by a prefix (see capped below).
    if (env.prefixes && p.argvs.length && opaque === undefined) {
      const prefixes = env.prefixes.list;
      let all = true;
      let first = '';
      for (const argv of p.argvs) {
        const hit = prefixes.find((pre) => pre.length <= argv.length && pre.every((t, k) => argv[k] === t));
        if (!hit) {
          all = false;
          break;
        }
        if (!first) first = hit.join(' ');
      }
      if (all) {
        const which = p.argvs.length === 1 ? `\`${p.argvs[0].join(' ')}\` starts with \`${first}\`` : `every step of the line starts with an entry`;
        return out('allow', 'shell.prefix_allowlist', env.prefixes.from, `${which} of prefix_allowlist`, first);
      }
    }
    if (env.askAlways) {
      const hit = p.programs.find((x) => env.askAlways!.list.has(x));
      if (hit !== undefined) return out('approve', 'shell.ask_always', env.askAlways.from, `shell program \`${hit}\` is in ask_always`, hit, askTimeout);
    }
    if (sh.grant) {
      const g = capOpaque(sh.grant.value.grant, opaque);
      return out(g, 'shell', sh.grant.from, `${shown} runs a command, shell is \`${sh.grant.value.grant}\`${opaqueNote(g, sh.grant.value.grant, opaque)}`, undefined, askTimeout);
    }
  }
  const opaque = axis === 'shell' ? call.shell?.opaque : undefined;

  // 11. default_action; omitted, it fails closed to approve.
  const d = env.resolved.default_action;
  if (d) {
    const g = capOpaque(d.value.grant, opaque);
    const why = axis === null ? `${shown} is named by no axis and no tools pattern, default_action is \`${d.value.grant}\`` : `no rule of ${axis} decides ${shown}, default_action is \`${d.value.grant}\``;
    return out(g, 'default_action', d.from, why + opaqueNote(g, d.value.grant, opaque), undefined, d.value.timeoutMs);
  }
  const why = axis === null ? `${shown} is named by no axis and no tools pattern, default_action is unset (ask)` : `no rule of ${axis} decides ${shown}, default_action is unset (ask)`;
  return out('approve', 'default_action', name, why);
}
