// Glob lists of the envelope engine: one compiled RegExp per list (glob.ts semantics, shared
// with the quarantine and find_files), so a decision costs one regex test per list and path.
import { expandBraces, globSource } from '../glob.ts';

const ANY_DIRS = '(?:.*/)?';

/**
 * A glob list compiled for speed, same meaning as glob.ts's compileGlobs. Globs that start with
 * `**\/` match a suffix of the path that starts at a segment boundary; when that suffix is a
 * single segment (`**\/*.pem`, `**\/id_rsa*`) only the base name is tested. Both avoid
 * backtracking over every `/` for every alternative: ~20x faster on a miss for the quarantine.
 */
export interface CompiledGlobList {
  test(path: string): boolean;
}

/** `**\/LIT` or `**\/LIT/**` with LIT plain ASCII text (no `*`, `?`, `[`, `\`): tested as strings. */
const LITERAL_ANYWHERE = /^\*\*\/([\x20-\x7e]+?)(\/\*\*)?$/;
const GLOB_META = /[*?[\\]/;

/** Tests a list answers with strings before its RegExps are built (a cold command makes a few). */
export const STRING_TESTS = 32;

/** The RegExps of brace-free glob sources, split by shape (see CompiledGlobList). */
function regexTester(sources: readonly string[]): (p: string) => boolean {
  const anchored: string[] = [];
  const suffix: string[] = [];
  const base: string[] = [];
  for (const x of sources) {
    if (!x.startsWith(ANY_DIRS)) anchored.push(x);
    else {
      const rest = x.slice(ANY_DIRS.length);
      // one segment: no `/` in the source except inside a `[^/]` class
      (rest.replace(/\[\^\/\]/g, '').includes('/') ? suffix : base).push(rest);
    }
  }
  const a = anchored.length ? new RegExp(`^(?:${anchored.join('|')})$`, 'i') : null;
  const s = suffix.length ? new RegExp(`(?:^|/)(?:${suffix.join('|')})$`, 'i') : null;
  const b = base.length ? new RegExp(`^(?:${base.join('|')})$`, 'i') : null;
  return (p) => {
    if (b !== null && b.test(p.slice(p.lastIndexOf('/') + 1))) return true;
    if (s !== null && s.test(p)) return true;
    return a !== null && a.test(p);
  };
}

/**
 * Literal entries (most of the protected-path table: `**\/.ssh/**`, `**\/.netrc`) compared as
 * lower-cased strings, the rest by RegExp. For ASCII text this matches exactly the paths the
 * case-insensitive RegExp would, plus paths with a line break before the entry (`.` stops at one
 * in a RegExp) and non-ASCII letters that lower-case to ASCII (the Kelvin sign): more paths
 * protected, never fewer.
 */
function stringTester(globs: readonly string[]): (p: string) => boolean {
  const names = new Set<string>(); // `**/LIT` with one segment: the base name
  const tails: string[] = []; // `**/a/b`: `/a/b` ends the path (or the path is `a/b`)
  const dirs: string[] = []; // `**/LIT/**`: `/LIT/` occurs in `/path/`
  const rest: string[] = [];
  for (const glob of globs) {
    const lit = LITERAL_ANYWHERE.exec(glob);
    if (lit && !GLOB_META.test(lit[1]) && !lit[1].startsWith('/') && !lit[1].endsWith('/')) {
      const text = lit[1].toLowerCase();
      if (lit[2]) dirs.push(`/${text}/`);
      else if (text.includes('/')) tails.push(`/${text}`);
      else names.add(text);
    } else rest.push(globSource(glob));
  }
  const others = rest.length ? regexTester(rest) : null;
  return (p) => {
    const lower = p.toLowerCase();
    if (names.has(lower.slice(lower.lastIndexOf('/') + 1))) return true;
    const wrapped = `/${lower}/`;
    for (const t of tails) if (wrapped.endsWith(`${t}/`)) return true;
    for (const d of dirs) if (wrapped.includes(d)) return true;
    return others !== null && others(p);
  };
}

/**
 * A big alternation costs milliseconds to compile on each of its first two uses (bytecode, then
 * native code), which a cold `cxl tool` or `cxl check` would pay every time; a long-lived agent
 * wants the compiled RegExps, which beat the string loop per test. So a list answers its first
 * `stringTests` tests with strings, then builds the RegExps and uses them from then on.
 */
export function compileGlobList(globs: readonly string[], opts: { stringTests?: number } = {}): CompiledGlobList {
  const expanded = globs.flatMap(expandBraces);
  let left = opts.stringTests ?? STRING_TESTS;
  let cold: ((p: string) => boolean) | undefined;
  let warm: ((p: string) => boolean) | undefined;
  return {
    test(p: string): boolean {
      if (warm !== undefined) return warm(p);
      if (left > 0) {
        left--;
        return (cold ??= stringTester(expanded))(p);
      }
      warm = regexTester(expanded.map(globSource));
      return warm(p);
    },
  };
}

/** Normalises a path for matching: `/` separators, no `./` segments, no doubled or leading `/`. */
const NEEDS_WORK = /\\|\/\/|(?:^|\/)\.(?:\/|$)|\/$/;

export function normalizeForMatch(p: string): string {
  // fast path: most paths are already clean (one test, no allocation)
  const q = p.charCodeAt(0) === 47 ? p.slice(1) : p;
  if (q !== '' && !NEEDS_WORK.test(q)) return q;
  let s = p.replace(/\\/g, '/');
  if (s.includes('//')) s = s.replace(/\/{2,}/g, '/');
  while (s.startsWith('./')) s = s.slice(2);
  if (s.includes('/./')) s = s.replace(/\/(?:\.\/)+/g, '/');
  if (s.startsWith('/')) s = s.slice(1);
  if (s.endsWith('/.')) s = s.slice(0, -2);
  if (s.length > 1 && s.endsWith('/')) s = s.slice(0, -1);
  return s === '' ? '.' : s;
}

/**
 * The forms of one path a deny or approve list is tested on: the normalised path, and the same
 * with trailing dots and spaces stripped from each segment (some filesystems drop them, so
 * `.env.` opens `.env` there).
 */
export function widenForDeny(normalized: string, into: string[]): void {
  into.push(normalized);
  if (/[. ](?:\/|$)/.test(normalized)) {
    const stripped = normalized.replace(/[. ]+(?=\/|$)/g, '');
    if (stripped !== normalized && stripped !== '') into.push(stripped);
  }
}

/** A compiled, case-insensitive glob list over normalised paths. */
export class GlobList {
  readonly globs: readonly string[];
  // compiled on first use: an envelope has dozens of lists and one call consults few of them
  // (a cold `cxl tool` spent more compiling lists than deciding)
  #re: CompiledGlobList | null | undefined;
  private each: CompiledGlobList[] | null = null;

  constructor(globs: readonly string[]) {
    this.globs = globs;
  }

  private get re(): CompiledGlobList | null {
    if (this.#re === undefined) this.#re = this.globs.length ? compileGlobList(this.globs.map(normalizeForMatch)) : null;
    return this.#re;
  }

  test(normalized: string): boolean {
    const re = this.re;
    return re !== null && re.test(normalized);
  }

  /** The first glob matching one of the (normalised) paths, or undefined. */
  firstMatch(paths: readonly string[]): { glob: string; path: string } | undefined {
    const re = this.re;
    if (re === null) return undefined;
    for (const p of paths) {
      if (!re.test(p)) continue;
      // Only on a hit: find which glob it was, for the sentence.
      this.each ??= this.globs.map((g) => compileGlobList([normalizeForMatch(g)]));
      for (let k = 0; k < this.each.length; k++) if (this.each[k].test(p)) return { glob: this.globs[k], path: p };
    }
    return undefined;
  }
}
