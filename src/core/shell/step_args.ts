// The argument rules applied to one step of a line: wrappers unwrapped to the program that really
// runs (each layer read with its table, however deeply they nest), every word that names a path
// classified from every directory the step may start in (as written and as resolved), what a
// recursive reader would meet, and the repository git would use. The command policy
// (checker.ts) turns the result into refusals; the gate turns it into envelope facts.
import path from 'node:path';
import { isWithin, withinAsWritten } from '../paths.ts';
import type { PathClass } from '../protect/matcher.ts';
import { analyze, rulesFor, type Finding, type PathRef } from './argrules/index.ts';
import { trackedProtected } from './git_index.ts';
import { classOf, discoverGitDir, resolveWord, scanProtected, statOf, type Holds } from './path_words.ts';

export interface ClassifiedPath {
  word: string;
  /** argv index of the word it came from (-1: the implicit `.` of ls, find, grep -r) */
  index: number;
  kind: PathRef['kind'];
  recursive: boolean;
  /** the directory it was taken from */
  from: string;
  /** absolute, `..` collapsed as written */
  lexical: string;
  /** absolute, symlinks resolved as far as the path exists */
  real: string;
  exists: boolean;
  /** its class in the protected-paths table (of either form) */
  cls: PathClass;
  /** for a recursive read of a directory: the first protected file below it */
  holds: Holds;
}

export interface GitStep {
  /** argv index of the `git` word (after wrappers) */
  at: number;
  /** its subcommand */
  sub?: { name: string; index: number };
  /** the git directory git finds from each directory the step may run in (null: none) */
  repos: (string | null)[];
}

export interface StepArgs {
  /** argv index of the program that really runs (0 unless wrappers come first) */
  inner: number;
  /** what the tables found, every layer, argv indexes of the whole step */
  findings: Finding[];
  paths: ClassifiedPath[];
  git?: GitStep;
}

/** Checks a wrapped program (the checker: allowlist and deny list); its real file's name, or a refusal. */
export type InnerProgram = (word: string, index: number) => { real?: string } | { refused: unknown };

const MAX_WRAPPERS = 8;

// git subcommands that print tracked content without a path naming it, and the log options that do
const SHOWS = new Set(['show', 'diff', 'grep', 'cat-file', 'archive', 'format-patch', 'stash', 'range-diff', 'diff-tree', 'diff-index', 'diff-files', 'blame', 'annotate']);
const LOGS = new Set(['log', 'whatchanged', 'reflog']);
const PATCH = new Set(['-p', '-u', '--patch', '-L', '-c', '--cc', '--patch-with-raw', '--patch-with-stat', '--remerge-diff', '-m', '--dd', '--word-diff', '--color-words']);

/** A repository that tracks protected files makes the git subcommands that print content need a human. */
function trackedFinding(git: GitStep, opts: readonly string[]): Finding | null {
  const sub = git.sub?.name;
  if (sub === undefined || !(SHOWS.has(sub) || (LOGS.has(sub) && opts.some((o) => PATCH.has(o))))) return null;
  for (const r of git.repos) {
    if (!r) continue;
    const t = trackedProtected(r);
    if (!t) continue;
    const why =
      t === 'unreadable'
        ? `\`git ${sub}\` prints tracked content, and the repository's index cannot be read to tell whether it tracks protected files`
        : `the repository tracks ${t.path} (${t.cls === 'quarantined' ? 'credential quarantine' : 'read-approve'}), and \`git ${sub}\` can print its content without naming it`;
    return { rule: 'git tracked protected files', program: 'git', level: 'confirm', why, index: git.sub!.index };
  }
  return null;
}

export interface StepArgsOptions {
  /** the real file of the step's program (a link named `cleanup` that is `rm` is read as both) */
  real?: string;
  inner?: InnerProgram;
  /** shared by the steps of one line: a word from a directory is classified once, a repository found once */
  cache?: StepCache;
  /**
   * The directory the paths must stay inside (the allowed dir, the workspace root): a recursive
   * reader's directory outside it is not scanned (it is refused or asked for being outside).
   */
  root?: string;
  /** where a link a recursive reader follows may lead without counting as outside (default: `root`) */
  within?: string;
  /** the session's additional directories (canonical): inside one is inside too, and it bounds its own links */
  extraRoots?: readonly string[];
}

export interface StepCache {
  paths: Map<string, ClassifiedPath>;
  repos: Map<string, string | null>;
}

export function newStepCache(): StepCache {
  return { paths: new Map(), repos: new Map() };
}

function repoOf(dir: string, cache: StepCache | undefined): string | null {
  const hit = cache?.repos.get(dir);
  if (hit !== undefined) return hit;
  const r = discoverGitDir(dir);
  cache?.repos.set(dir, r);
  return r;
}

function classify(ref: PathRef, base: string, caches: StepCache | undefined, root: string | undefined, within: string | undefined = root, extra: readonly string[] = []): ClassifiedPath {
  const cache = caches?.paths;
  const key = `${base}\0${ref.word}\0${ref.recursive ? (ref.follow ? 'f' : 'r') : ''}`;
  const hit = cache?.get(key);
  if (hit) return { ...hit, index: ref.index, kind: ref.kind };
  const { lexical, real, exists } = resolveWord(base, ref.word);
  const cls = classOf(lexical, real);
  let holds: Holds = null;
  const inRoot = (r: string) => isWithin(r, real) && withinAsWritten(r, lexical);
  // in an additional directory: scanned, and its links bounded, by that directory
  const home = root === undefined || inRoot(root) ? root : extra.find(inRoot);
  const inside = root === undefined || home !== undefined;
  if (ref.recursive && exists && cls === null && inside && statOf(real)?.isDirectory()) holds = scanProtected(real, ref.follow === true, undefined, home === root ? within : home);
  const out: ClassifiedPath = { word: ref.word, index: ref.index, kind: ref.kind, recursive: ref.recursive === true, from: base, lexical, real, exists, cls, holds };
  cache?.set(key, out);
  return out;
}

/** The directories a program moving with `-C a -C b` reaches from `cwd`: cwd, cwd/a, cwd/a/b. */
function chain(cwd: string, chdir: readonly string[]): string[] {
  const out = [cwd];
  let cur = cwd;
  for (const d of chdir) {
    cur = resolveWord(cur, d).real;
    out.push(cur);
  }
  return out;
}

/** The top of the work tree a git directory belongs to (`x/.git` → x; a bare one: itself). */
const topOf = (gitDir: string) => (path.basename(gitDir) === '.git' ? path.dirname(gitDir) : gitDir);

/**
 * Reads one step's argv with the argument rules from every directory in `cwds` (real paths).
 * Returns a refusal when `opts.inner` refuses a wrapped program.
 */
export function stepArgs(argv: readonly string[], cwds: readonly string[], opts: StepArgsOptions = {}): StepArgs | { refused: unknown } {
  const findings: Finding[] = [];
  const paths: ClassifiedPath[] = [];
  let git: GitStep | undefined;
  let at = 0;
  let real = opts.real;
  for (let depth = 0; ; depth++) {
    const words = argv.slice(at);
    const a = analyze(words, real);
    for (const f of a.findings) findings.push({ ...f, index: f.index + at });
    const dirs = cwds.map((c) => chain(c, a.chdir));
    let repos: (string | null)[] | undefined;
    if (a.table === 'git') {
      repos = dirs.map((d) => repoOf(d[d.length - 1], opts.cache));
      git = { at, ...(a.sub ? { sub: { name: a.sub.name, index: a.sub.index + at } } : {}), repos };
      const tracked = trackedFinding(git, a.opts);
      if (tracked) findings.push(tracked);
    }
    for (const ref of a.paths) {
      const shifted = { ...ref, index: ref.index < 0 ? ref.index : ref.index + at };
      dirs.forEach((d, k) => {
        if (ref.base === 'repo') {
          const repo = repos?.[k];
          paths.push(classify(shifted, repo ? topOf(repo) : d[d.length - 1], opts.cache, opts.root, opts.within ?? opts.root, opts.extraRoots));
        } else for (const base of d) paths.push(classify(shifted, base, opts.cache, opts.root, opts.within ?? opts.root, opts.extraRoots));
      });
    }
    const wraps = rulesFor(words[0])?.wraps || (real !== undefined && rulesFor(real)?.wraps);
    if (a.inner === undefined || !wraps) break;
    const k = at + a.inner;
    if (depth >= MAX_WRAPPERS) {
      findings.push({ rule: 'wrappers', program: words[0], level: 'refuse', why: `more than ${MAX_WRAPPERS} wrappers nest here; run the program directly`, index: k });
      break;
    }
    const r = opts.inner?.(argv[k], k);
    if (r && 'refused' in r) return r;
    real = r?.real;
    at = k;
  }
  return { inner: at, findings, paths, ...(git ? { git } : {}) };
}

/** A problem a command policy refuses a step for. */
export interface PolicyProblem {
  /** `argument`, `path-quarantine`, `path-outside`, `needs-approval` */
  rule: string;
  /** argv index of the word */
  index: number;
  /** the word or flag, for the refusal's construct */
  construct: string;
  reason: string;
  finding?: Finding;
}

export interface PolicyOptions {
  allowedDir?: string;
  /** the session's additional directories (canonical): a path inside one is not outside */
  extraDirs?: readonly string[];
  /** a human can be asked (the gate): read-approve paths and `confirm` findings pass, for the envelope to ask */
  askable: boolean;
  /** a finding `_allowed_commands` unlocks by naming its subcommand (`npm install`) */
  unlocked?: (f: Finding) => boolean;
}

// outside every root, and harmless to read or write: `diff a /dev/null`, `sed 'w /dev/stdout'`
const DEVICES = new Set(['/dev/null', '/dev/zero', '/dev/stdin', '/dev/stdout', '/dev/stderr']);

/** Inside `root` both as written and as resolved (or one of the harmless devices). */
function inside(root: string, p: ClassifiedPath): boolean {
  return DEVICES.has(p.lexical) || (withinAsWritten(root, p.lexical) && isWithin(root, p.real));
}

const shown = (p: ClassifiedPath) => (p.word === p.lexical ? p.word : `${p.word} (${p.lexical === p.real ? p.lexical : `${p.lexical} → ${p.real}`})`);
const holdsText = (h: Holds) =>
  h === 'too-many' ? 'more files than can be checked for protected ones' : !h ? '' : h.cls === 'outside' ? `${h.path}, a link it follows to ${h.target}, outside the workspace` : `${h.path} (${h.cls === 'quarantined' ? 'credential quarantine' : 'read-approve'})`;
const outsideLink = (h: Holds): h is { path: string; cls: 'outside'; target: string } => typeof h === 'object' && h !== null && h.cls === 'outside';

/** The first reason a command policy refuses the step, or null. */
export function policyProblem(args: StepArgs, o: PolicyOptions): PolicyProblem | null {
  const fromFinding = (f: Finding, reason: string): PolicyProblem => ({ rule: 'argument', index: f.index, construct: f.flag ? `${f.program} ${f.flag}` : f.rule, reason, finding: f });
  for (const f of args.findings) {
    if (f.level === 'refuse' && !o.unlocked?.(f)) return fromFinding(f, `${f.rule}: ${f.why} (argument rule \`${f.rule}\`)`);
  }
  for (const p of args.paths) {
    if (p.cls === 'quarantined') return { rule: 'path-quarantine', index: p.index, construct: p.word, reason: `\`${shown(p)}\` is in the credential quarantine: no tool reads or writes it` };
  }
  if (o.allowedDir) {
    const places = [o.allowedDir, ...(o.extraDirs ?? [])];
    const said = confinementShown(o.allowedDir, o.extraDirs ?? []);
    for (const p of args.paths) {
      if (!places.some((d) => inside(d, p))) {
        return { rule: 'path-outside', index: p.index, construct: p.word, reason: `\`${shown(p)}\` is outside ${said}, as written or as resolved` };
      }
      if (outsideLink(p.holds) && !places.some((d) => isWithin(d, (p.holds as { target: string }).target))) {
        return { rule: 'path-outside', index: p.index, construct: p.word, reason: `a recursive read of \`${p.word}\` would follow ${p.holds.path} to ${p.holds.target}, outside ${said}` };
      }
    }
  }
  if (!o.askable) {
    for (const f of args.findings) if (f.level === 'confirm') return { ...fromFinding(f, `${f.rule}: ${f.why}; that needs a human's approval, which nobody can give here`), rule: 'needs-approval' };
    for (const p of args.paths) {
      if (p.cls === 'read_approve') return { rule: 'needs-approval', index: p.index, construct: p.word, reason: `\`${shown(p)}\` is on the read-approve list (.env, *.pem, *.key) and needs a human's approval, which nobody can give here` };
      if (p.holds) return { rule: 'needs-approval', index: p.index, construct: p.word, reason: `a recursive read of \`${p.word}\` would meet ${holdsText(p.holds)}; that needs a human's approval, which nobody can give here` };
    }
  }
  return null;
}

/** Why a step is not read-only, for an envelope: what keeps it from `shell.prefix_allowlist`. */
export interface ArgNote {
  /** the argument rule, in words: `find -delete`, `path outside the root`, `git repository` */
  rule: string;
  why: string;
  /** a subcommand a prefix entry may name to accept it (`npm install`) */
  sub?: string;
}

/** The confinement as a refusal says it: the allowed dir, and the session's additional directories when there are some. */
export function confinementShown(allowedDir: string, extraDirs: readonly string[]): string {
  return extraDirs.length ? `_allowed_dir (${allowedDir}) and the session's additional directories (${extraDirs.join(', ')})` : `_allowed_dir (${allowedDir})`;
}

/**
 * Everything about a step's arguments that keeps it from running unasked in an envelope whose
 * workspace root is `root` (and additional directories `extra`): every finding (any cost), a path outside them, a recursive read
 * over protected files, and git finding a repository other than the root's own `.git`.
 */
export function readOnlyNotes(args: StepArgs, root: string, extra: readonly string[] = []): ArgNote[] {
  const notes: ArgNote[] = args.findings.map((f) => ({ rule: f.rule, why: f.why, ...(f.sub ? { sub: f.sub } : {}) }));
  for (const p of args.paths) {
    // a session's additional directory is the workspace's equal here
    if (!inside(root, p) && !extra.some((d) => inside(d, p))) notes.push({ rule: 'path outside the root', why: `\`${shown(p)}\` is outside the workspace root` });
    if (outsideLink(p.holds)) notes.push({ rule: 'path outside the root', why: `a recursive read of \`${p.word}\` would follow ${holdsText(p.holds)}` });
    else if (p.holds) notes.push({ rule: 'recursive read of protected files', why: `a recursive read of \`${p.word}\` would meet ${holdsText(p.holds)}` });
  }
  if (args.git) {
    const own = path.join(root, '.git');
    for (const r of args.git.repos) {
      if (r !== own) {
        notes.push({ rule: 'git repository', why: r ? `git would use the repository ${r}, not the workspace's own .git, and a repository's configuration can run programs (core.fsmonitor)` : 'git finds no repository here' });
        break;
      }
    }
  }
  return notes;
}
