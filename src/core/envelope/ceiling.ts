// The ceiling of a mission unit (docs/missions.md, "The ceiling"): a unit the model of a session
// fires gets at most that session's envelope. "At most" is per decision: for every call, the
// unit's decision is no more permissive than the session's, in the order allow > approve > deny.
// Two envelopes are written as rules, not as sets of calls, so neither is compared with the other
// as a whole; instead a unit's envelope carries the session's as its ceiling, and every call is
// decided by both (the meet of the two decisions, meet.ts). Before a unit is fired, the
// envelope named for it is tried against the session's on the calls both envelopes' own rules
// name (`widerThan`): one it would let through further is the reason the fire is refused.
import { expandBraces } from '../glob.ts';
import type { CompiledEnvelope } from './compile.ts';
import { decide } from './decide.ts';
import { morePermissive, readOnlyAllow } from './meet.ts';
import type { Sourced } from './resolve.ts';
import { READ_TOOLS, WRITE_TOOLS, type Axis, type CallFacts, type Grant, type SandboxMode } from './spec.ts';

const SANDBOX_STRICTNESS: Record<SandboxMode, number> = { off: 0, auto: 1, required: 2 };

/**
 * `own` with `ceiling` as its ceiling: every decision is the meet of both (decide.ts), and the
 * settings commands run with are the stricter of the two (the sandbox, the network, the
 * environment variables passed beyond the built-in allowlist: those both pass).
 */
export function withCeiling(own: CompiledEnvelope, ceiling: CompiledEnvelope): CompiledEnvelope {
  const a = own.resolved.shell;
  const b = ceiling.resolved.shell;
  const stricter = <T>(x: Sourced<T> | undefined, y: Sourced<T> | undefined, worse: (p: T, q: T) => boolean): Sourced<T> | undefined => (x && y ? (worse(y.value, x.value) ? y : x) : (y ?? x));
  const sandbox = stricter<SandboxMode>(a.sandbox, b.sandbox, (p, q) => SANDBOX_STRICTNESS[p] > SANDBOX_STRICTNESS[q]);
  // unset is `auto`: an `off` of one side meets the other's unset as `auto`
  const sandboxMet = sandbox?.value === 'off' && (!a.sandbox || !b.sandbox) ? undefined : sandbox;
  const network = stricter<boolean>(a.network, b.network, (p) => p === false);
  const env = a.env && b.env ? { value: a.env.value.filter((v) => b.env!.value.includes(v)), from: a.env.from } : undefined;
  const shell = { ...a };
  delete shell.sandbox;
  delete shell.network;
  delete shell.env;
  if (sandboxMet) shell.sandbox = sandboxMet;
  if (network) shell.network = network;
  if (env) shell.env = env;
  return { ...own, resolved: { ...own.resolved, shell }, ceiling };
}

/** One call a unit's envelope lets through further than the session's. */
export interface Widening {
  /** the call in words: `local_fs.write_file on file.txt` */
  call: string;
  own: Grant;
  ceiling: Grant;
  /** the unit's envelope's sentence on it */
  why: string;
}

/** A path a glob matches (its first brace alternative, each wildcard as one `x`). */
function sampleOf(glob: string): string | undefined {
  const g = expandBraces(glob)[0];
  if (g === undefined || g.startsWith('/')) return undefined;
  const s = g
    .replace(/^\*\*\//, '')
    .replace(/\/\*\*$/, '/x')
    .replace(/\*\*/g, 'x')
    .replace(/\[!?\^?([^\]])[^\]]*\]/g, '$1')
    .replace(/[*?]/g, 'x');
  return s && !s.includes('\\') ? s : undefined;
}

interface Probe {
  what: string;
  facts: CallFacts;
}

const fsCall = (tool: string, p: string): Probe => ({ what: `local_fs.${tool} on ${p}`, facts: { toolset: 'local_fs', tool, paths: [p], resolved: [p] } });
const shellCall = (argv: string[], opaque?: string): Probe => ({
  what: `local_shell \`${argv.join(' ')}\``,
  facts: { toolset: 'local_shell', tool: 'local_shell', shell: { command: argv.join(' '), steps: [{ argv }], ...(opaque ? { opaque } : {}) } },
});

/** The call a tools pattern or rule names: `*`, a toolset, or `toolset.tool`. */
function namedCall(pattern: string, axis?: Axis): CallFacts {
  if (pattern === '*') return { toolset: 'any_toolset', tool: 'any_tool' };
  const dot = pattern.indexOf('.');
  const facts: CallFacts = dot > 0 ? { toolset: pattern.slice(0, dot), tool: pattern.slice(dot + 1) } : { toolset: pattern, tool: pattern === 'local_shell' ? 'local_shell' : 'any_tool' };
  if (axis !== undefined) facts.axis = axis;
  return facts;
}

/** The calls both envelopes' rules name, and one of each kind no rule names. */
function probes(a: CompiledEnvelope, b: CompiledEnvelope): Probe[] {
  const out: Probe[] = [];
  const paths = new Set(['file.txt']);
  const programs = new Set<string>();
  const lines: string[][] = [['unlisted-program']];
  for (const e of [a, b]) {
    const r = e.resolved;
    for (const list of [r.read.deny_paths, r.read.approve_paths, r.write.deny_paths, r.write.approve_paths]) for (const g of list?.value ?? []) paths.add(sampleOf(g) ?? '');
    for (const rule of [...r.always_allow, ...r.always_deny.filter((x) => x.from !== 'built-in')]) if (rule.path !== undefined) paths.add(sampleOf(rule.path) ?? '');
    for (const p of r.shell.prefix_allowlist?.value ?? []) lines.push(p.trim().split(/\s+/));
    for (const p of [...(r.shell.ask_always?.value ?? []), ...(r.shell.blacklist?.value ?? [])]) programs.add(p);
    for (const rule of [...r.always_allow, ...r.always_deny]) if (rule.program) for (const p of rule.program.split(',')) programs.add(p.trim());
  }
  paths.delete('');
  for (const p of paths) for (const tool of [...READ_TOOLS, ...WRITE_TOOLS]) out.push(fsCall(tool, p));
  for (const p of programs) if (p) lines.push([p, 'file.txt']);
  for (const argv of lines) out.push(shellCall(argv));
  out.push(shellCall(['echo', '$(unlisted-program)'], 'command substitution'));
  // not missions.fire and missions.answer: a unit is never offered mission_start or mission_answer
  out.push({ what: 'a tool no rule names', facts: { toolset: 'any_toolset', tool: 'any_tool', axis: null } });
  out.push({ what: 'a remote tool that reads', facts: { toolset: 'any_toolset', tool: 'get', axis: null, access: 'read' } });
  out.push({ what: 'a remote tool that writes', facts: { toolset: 'any_toolset', tool: 'post', axis: null, access: 'write' } });
  for (const e of [a, b]) {
    for (const pattern of e.tools.keys()) {
      const facts = namedCall(pattern);
      out.push({ what: pattern === '*' ? 'a tool of any toolset' : pattern, facts });
      if (facts.toolset === 'local_fs' && facts.tool === 'any_tool') for (const tool of [...READ_TOOLS, ...WRITE_TOOLS]) out.push(fsCall(tool, 'file.txt'));
    }
    for (const rule of e.resolved.always_allow) {
      for (const t of Array.isArray(rule.tool) ? rule.tool : [rule.tool]) {
        const facts = namedCall(t);
        const p = rule.path !== undefined ? sampleOf(rule.path) : undefined;
        if (p !== undefined) Object.assign(facts, { paths: [p], resolved: [p] });
        if (rule.program && facts.toolset === 'local_shell') facts.shell = { command: rule.program, steps: [{ argv: [rule.program.split(',')[0].trim()] }] };
        out.push({ what: `${t}${p !== undefined ? ` on ${p}` : ''}`, facts });
      }
    }
  }
  return out;
}

/** The settings commands run with that `own` loosens: the sandbox, the network, the environment passed. */
function looserSettings(own: CompiledEnvelope, ceiling: CompiledEnvelope): Widening[] {
  const out: Widening[] = [];
  const a = own.resolved.shell;
  const b = ceiling.resolved.shell;
  const sa = a.sandbox?.value ?? 'auto';
  const sb = b.sandbox?.value ?? 'auto';
  if (SANDBOX_STRICTNESS[sa] < SANDBOX_STRICTNESS[sb]) out.push({ call: 'shell.sandbox', own: 'allow', ceiling: 'deny', why: `shell.sandbox is \`${sa}\` where the session's is \`${sb}\`` });
  if ((a.network?.value ?? true) && b.network?.value === false) out.push({ call: 'shell.network', own: 'allow', ceiling: 'deny', why: "commands may use the network where the session's may not" });
  const extra = (a.env?.value ?? []).filter((v) => !(b.env?.value ?? []).includes(v));
  if (extra.length) out.push({ call: 'shell.env', own: 'allow', ceiling: 'deny', why: `commands are passed ${extra.join(', ')}, which the session's are not` });
  return out;
}

/**
 * The calls `own` lets through further than `ceiling` (empty: none found), tried on every call
 * either envelope's rules name (each path list's and rule's glob, each program, each tools
 * pattern and always_allow rule) and one of each kind none names, and (when `own` runs commands
 * at all) on the settings commands run with. What these calls miss the meet still catches when
 * the unit runs (withCeiling).
 */
export function widerThan(own: CompiledEnvelope, ceiling: CompiledEnvelope): Widening[] {
  const out: Widening[] = [];
  const seen = new Set<string>();
  let runsCommands = false;
  for (const p of probes(own, ceiling)) {
    if (seen.has(p.what)) continue;
    seen.add(p.what);
    const a = decide(own, p.facts);
    const b = decide(ceiling, p.facts);
    if (p.facts.toolset === 'local_shell' && a.action !== 'deny') runsCommands = true;
    if (morePermissive(a.action, b.action)) out.push({ call: p.what, own: a.action, ceiling: b.action, why: a.sentence });
    else if (a.action === 'allow' && b.action === 'allow' && readOnlyAllow(b) && !readOnlyAllow(a)) out.push({ call: `${p.what} (with writes)`, own: 'allow', ceiling: 'allow', why: `${a.sentence}, where the session's lets it run read-only` });
  }
  // how commands run matters only to an envelope that runs any
  return runsCommands ? [...looserSettings(own, ceiling), ...out] : out;
}

/** A widening in words: `local_fs.write_file on file.txt: allow, where the session's envelope says approve`. */
export function describeWidening(w: Widening): string {
  const word = (g: Grant) => (g === 'approve' ? 'ask' : g);
  return w.call.startsWith('shell.') ? `${w.call}: ${w.why}` : `${w.call}: ${word(w.own)}, where the session's envelope says ${word(w.ceiling)}`;
}
