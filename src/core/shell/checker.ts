// The command policy: reads a line with the strict lexer, splits it into steps at && || ;,
// interprets `cd` (confined to the allowed dir, by real path and components), and checks every
// program of every step and its arguments (step_args.ts: flags that run code or write, wrapped
// programs, path words from every directory the step may start in): no cap after which checking
// stops. The steps it returns are exactly what the runner executes (argv, resolved program path,
// cwd), so what was checked is what runs.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { withinAsWritten } from '../paths.ts';
import { findOnPath, isExecutableFile, pathDirectories } from '../platform/program_path.ts';
import { isInside, realDirectory, ResolveError, resolveDirectory } from './confine.ts';
import { lex, type Operator, type Token, type WordToken } from './lexer.ts';
import { confinementShown, newStepCache, policyProblem, stepArgs, type StepArgs, type StepCache } from './step_args.ts';
import type { Finding } from './argrules/index.ts';

/**
 * tools_policies.local_shell, parsed (see shell_policy.ts for the string form). Treat it as
 * immutable: it is compiled (realpaths resolved) once per object.
 */
export interface ShellPolicy {
  /**
   * programs that may run, by name or absolute path (an absolute entry allows that name, not
   * every name sharing its real file); `program subcommand` entries (`npm test`) allow only that
   * subcommand, or, next to a bare entry, unlock a subcommand the argument rules refuse
   * (`npm install`). Undefined = no allowlist (only the deny list applies).
   */
  allowedCommands?: string[];
  /** programs that never run, whatever the allowlist says; matched case-insensitively */
  deniedCommands?: string[];
  /** when set, no `cd` may leave it and programs named by path must reside under it */
  allowedDir?: string;
  /**
   * the session's additional directories, checked and canonical (local_fs/extra_roots.ts): with
   * an allowed dir, `cd`, a start directory, program paths and path words may be inside any of them too
   */
  extraDirs?: readonly string[];
}

export interface CheckOptions {
  /** where the line starts (`cd` moves from here); default: the allowed dir, else process.cwd() */
  cwd?: string;
  /** the PATH programs are looked up on; default: this process's PATH. Relative entries are ignored. */
  pathEnv?: string;
  /**
   * A human can be asked about what needs one (a read-approve path, a recursive read over
   * protected files, a git pathspec pattern): the step is allowed and its arguments say why,
   * for the envelope to ask. Default false: nobody can answer, so those are refused.
   */
  askable?: boolean;
  /**
   * `enforce` (default): the argument rules refuse; `report`: they only say what they find (no
   * policy: a line split without a shell); `skip`: not read at all (the checker as it was before
   * them, for measuring what they cost).
   */
  argRules?: 'enforce' | 'report' | 'skip';
  /** the workspace root, when no _allowed_dir names one: a link a recursive reader follows out of it is met as outside */
  root?: string;
}

interface StepBase {
  /** 0-based index of the step in the line */
  index: number;
  /** the operator joining this step to the previous one (null for the first) */
  op: Operator | null;
  /** the words of the step after quote removal: exactly the argv that runs */
  argv: string[];
  /** offsets of the step in the line, [start, end) */
  start: number;
  end: number;
  /** the rule that allowed the step, in words */
  rule: string;
}

/** `cd DIR`, interpreted by the tool itself. */
export interface CdStep extends StepBase {
  kind: 'cd';
  /** real path of the directory it moves to (from the first directory the line can be in there) */
  target: string;
}

/** A program run as an argv, without a shell. */
export interface RunStep extends StepBase {
  kind: 'run';
  /** the program word as written (a bare name, or an absolute path) */
  program: string;
  /** the path that is executed: found once on PATH, or the absolute path given */
  resolved: string;
  /** realpath of `resolved` (what the deny list is also checked against) */
  real: string;
  /** the directory it runs in (the first one the line can be in there; the runner tracks the real one) */
  cwd: string;
  /** every directory it may start in (after conditional cds), `cwd` first */
  cwds: string[];
  /** what the argument rules found: the program after wrappers, path words, git's repository */
  args: StepArgs;
}

export type CheckedStep = CdStep | RunStep;

export interface Allowed {
  verdict: 'allow';
  reason: string;
  /** the directory the line starts in (real path) */
  startDir: string;
  /** the allowed dir, real path, when the policy has one */
  allowedDir?: string;
  /** the session's additional directories, where `cd` may go too (with an allowed dir) */
  extraDirs?: readonly string[];
  steps: CheckedStep[];
}

export interface Refused {
  verdict: 'refuse';
  /** a sentence saying what was refused and what to do instead */
  reason: string;
  /** the machine name of the rule, e.g. `syntax`, `denied`, `not-allowlisted`, `cd-escape` */
  rule: string;
  /** the refused construct or program, e.g. `pipe |`, `rm` */
  construct: string;
  /** offset in the line where the refused construct starts */
  position: number;
  /** index of the step it is in (0-based) */
  step: number;
  /** the steps checked and allowed before the refusal */
  steps: CheckedStep[];
  /** when an argument rule refused: which, in words */
  argRule?: ArgRule;
}

/** The argument rule that refused a step, for `cxl check` and the refusal's details. */
export interface ArgRule {
  /** `find -exec`, `git config`, `path-quarantine`, … */
  rule: string;
  program?: string;
  flag?: string;
  why: string;
  level?: string;
}

export type Verdict = Allowed | Refused;

// Words sh reads as grammar when they start a command; refused as program names.
const RESERVED = new Set([
  'if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done',
  'in', 'function', 'time', 'coproc', '!', '{', '}', '[[', ']]',
]);

// Builtins that would mean something else than a program of that name on PATH (sh runs the
// builtin first). Refused by name so `hash`, `alias`, `.` and friends can never be vouched for.
const SHELL_ONLY = new Set([
  '.', 'source', 'eval', 'exec', 'alias', 'unalias', 'hash', 'export', 'unset', 'set', 'shift', 'trap',
  'readonly', 'declare', 'typeset', 'local', 'let', 'builtin', 'command', 'enable', 'exit', 'return',
  'break', 'continue', 'ulimit', 'umask', 'shopt', 'bind', 'fc', 'history', 'jobs', 'fg', 'bg', 'disown',
  'wait', 'suspend', 'getopts', 'read', 'mapfile', 'readarray', 'pushd', 'popd', 'dirs', 'logout', 'times',
]);

// distinct directories the line may be in after conditional cds; past it the line is refused
const MAX_CWDS = 64;
/** What a person does about a program the allowlist lacks (the refusal reaches them, or the model relays it). */
const ALLOW_HOW = 'A person can allow it by adding it to _allowed_commands under [tools_policies.local_shell] in .contenox/agents.toml (docs/config.md).';

interface State {
  cwd: string;
  /** the last status was 0 */
  ok: boolean;
}

const stateKey = (cwd: string, ok: boolean) => `${ok ? '0' : '1'}${cwd}`;

/** Whether a step joined by `op` runs from a state: always after `;`, on success after &&, on failure after ||. */
function runsFrom(op: Operator | null, st: State): boolean {
  return op === null || op === ';' || (op === '&&' ? st.ok : !st.ok);
}

interface CompiledPolicy {
  allowNames: Set<string> | null;
  /** absolute entries, as `real directory/name`: the name as written, its directory resolved */
  allowAbs: Set<string>;
  /** `program subcommand…` entries: program → the words after it */
  allowSubs: Map<string, string[][]>;
  denyNames: Set<string>;
  denyReal: Set<string>;
  allowedDir?: string;
  extraDirs: readonly string[];
}

function realOrSelf(p: string): string {
  try {
    // the libc realpath: one call instead of an lstat per component
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

// Compiled once per policy object (like the file tools, the root is canonicalised once).
const compiled = new WeakMap<ShellPolicy, CompiledPolicy>();

function compile(policy: ShellPolicy): CompiledPolicy {
  let c = compiled.get(policy);
  if (!c) {
    c = compileNow(policy);
    compiled.set(policy, c);
  }
  return c;
}

/** An absolute program path by name: its directory resolved, its own name kept (`/bin/rbash` → `/usr/bin/rbash`). */
function nameKey(p: string): string {
  return path.join(realOrSelf(path.dirname(p)), path.basename(p));
}

function compileNow(policy: ShellPolicy): CompiledPolicy {
  const allowNames = policy.allowedCommands ? new Set<string>() : null;
  const allowAbs = new Set<string>();
  const allowSubs = new Map<string, string[][]>();
  for (const e of policy.allowedCommands ?? []) {
    const words = e.trim().split(/\s+/);
    if (words.length > 1) {
      if (!allowSubs.has(words[0])) allowSubs.set(words[0], []);
      allowSubs.get(words[0])!.push(words.slice(1));
    } else if (e.includes('/')) {
      if (path.isAbsolute(e)) allowAbs.add(nameKey(e));
    } else allowNames!.add(e);
  }
  const denyNames = new Set<string>();
  const denyReal = new Set<string>();
  for (const e of policy.deniedCommands ?? []) {
    if (e.includes('/')) {
      denyNames.add(path.basename(e).toLowerCase());
      if (path.isAbsolute(e)) denyReal.add(realOrSelf(e));
    } else denyNames.add(e.toLowerCase());
  }
  let allowedDir: string | undefined;
  if (policy.allowedDir !== undefined) allowedDir = realDirectory(path.resolve(policy.allowedDir));
  return { allowNames, allowAbs, allowSubs, denyNames, denyReal, allowedDir, extraDirs: allowedDir ? (policy.extraDirs ?? []) : [] };
}

/** Inside the allowed dir or one of the session's additional directories (true without an allowed dir). */
function allowedPlace(pol: CompiledPolicy, real: string): boolean {
  return !pol.allowedDir || isInside(pol.allowedDir, real) || pol.extraDirs.some((d) => isInside(d, real));
}

/** The confinement as said in a refusal. */
function allowedShown(pol: CompiledPolicy): string {
  return confinementShown(pol.allowedDir ?? '', pol.extraDirs);
}

class Refusal {
  constructor(
    readonly rule: string,
    readonly construct: string,
    readonly position: number,
    readonly reason: string,
    readonly argRule?: ArgRule,
  ) {}
}

interface ProgramOk {
  resolved: string;
  real: string;
  rule: string;
  /** allowed only by `program subcommand` entries: the step's words must start with one */
  subs?: string[][];
}

function checkProgram(word: WordToken, pol: CompiledPolicy, dirs: string[], cache: Map<string, ProgramOk | Refusal>): ProgramOk | Refusal {
  const name = word.value;
  const at = word.start;
  if (word.quoted) {
    return new Refusal('quoted-program', name, at, `the program name at offset ${at} is quoted; write it bare (the policy matches the name exactly as it will run).`);
  }
  if (RESERVED.has(name)) {
    return new Refusal('compound', name, at, `\`${name}\` at offset ${at} starts a compound command in sh, which the policy cannot vouch for. Run each command as its own step.`);
  }
  const eq = name.indexOf('=');
  if (eq >= 0) {
    return new Refusal(
      'assignment',
      name,
      at,
      `\`${name}\` at offset ${at} is a variable assignment (VAR=x prefix), which the policy refuses. Pass settings as program arguments instead.`,
    );
  }
  const cached = cache.get(name);
  if (cached) return cached instanceof Refusal ? new Refusal(cached.rule, cached.construct, at, cached.reason.replace(/offset \d+/, `offset ${at}`)) : cached;
  const result = checkProgramName(name, at, pol, dirs);
  cache.set(name, result);
  return result;
}

function checkProgramName(name: string, at: number, pol: CompiledPolicy, dirs: string[]): ProgramOk | Refusal {
  const lower = name.toLowerCase();
  if (pol.denyNames.has(lower) || pol.denyNames.has(path.basename(lower))) {
    return new Refusal('denied', name, at, `\`${name}\` at offset ${at} is on _denied_commands, so it never runs.`);
  }
  if (SHELL_ONLY.has(name)) {
    return new Refusal('shell-builtin', name, at, `\`${name}\` at offset ${at} is a shell builtin; without a shell it cannot be vouched for.`);
  }
  let resolved: string;
  let byPath = false;
  if (name.includes('/')) {
    if (!path.isAbsolute(name)) {
      return new Refusal(
        'program-path',
        name,
        at,
        `\`${name}\` at offset ${at} names a program by a relative path; the policy vouches for names on PATH and absolute paths on _allowed_commands only.`,
      );
    }
    if (!isExecutableFile(name)) return new Refusal('not-found', name, at, `\`${name}\` at offset ${at} is not an executable file.`);
    resolved = name;
    byPath = true;
  } else {
    if (pol.allowNames && !pol.allowNames.has(name) && !pol.allowSubs.has(name) && pol.allowAbs.size === 0) {
      return new Refusal('not-allowlisted', name, at, `\`${name}\` at offset ${at} is not on _allowed_commands. Allowed: ${[...pol.allowNames].join(', ') || '(none)'}. ${ALLOW_HOW}`);
    }
    const found = findOnPath(name, dirs);
    if (!found) return new Refusal('not-found', name, at, `\`${name}\` at offset ${at} was not found on PATH.`);
    resolved = found;
  }
  const real = realOrSelf(resolved);
  if (pol.denyNames.has(path.basename(real).toLowerCase()) || pol.denyReal.has(real)) {
    return new Refusal('denied', name, at, `\`${name}\` at offset ${at} resolves to ${real}, which is on _denied_commands.`);
  }
  let rule: string;
  let subs: string[][] | undefined;
  if (pol.allowNames) {
    // absolute entries match by name: only looked up when there are any (a realpath each)
    const key = pol.allowAbs.size ? nameKey(byPath ? name : path.join(path.dirname(resolved), name)) : '';
    if (!byPath && pol.allowNames.has(name)) rule = `allowlisted: ${name}`;
    else if (key && pol.allowAbs.has(key)) rule = `allowlisted: ${key}`;
    else if (!byPath && pol.allowSubs.has(name)) {
      subs = pol.allowSubs.get(name)!;
      rule = `allowlisted: ${subs.map((w) => `${name} ${w.join(' ')}`).join(', ')}`;
    } else {
      return new Refusal(
        'not-allowlisted',
        name,
        at,
        byPath
          ? `\`${name}\` at offset ${at} is a program path not on _allowed_commands (only bare names on PATH, or the exact absolute paths listed, are allowed; another name for the same file is another program).`
          : `\`${name}\` at offset ${at} is not on _allowed_commands. ${ALLOW_HOW}`,
      );
    }
  } else rule = `not denied (no _allowed_commands): ${name}`;
  if (byPath && !allowedPlace(pol, real)) {
    return new Refusal('outside-allowed-dir', name, at, `\`${name}\` at offset ${at} resides outside ${allowedShown(pol)}.`);
  }
  return { resolved, real, rule, ...(subs ? { subs } : {}) };
}

interface RawStep {
  op: Operator | null;
  words: WordToken[];
  start: number;
  end: number;
}

function splitSteps(tokens: Token[], line: string): RawStep[] | Refusal {
  const steps: RawStep[] = [];
  let cur: RawStep = { op: null, words: [], start: 0, end: 0 };
  for (const t of tokens) {
    if (t.kind === 'word') {
      if (cur.words.length === 0) cur.start = t.start;
      cur.words.push(t);
      cur.end = t.end;
      continue;
    }
    if (cur.words.length === 0) {
      return new Refusal('empty-step', t.op, t.start, `\`${t.op}\` at offset ${t.start} has no command before it.`);
    }
    steps.push(cur);
    cur = { op: t.op, words: [], start: t.end, end: t.end };
  }
  if (cur.words.length === 0) {
    if (cur.op) return new Refusal('empty-step', cur.op, line.length, `the line ends with \`${cur.op}\` and no command after it.`);
    return new Refusal('empty-step', 'empty line', 0, 'the line has no command.');
  }
  steps.push(cur);
  return steps;
}

function stepOfOffset(tokens: Token[]): number {
  return tokens.filter((t) => t.kind === 'op').length;
}

/**
 * Checks `line` against `policy`. Returns the verdict with every step (for an allowed line) or the
 * first refusal with the steps allowed before it. Never throws for a bad line; throws only when
 * the policy itself is unusable (the allowed dir does not exist).
 */
export function checkLine(line: string, policy: ShellPolicy, opts: CheckOptions = {}): Verdict {
  const lexed = lex(line);
  if (!lexed.ok) {
    const r = lexed.refusal;
    return { verdict: 'refuse', rule: 'syntax', construct: r.construct, position: r.position, step: stepOfOffset(lexed.tokens), reason: r.message, steps: [] };
  }
  const pol = compile(policy);
  const dirs = pathDirectories(opts.pathEnv ?? process.env.PATH ?? '');
  const raw = splitSteps(lexed.tokens, lexed.line);
  if (raw instanceof Refusal) return refused(raw, stepOfOffset(lexed.tokens.filter((t) => t.start < raw.position)), []);

  const startDir = startDirectory(pol, opts.cwd);
  if (startDir instanceof Refusal) return refused(startDir, 0, []);

  const steps: CheckedStep[] = [];
  const cache = new Map<string, ProgramOk | Refusal>();
  const argCache = newStepCache();
  // Every (directory, last status) the line may be in at this point. A step after && or || may
  // not run, so a later cd is checked from every directory the line can be in, not only from
  // the one where every step ran. A cd that fails when it runs stops the line, so a cd that ran
  // leaves status 0; a program may leave either.
  let states = new Map<string, State>([[stateKey(startDir, true), { cwd: startDir, ok: true }]]);
  for (let index = 0; index < raw.length; index++) {
    const s = raw[index];
    const argv = s.words.map((w) => w.value);
    const first = s.words[0];
    const all = [...states.values()];
    const running = all.filter((st) => runsFrom(s.op, st));
    // A step no path reaches is still checked, from every directory the line may be in.
    const bases = [...new Set((running.length ? running : all).map((st) => st.cwd))];
    const next = new Map<string, State>();
    for (const st of all) if (!runsFrom(s.op, st)) next.set(stateKey(st.cwd, st.ok), st);
    if (first.value === 'cd' && !first.quoted) {
      if (pol.denyNames.has('cd')) return refused(new Refusal('denied', 'cd', first.start, `\`cd\` at offset ${first.start} is on _denied_commands.`), index, steps);
      const cd = checkCd(s, pol, bases);
      if (cd instanceof Refusal) return refused(cd, index, steps);
      for (const st of running) {
        const t = cd.targets.get(st.cwd)!;
        next.set(stateKey(t, true), { cwd: t, ok: true });
      }
      if (new Set([...next.values()].map((st) => st.cwd)).size > MAX_CWDS) {
        return refused(
          new Refusal('cd-fanout', 'cd', first.start, `after the cd at offset ${first.start} the line may be in more than ${MAX_CWDS} different directories; split it into several calls.`),
          index,
          steps,
        );
      }
      states = next;
      steps.push({ kind: 'cd', index, op: s.op, argv, start: s.start, end: s.end, target: cd.targets.get(bases[0])!, rule: cd.rule });
      continue;
    }
    const prog = checkProgram(first, pol, dirs, cache);
    if (prog instanceof Refusal) return refused(prog, index, steps);
    const args = checkArguments(s.words, argv, prog, bases, pol, dirs, cache, argCache, opts);
    if (args instanceof Refusal) return refused(args, index, steps);
    for (const st of running) {
      next.set(stateKey(st.cwd, true), { cwd: st.cwd, ok: true });
      next.set(stateKey(st.cwd, false), { cwd: st.cwd, ok: false });
    }
    states = next;
    steps.push({ kind: 'run', index, op: s.op, argv, program: first.value, resolved: prog.resolved, real: prog.real, cwd: bases[0], cwds: bases, args, start: s.start, end: s.end, rule: prog.rule });
  }
  const programs = [...new Set(steps.filter((s): s is RunStep => s.kind === 'run').map((s) => s.program))];
  return {
    verdict: 'allow',
    reason: `${steps.length} step${steps.length === 1 ? '' : 's'} checked; ${programs.length ? `programs ${programs.join(', ')} allowed` : 'no programs'}${pol.allowedDir ? `; every cd stays inside ${pol.allowedDir}` : ''}.`,
    startDir,
    ...(pol.allowedDir ? { allowedDir: pol.allowedDir } : {}),
    ...(pol.extraDirs.length ? { extraDirs: pol.extraDirs } : {}),
    steps,
  };
}

/** The real directory a line starts in: `cwd` (from the allowed dir), else the allowed dir, else the process's. */
function startDirectory(pol: CompiledPolicy, cwd: string | undefined): string | Refusal {
  let dir: string;
  try {
    dir = cwd !== undefined ? realDirectory(path.resolve(pol.allowedDir ?? process.cwd(), cwd)) : (pol.allowedDir ?? realDirectory(process.cwd()));
  } catch {
    return new Refusal('cwd', cwd ?? '', 0, `the working directory ${cwd} does not exist or is not a directory.`);
  }
  if (!allowedPlace(pol, dir)) {
    return new Refusal('cwd-escape', cwd ?? dir, 0, `the working directory ${dir} is outside ${allowedShown(pol)}.`);
  }
  return dir;
}

function refused(r: Refusal, step: number, steps: CheckedStep[]): Refused {
  return { verdict: 'refuse', rule: r.rule, construct: r.construct, position: r.position, step, reason: r.reason, steps, ...(r.argRule ? { argRule: r.argRule } : {}) };
}

const startsWith = (argv: readonly string[], from: number, words: readonly string[]) => words.every((w, k) => argv[from + k] === w);

/** A program allowed only as `program subcommand` entries must be run as one of them. */
function subsRefusal(prog: ProgramOk, argv: readonly string[], k: number, word: WordToken): Refusal | null {
  if (!prog.subs || prog.subs.some((w) => startsWith(argv, k + 1, w))) return null;
  const name = argv[k];
  return new Refusal(
    'not-allowlisted',
    name,
    word.start,
    `\`${name}\` at offset ${word.start} is on _allowed_commands only as ${prog.subs.map((w) => `\`${name} ${w.join(' ')}\``).join(', ')}; this step runs \`${[name, ...argv.slice(k + 1, k + 3)].join(' ')}\`.`,
  );
}

/** Whether `_allowed_commands` names the subcommand a finding belongs to (`npm install`, `npx tsc`). */
function unlocked(pol: CompiledPolicy, f: Finding): boolean {
  return f.sub !== undefined && (pol.allowSubs.get(f.program)?.some((w) => w[0] === f.sub) ?? false);
}

/**
 * The argument rules for one step: each wrapped program goes through the program rules too,
 * then the first problem the policy refuses (see step_args.ts), unless `argRules` is off.
 */
function checkArguments(
  words: WordToken[],
  argv: string[],
  prog: ProgramOk,
  cwds: string[],
  pol: CompiledPolicy,
  dirs: string[],
  cache: Map<string, ProgramOk | Refusal>,
  argCache: StepCache,
  opts: CheckOptions,
): StepArgs | Refusal {
  const sub = subsRefusal(prog, argv, 0, words[0]);
  if (sub) return sub;
  if (opts.argRules === 'skip') return { inner: 0, findings: [], paths: [] };
  const r = stepArgs(argv, cwds, {
    real: prog.real,
    cache: argCache,
    ...(pol.allowedDir ? { root: pol.allowedDir } : {}),
    ...(pol.allowedDir || opts.root ? { within: pol.allowedDir ?? opts.root } : {}),
    ...(pol.extraDirs.length ? { extraRoots: pol.extraDirs } : {}),
    inner(word, k) {
      // a wrapped program is an argument, not shell grammar: its quotes are not the shell's
      const tok: WordToken = { ...(words[k] ?? { kind: 'word', value: word, quoted: false, start: words[0].start, end: words[0].start }), quoted: false };
      const p = checkProgram(tok, pol, dirs, cache);
      if (p instanceof Refusal) return { refused: p };
      const s = subsRefusal(p, argv, k, tok);
      return s ? { refused: s } : { real: p.real };
    },
  });
  if ('refused' in r) return r.refused as Refusal;
  if (opts.argRules === 'report') return r;
  const problem = policyProblem(r, { allowedDir: pol.allowedDir, extraDirs: pol.extraDirs, askable: opts.askable === true, unlocked: (f) => unlocked(pol, f) });
  if (!problem) return r;
  const at = problem.index >= 0 ? (words[problem.index]?.start ?? words[0].start) : words[0].start;
  const word = problem.index >= 0 ? argv[problem.index] : argv[0];
  const f = problem.finding;
  return new Refusal(problem.rule, problem.construct, at, `step ${argv[0]}: \`${word}\` at offset ${at}: ${problem.reason}.`, {
    rule: f?.rule ?? problem.rule,
    ...(f ? { program: f.program, level: f.level } : {}),
    ...(f?.flag ? { flag: f.flag } : {}),
    why: f?.why ?? problem.reason,
  });
}

function checkCd(s: RawStep, pol: CompiledPolicy, bases: string[]): { targets: Map<string, string>; rule: string } | Refusal {
  const at = s.words[0].start;
  if (s.words.length !== 2) {
    return new Refusal(
      'cd-args',
      'cd',
      at,
      s.words.length === 1
        ? `\`cd\` at offset ${at} has no directory (it would go to $HOME). Name the directory: cd DIR.`
        : `\`cd\` at offset ${at} takes exactly one directory; got ${s.words.length - 1} arguments.`,
    );
  }
  const arg = s.words[1];
  const target = arg.value;
  if (target === '' || target === '-' || target.startsWith('-')) {
    return new Refusal('cd-args', target || "''", arg.start, `\`cd ${target || "''"}\` at offset ${at} is refused: give a directory name (no options, no \`-\`, not empty).`);
  }
  const resolveFrom = (base: string): string | Refusal => {
    let real: string;
    try {
      real = resolveDirectory(base, target);
    } catch (err) {
      const why = err instanceof ResolveError ? err.message : String(err);
      return new Refusal('cd-missing', target, arg.start, `cd target \`${target}\` at offset ${arg.start} cannot be resolved from ${base}: ${why}. cd only into existing directories.`);
    }
    if (!allowedPlace(pol, real)) {
      return new Refusal(
        'cd-escape',
        target,
        arg.start,
        `\`cd ${target}\` at offset ${at} leads to ${real}, outside ${allowedShown(pol)}.`,
      );
    }
    // inside as resolved, but not as written (`cd link/../..`): refused like any path word
    const written = path.resolve(base, target);
    if (pol.allowedDir && ![pol.allowedDir, ...pol.extraDirs].some((d) => withinAsWritten(d, written) && isInside(d, real))) {
      return new Refusal('cd-escape', target, arg.start, `\`cd ${target}\` at offset ${at} leaves ${allowedShown(pol)} as written, though it resolves to ${real}. Write the directory inside it.`);
    }
    return real;
  };
  const targets = new Map<string, string>();
  for (const base of bases) {
    const r = resolveFrom(base);
    if (r instanceof Refusal) return r;
    targets.set(base, r);
  }
  const shown = [...new Set(targets.values())].join(' or ');
  return { targets, rule: pol.allowedDir ? `cd inside _allowed_dir: ${shown}` : `cd (no _allowed_dir): ${shown}` };
}

/**
 * Checks the argv form (a program and its arguments, never read as a line): the program goes
 * through the same rules as a step's program; the arguments are passed verbatim, so only NUL (which
 * no argv can carry) is refused. `cd` has no argv form: use the `cwd` argument.
 */
export function checkArgv(program: string, args: string[], policy: ShellPolicy, opts: CheckOptions = {}): Verdict {
  const fail = (rule: string, construct: string, reason: string, position = 0): Refused => ({ verdict: 'refuse', rule, construct, position, step: 0, reason, steps: [] });
  if (program === '' || /[\u0000-\u001f\u007f]/.test(program)) return fail('program-name', program, 'the program name is empty or contains control characters.');
  if (program === 'cd') return fail('cd-args', 'cd', '`cd` has no argv form; pass the directory as the `cwd` argument instead.');
  const nul = args.findIndex((a) => a.includes('\u0000'));
  if (nul >= 0) return fail('nul', 'NUL', `argument ${nul + 1} contains a NUL character, which no program can receive.`);
  const pol = compile(policy);
  const startDir = startDirectory(pol, opts.cwd);
  if (startDir instanceof Refusal) return refused(startDir, 0, []);
  if (SHELL_ONLY.has(program) || RESERVED.has(program)) {
    return fail('shell-builtin', program, `\`${program}\` is shell grammar or a shell builtin; without a shell it cannot be vouched for.`);
  }
  const dirs = pathDirectories(opts.pathEnv ?? process.env.PATH ?? '');
  const prog = checkProgramName(program, 0, pol, dirs);
  if (prog instanceof Refusal) return refused(prog, 0, []);
  const argv = [program, ...args];
  const words: WordToken[] = argv.map((value) => ({ kind: 'word', value, quoted: false, start: 0, end: 0 }));
  const checked = checkArguments(words, argv, prog, [startDir], pol, dirs, new Map(), newStepCache(), opts);
  if (checked instanceof Refusal) return refused(checked, 0, []);
  return {
    verdict: 'allow',
    reason: `argv form: ${prog.rule}.`,
    startDir,
    ...(pol.allowedDir ? { allowedDir: pol.allowedDir } : {}),
    ...(pol.extraDirs.length ? { extraDirs: pol.extraDirs } : {}),
    steps: [{ kind: 'run', index: 0, op: null, argv, program, resolved: prog.resolved, real: prog.real, cwd: startDir, cwds: [startDir], args: checked, start: 0, end: 0, rule: prog.rule }],
  };
}
