// Glob lists of the envelope engine: one compiled RegExp per list (glob.ts semantics, shared
// with the quarantine and find_files), so a decision costs one regex test per list and path.
import { expandBraces, globSource } from './glob.ts';

const ANY_DIRS = '(?:.*/)?';

/**
 * One case-insensitive RegExp for a glob list, same meaning as glob.ts's compileGlobs. Globs
 * that start with `**\/` are matched as a suffix starting at a segment boundary
 * (`(?:^|/)X$`) rather than `^(?:.*\/)?X$`: the same set of paths, but without backtracking
 * over every `/` for every alternative, which is 20x faster on a miss for the quarantine list.
 */
export function compileGlobList(globs: readonly string[]): RegExp {
  const sources = globs.flatMap(expandBraces).map(globSource);
  const anchored = sources.filter((x) => !x.startsWith(ANY_DIRS));
  const suffix = sources.filter((x) => x.startsWith(ANY_DIRS)).map((x) => x.slice(ANY_DIRS.length));
  const parts: string[] = [];
  if (anchored.length) parts.push(`^(?:${anchored.join('|')})$`);
  if (suffix.length) parts.push(`(?:^|/)(?:${suffix.join('|')})$`);
  return parts.length ? new RegExp(parts.join('|'), 'i') : /(?!)/;
}

/** Normalises a path for matching: `/` separators, no `./` segments, no doubled or leading `/`. */
export function normalizeForMatch(p: string): string {
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
  private readonly re: RegExp | null;
  private each: RegExp[] | null = null;

  constructor(globs: readonly string[]) {
    this.globs = globs;
    this.re = globs.length ? compileGlobList(globs.map(normalizeForMatch)) : null;
  }

  get empty(): boolean {
    return this.re === null;
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
