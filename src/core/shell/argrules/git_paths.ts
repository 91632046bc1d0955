// git names files its own ways: `REV:path` (a file as committed, from the top of the work tree),
// `:N:path` (the index), pathspecs with magic (`:(top)x`, `:/x`, `:!x`, `:(icase)x`,
// `:(glob)**/x`) and patterns (`'*npmrc'`, which git matches against every path, committed ones
// included). Each becomes a path for the path rules; a pattern cannot be checked against
// protected names without the history, so it needs a human.
import type { RuleContext } from './types.ts';

export interface Pathspec {
  path: string;
  /** from the top of the work tree (`:(top)`, `:/`, `REV:path`) or from the directory git runs in */
  base: 'cwd' | 'repo';
  /** a pattern (glob characters, `:(attr)`, an exclusion) rather than one path */
  pattern: boolean;
}

/** Reads a pathspec's magic. `literalAll`: `--literal-pathspecs` was given. */
export function parsePathspec(word: string, literalAll = false): Pathspec {
  let rest = word;
  let top = false;
  let literal = literalAll;
  let pattern = false;
  if (rest.startsWith(':(')) {
    const close = rest.indexOf(')');
    const magic = close < 0 ? rest.slice(2) : rest.slice(2, close);
    rest = close < 0 ? '' : rest.slice(close + 1);
    for (const m of magic.split(',').map((x) => x.trim().toLowerCase())) {
      if (m === 'top') top = true;
      else if (m === 'literal') literal = true;
      else if (m === 'glob') literal = false;
      else if (m === 'exclude' || m.startsWith('attr')) pattern = true;
      else if (m !== 'icase' && m !== '') pattern = true; // magic this reader does not know
    }
  } else if (rest.startsWith(':')) {
    let k = 1;
    while (k < rest.length && '/!^'.includes(rest[k])) {
      if (rest[k] === '/') top = true;
      else pattern = true; // `:!x` excludes x: everything else matches
      k++;
    }
    if (rest[k] === ':') k++;
    rest = rest.slice(k);
  }
  if (!literal && /[*?[]/.test(rest)) pattern = true;
  return { path: rest === '' ? '.' : rest, base: top ? 'repo' : 'cwd', pattern };
}

/** `HEAD:a/b`, `v1.2~3:x`, `:0:x`, `:x` → the path part and where it is taken from. */
export function revPath(word: string): { path: string; base: 'cwd' | 'repo' } | null {
  let colon: number;
  if (/^:[0-3]:/.test(word)) colon = 2;
  else colon = word.indexOf(':');
  if (colon < 0) return null;
  if (word.startsWith(':/') && colon === 0) return null; // `:/text` searches commit messages
  // tree paths are taken from the top: a leading `/` does not leave it
  const p = word.slice(colon + 1).replace(/^\/+/, '');
  if (p === '') return { path: '.', base: 'repo' }; // `HEAD:` is the top tree
  // `HEAD:./x` and `HEAD:../x` are taken from the directory git runs in
  return { path: p, base: p.startsWith('./') || p.startsWith('../') ? 'cwd' : 'repo' };
}

const PATTERN_WHY = 'is a pattern git matches against every path, committed ones included, so it may reach protected files that cannot be seen on disk; name the files instead';

/** The operands of a git subcommand as paths: revisions with paths, pathspecs, patterns. */
export function gitOperands(c: RuleContext): void {
  const literal = c.argv.slice(1, c.start).includes('--literal-pathspecs');
  for (const o of c.parsed.operands) {
    const w = o.value;
    // before `--` a word is a revision (maybe `REV:path`) or a pathspec; both readings count
    if (!o.afterDashes && !/^:[(!^]/.test(w)) {
      const rp = revPath(w);
      if (rp) c.path({ word: rp.path, index: o.index, kind: 'read', base: rp.base });
    }
    const ps = parsePathspec(w, literal);
    if (ps.pattern) c.find('confirm', w, `the pathspec \`${w}\` ${PATTERN_WHY}`, o.index);
    c.path({ word: ps.path, index: o.index, kind: 'read', base: ps.base });
  }
  // git log -L 10,20:file and -L :func:file
  for (const opt of c.parsed.opts) {
    if (opt.name === '-L' && opt.value !== undefined) {
      const file = opt.value.slice(opt.value.lastIndexOf(':') + 1);
      if (file) c.path({ word: file, index: opt.index, kind: 'read' });
    }
  }
}
