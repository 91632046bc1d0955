// Glob lists of the envelope engine: one compiled RegExp per list (glob.ts semantics, shared
// with the quarantine and find_files), so a decision costs one regex test per list and path.
import { compileGlobs } from './glob.ts';

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
    this.re = globs.length ? compileGlobs(globs.map(normalizeForMatch)) : null;
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
      this.each ??= this.globs.map((g) => compileGlobs([normalizeForMatch(g)]));
      for (let k = 0; k < this.each.length; k++) if (this.each[k].test(p)) return { glob: this.globs[k], path: p };
    }
    return undefined;
  }
}
