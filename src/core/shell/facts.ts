// What the envelope is told about a local_shell call: its steps (each with the program that
// really runs after wrappers, and the argument notes that keep it from being read-only) and the
// paths its words name, resolved from every directory each step may start in. With a command
// policy they come from the checker's verdict; without one, from the same grammar and the same
// argument rules (the line then goes to a shell, so cd is followed both as sh and as the kernel
// would). The gate and `cxl check` decide on exactly these facts (plan.ts).
import path from 'node:path';
import type { CallFacts, ProtectedFact, ShellFacts, ShellStep } from '../envelope/index.ts';
import { gitWriteFact, hooksDirs, type HooksDir } from '../protect/git_dirs.ts';
import { defaultIdentityIndex, type IdentityIndex } from '../protect/identity.ts';
import { isWithin, rootHolding } from '../paths.ts';
import type { Allowed } from './checker.ts';
import { lex } from './lexer.ts';
import { resolveWord } from './path_words.ts';
import { displayArgv } from './runner.ts';
import { newStepCache, readOnlyNotes, stepArgs, type ClassifiedPath, type StepArgs } from './step_args.ts';

export interface ShellCall {
  facts: ShellFacts;
  /** each step as it will run, for the ask */
  shown: string[];
  /** every path the words name, classified */
  paths: ClassifiedPath[];
  /** the session's additional directories the paths may lie in */
  extra?: readonly string[];
}

/** Where a verdict's or a line's step analysis goes for the envelope. */
function envelopeStep(argv: string[], args: StepArgs | undefined, root: string, extra: readonly string[] = []): ShellStep {
  if (!args) return { argv };
  const notes = readOnlyNotes(args, root, extra);
  return { argv, ...(args.inner > 0 ? { inner: argv.slice(args.inner) } : {}), ...(notes.length ? { notes } : {}) };
}

/** The facts of a line the command policy allowed. */
export function factsOfVerdict(command: string, v: Allowed, root: string): ShellCall {
  const steps = v.steps.map((s) => envelopeStep(s.argv, s.kind === 'run' ? s.args : undefined, root, v.extraDirs));
  const paths = v.steps.flatMap((s) => (s.kind === 'run' ? s.args.paths : []));
  return { facts: { command, steps }, shown: v.steps.map((s) => displayArgv(s.argv)), paths, extra: v.extraDirs };
}

const MAX_CWDS = 64;

/**
 * The facts of a call with no command policy: the argv form, or a line the strict lexer can read
 * (else it is opaque). `start` is the real directory it starts in.
 */
export function factsWithoutPolicy(command: string, argv: string[] | undefined, start: string, root: string, extra: readonly string[] = []): ShellCall {
  const extraRoots = extra.length ? { extraRoots: extra } : {};
  if (argv) {
    const full = [command, ...argv];
    const a = stepArgs(full, [start], { root, ...extraRoots }) as StepArgs;
    return { facts: { command, steps: [envelopeStep(full, a, root, extra)] }, shown: [displayArgv(full)], paths: a.paths, extra };
  }
  const lexed = lex(command);
  if (!lexed.ok) return { facts: { command, steps: [], opaque: lexed.refusal.construct }, shown: [command], paths: [] };
  const raw: string[][] = [];
  let cur: string[] = [];
  for (const t of lexed.tokens) {
    if (t.kind === 'op') {
      if (cur.length) raw.push(cur);
      cur = [];
    } else cur.push(t.value);
  }
  if (cur.length) raw.push(cur);
  // A cd may fail or be skipped (&& ||), and sh follows it by name where the kernel follows
  // links: every directory a later step may start in counts.
  let cwds = [start];
  const steps: ShellStep[] = [];
  const paths: ClassifiedPath[] = [];
  const cache = newStepCache();
  for (const argv of raw) {
    if (argv[0] === 'cd') {
      const to = argv[1];
      if (to !== undefined && to !== '-' && !to.startsWith('-')) {
        const next = new Set(cwds);
        for (const c of cwds) {
          next.add(path.resolve(c, to));
          next.add(resolveWord(c, to).real);
        }
        cwds = [...next];
        if (cwds.length > MAX_CWDS) return { facts: { command, steps: [], opaque: `more than ${MAX_CWDS} directories after cd` }, shown: [command], paths: [] };
      }
      steps.push({ argv });
      continue;
    }
    const a = stepArgs(argv, cwds, { cache, root, ...extraRoots }) as StepArgs;
    steps.push(envelopeStep(argv, a, root, extra));
    paths.push(...a.paths);
  }
  return { facts: { command, steps }, shown: raw.map((s) => displayArgv(s)), paths, extra };
}

/**
 * The call's paths for the envelope's lists: root-relative where inside the root, absolute
 * always; a second name (hard link) of a protected file adds that file's name; a path inside a
 * git dir by shape or the hooks dir core.hooksPath names is a protected fact, as for the file
 * tools (git_dirs.ts).
 */
export function addShellPaths(facts: CallFacts, paths: readonly ClassifiedPath[], root: string, identity: IdentityIndex = defaultIdentityIndex, extra?: readonly string[]): void {
  const resolved = new Set(facts.resolved ?? []);
  const absolute = new Set(facts.absolute ?? []);
  const found: ProtectedFact[] = [...(facts.protected ?? [])];
  let hooks: HooksDir[] | undefined;
  const seen = new Set<string>();
  for (const p of paths) {
    for (const abs of [p.lexical, p.real]) {
      absolute.add(abs);
      if (isWithin(root, abs) && abs !== root) resolved.add(path.relative(root, abs).split(path.sep).join('/'));
    }
    // a link a recursive reader follows out of the root: what it leads to counts as named
    if (typeof p.holds === 'object' && p.holds?.cls === 'outside') absolute.add(p.holds.target);
    if (!p.exists || seen.has(p.real)) continue;
    seen.add(p.real);
    // the hard links of protected files are looked for in the root holding the path (an additional directory's own)
    const linked = identity.lookupPath(p.real, rootHolding(root, extra, p.real));
    if (linked) absolute.add(linked.path);
    const fact = gitWriteFact(p.real, root, undefined, (hooks ??= hooksDirs(root)));
    if (fact) found.push(fact);
  }
  if (resolved.size) facts.resolved = [...resolved];
  if (absolute.size) facts.absolute = [...absolute];
  if (found.length) facts.protected = found;
}

/** The read-approve paths of a call (root-relative when inside the root), which a session allow may cover one by one. */
export function approvePaths(paths: readonly ClassifiedPath[], root: string): string[] {
  const out = new Set<string>();
  for (const p of paths) if (p.cls === 'read_approve') out.add(isWithin(root, p.real) ? path.relative(root, p.real).split(path.sep).join('/') || '.' : p.real);
  return [...out];
}
