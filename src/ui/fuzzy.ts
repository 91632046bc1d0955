// Fuzzy matching of workspace paths for @-mentions: the query's characters in order anywhere in
// the path, ranked so what a person means comes first (a match in the file name over one spread
// across directories, a run of characters over scattered ones, word starts, shorter paths).
// Built for a keystroke over tens of thousands of paths: lowercased paths are computed once per
// list, and a query that extends the previous one only looks at the previous candidates.

export interface FuzzyMatch {
  path: string;
  score: number;
  /** Indexes into `path` of the matched characters (for highlighting). */
  positions: number[];
}

const lowered = new WeakMap<readonly string[], string[]>();

function lowerOf(paths: readonly string[]): string[] {
  let l = lowered.get(paths);
  if (!l) {
    l = paths.map((p) => p.toLowerCase());
    lowered.set(paths, l);
  }
  return l;
}

/** Whether `q` is a subsequence of `s` (both lowercased), without allocating. */
function isSubsequence(s: string, q: string): boolean {
  let at = -1;
  for (let i = 0; i < q.length; i++) {
    at = s.indexOf(q[i], at + 1);
    if (at === -1) return false;
  }
  return true;
}

const BOUNDARY = new Set(['/', '_', '-', '.', ' ']);

/** Greedy positions of `q` in `s` from `start`, preferring word starts; null when it does not fit. */
function positionsIn(s: string, q: string, start: number): number[] | null {
  const pos: number[] = [];
  let at = start;
  for (let i = 0; i < q.length; i++) {
    const c = q[i];
    let hit = s.indexOf(c, at);
    if (hit === -1) return null;
    // a later occurrence at a word start reads better (`ut` in `src/ui/text` → the `t` of text)
    if (i > 0 && hit !== pos[i - 1] + 1) {
      for (let k = hit; k !== -1; k = s.indexOf(c, k + 1)) {
        if (BOUNDARY.has(s[k - 1])) {
          hit = k;
          break;
        }
      }
    }
    pos.push(hit);
    at = hit + 1;
  }
  return pos;
}

function scoreOf(path: string, low: string, q: string): FuzzyMatch | null {
  const base = low.lastIndexOf('/') + 1;
  let positions: number[] | null = null;
  let score = 0;
  const inName = low.indexOf(q, base);
  const run = inName !== -1 ? inName : low.indexOf(q);
  if (run !== -1) {
    // a contiguous run is the strongest signal, best inside the file name and at its start
    positions = Array.from({ length: q.length }, (_, i) => run + i);
    score += 50;
    if (run >= base) score += run === base ? 70 : 30;
    if (run === 0 || BOUNDARY.has(low[run - 1])) score += 10;
  } else {
    if (!q.includes('/')) {
      positions = positionsIn(low, q, base);
      if (positions) score += 40;
    }
    positions ??= positionsIn(low, q, 0);
    if (!positions) return null;
  }
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i];
    if (p === 0 || BOUNDARY.has(low[p - 1])) score += 6;
    if (i > 0 && p === positions[i - 1] + 1) score += 4;
    else if (i > 0) score -= Math.min(6, p - positions[i - 1]) * 0.5;
  }
  score -= path.length * 0.15;
  return { path, score, positions };
}

interface Memo {
  paths: readonly string[];
  query: string;
  /** indexes of the paths that contain the query as a subsequence */
  candidates: number[];
}

let memo: Memo | undefined;

/** Indexes of the paths matching `q` as a subsequence, narrowing the last answer when it can. */
function candidatesFor(paths: readonly string[], q: string): number[] {
  const low = lowerOf(paths);
  const from = memo && memo.paths === paths && q.startsWith(memo.query) ? memo.candidates : undefined;
  const out: number[] = [];
  if (from) {
    for (const i of from) if (isSubsequence(low[i], q)) out.push(i);
  } else {
    for (let i = 0; i < low.length; i++) if (isSubsequence(low[i], q)) out.push(i);
  }
  memo = { paths, query: q, candidates: out };
  return out;
}

/**
 * The best `limit` matches of `query` (case-insensitive) in `paths`, best first, and how many
 * matched in all. An empty query lists the first paths, shallowest first.
 */
export function fuzzyFilter(paths: readonly string[], query: string, limit: number): { matches: FuzzyMatch[]; total: number } {
  const q = query.toLowerCase();
  if (q === '') {
    const depth = (p: string) => p.split('/').length;
    const first = paths.slice(0, Math.min(paths.length, 2000)).sort((a, b) => depth(a) - depth(b) || a.localeCompare(b));
    return { matches: first.slice(0, limit).map((path) => ({ path, score: 0, positions: [] })), total: paths.length };
  }
  const low = lowerOf(paths);
  const idx = candidatesFor(paths, q);
  const scored: FuzzyMatch[] = [];
  for (const i of idx) {
    const m = scoreOf(paths[i], low[i], q);
    if (m) scored.push(m);
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return { matches: scored.slice(0, limit), total: scored.length };
}
