// The decision on one call (docs/config.md, "Envelopes"): the rules in first-match order over the facts the
// caller passes (paths requested and resolved, the checked steps of a shell line). Pure and
// synchronous: nothing here touches the disk.
import { normalizeForMatch, widenForDeny } from './glob_lists.ts';
import { meetDecisions } from './meet.ts';
import type { CompiledEnvelope, CompiledRule, DenyGroup } from './compile.ts';
import type { Sourced } from './resolve.ts';
import { axisOfCall, type ArgNote, type Axis, type CallFacts, type Decision, type Grant, type GrantSpec, type RuleId, type ShellStep } from './spec.ts';

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
  /** the steps that are not `cd` */
  runs: ShellStep[];
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
  const runs: ShellStep[] = [];
  const sh = call.shell;
  if (sh) {
    for (const step of sh.steps) {
      if (step.argv.length === 0) continue;
      if (step.argv[0] === 'cd') {
        // runs nothing, but where it goes is a path: `cd .ssh && ls` lists the keys
        for (let k = 1; k < step.argv.length; k++) widenForDeny(normalizeForMatch(step.argv[k]), wide);
        continue;
      }
      runs.push(step);
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
  return { exact, wide, programs, runs };
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
 * facts) turns any decision that is not a deny into an ask, whatever allowed it. An envelope with
 * a ceiling (a mission unit's: ceiling.ts) decides the stricter of its own decision and the
 * ceiling's.
 */
export function decide(env: CompiledEnvelope, call: CallFacts): Decision {
  const own = decideOwn(env, call);
  return env.ceiling ? meetDecisions(own, decide(env.ceiling, call)) : own;
}

function decideOwn(env: CompiledEnvelope, call: CallFacts): Decision {
  const p = prepare(call);
  const d = decideRules(env, call, p);
  if (d.action === 'deny') return d;
  const axis = axisOfCall(call);
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
  const axis = axisOfCall(call);
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
    if (rest.action === 'deny') return rest;
    return rest.action === 'allow' ? { ...pending, pathOnly: true } : pending;
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

  // 7b. the missions axes: a session's own mission records, firing a unit, answering one
  if (axis === 'missions.own') return out('allow', 'missions.own', 'built-in', `${shown} reaches only this session's own mission records`);
  if (axis === 'missions.fire' || axis === 'missions.answer') {
    const g = env.resolved.missions[axis === 'missions.fire' ? 'fire' : 'answer'];
    const does = axis === 'missions.fire' ? 'fires a mission unit' : "answers a mission unit's question";
    if (g) return out(g.value.grant, axis, g.from, `${shown} ${does}, ${axis} is \`${g.value.grant}\``, undefined, g.value.timeoutMs);
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
    // A step matches an entry by the program that really runs (after wrappers), and only when
    // the argument rules found nothing that keeps it from being read-only.
    let blocked: Decision['argRule'];
    if (env.prefixes && p.runs.length && opaque === undefined) {
      const prefixes = env.prefixes.list;
      let all = true;
      let first = '';
      for (const step of p.runs) {
        const argv = step.inner ?? step.argv;
        const hit = prefixes.find((pre) => pre.length <= argv.length && pre.every((t, k) => argv[k] === t));
        if (!hit) {
          all = false;
          break;
        }
        const note = step.notes?.find((n: ArgNote) => n.sub === undefined || !hit.includes(n.sub));
        if (note) {
          blocked = { rule: note.rule, why: note.why, step: step.argv.join(' ') };
          all = false;
          break;
        }
        if (!first) first = hit.join(' ');
      }
      if (all) {
        const which = p.runs.length === 1 ? `\`${p.runs[0].argv.join(' ')}\` starts with \`${first}\`` : `every step of the line starts with an entry`;
        return out('allow', 'shell.prefix_allowlist', env.prefixes.from, `${which} of prefix_allowlist`, first);
      }
    }
    const withArg = (d: Decision): Decision => (blocked && d.action !== 'allow' ? { ...d, argRule: blocked, sentence: `${d.sentence}; \`${blocked.step}\` matched prefix_allowlist but is not read-only: ${blocked.why} (argument rule \`${blocked.rule}\`)` } : d);
    if (env.askAlways) {
      const hit = p.programs.find((x) => env.askAlways!.list.has(x));
      if (hit !== undefined) return withArg(out('approve', 'shell.ask_always', env.askAlways.from, `shell program \`${hit}\` is in ask_always`, hit, askTimeout));
    }
    if (sh.grant) {
      const g = capOpaque(sh.grant.value.grant, opaque);
      return withArg(out(g, 'shell', sh.grant.from, `${shown} runs a command, shell is \`${sh.grant.value.grant}\`${opaqueNote(g, sh.grant.value.grant, opaque)}`, undefined, askTimeout));
    }
    if (blocked) {
      const d = decideDefault(env, call, axis, shown, out);
      return withArg(d);
    }
  }
  return decideDefault(env, call, axis, shown, out);
}

/** 11. default_action; omitted, it fails closed to approve. */
function decideDefault(env: CompiledEnvelope, call: CallFacts, axis: Axis, shown: string, out: Out): Decision {
  const name = env.name;
  const opaque = axis === 'shell' ? call.shell?.opaque : undefined;
  const d = env.resolved.default_action;
  if (d) {
    const g = capOpaque(d.value.grant, opaque);
    const why = axis === null ? `${shown} is named by no axis and no tools pattern, default_action is \`${d.value.grant}\`` : `no rule of ${axis} decides ${shown}, default_action is \`${d.value.grant}\``;
    return out(g, 'default_action', d.from, why + opaqueNote(g, d.value.grant, opaque), undefined, d.value.timeoutMs);
  }
  const why = axis === null ? `${shown} is named by no axis and no tools pattern, default_action is unset (ask)` : `no rule of ${axis} decides ${shown}, default_action is unset (ask)`;
  return out('approve', 'default_action', name, why);
}
