// Glob lists of the envelope engine: one compiled RegExp per list (glob.ts semantics, shared
// with the quarantine and find_files), so a decision costs one regex test per list and path.
import { expandBraces, globSource } from './glob.ts';

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

export function compileGlobList(globs: readonly string[]): CompiledGlobList {
  const sources = globs.flatMap(expandBraces).map(globSource);
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
  return {
    test(p: string): boolean {
      if (b !== null && b.test(p.slice(p.lastIndexOf('/') + 1))) return true;
      if (s !== null && s.test(p)) return true;
      return a !== null && a.test(p);
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
  private readonly re: CompiledGlobList | null;
  private each: CompiledGlobList[] | null = null;

  constructor(globs: readonly string[]) {
    this.globs = globs;
    this.re = globs.length ? compileGlobList(globs.map(normalizeForMatch)) : null;
  }

  test(normalized: string): boolean {
    return this.re !== null && this.re.test(normalized);
  }

  /** The first glob matching one of the (normalised) paths, or undefined. */
  firstMatch(paths: readonly string[]): { glob: string; path: string } | undefined {
    if (this.re === null) return undefined;
    for (const p of paths) {
      if (!this.re.test(p)) continue;
      // Only on a hit: find which glob it was, for the sentence.
      this.each ??= this.globs.map((g) => compileGlobList([normalizeForMatch(g)]));
      for (let k = 0; k < this.each.length; k++) if (this.each[k].test(p)) return { glob: this.globs[k], path: p };
    }
    return undefined;
  }
}
