// Fuzzy matching of workspace paths for @-mentions: the query's characters in order anywhere in
// the path, ranked so what a person means comes first (a match in the file name over one spread
// across directories, a run of characters over scattered ones, word starts, shorter paths).
// Built for a keystroke over tens of thousands of paths: lowercased paths are computed once per
// list, a query that extends an earlier one only looks at that one's candidates, and the last
// answers are kept (Backspace).

export interface FuzzyMatch {
  path: string;
  score: number;
  /** Indexes into `path` of the matched characters (for highlighting). */
  positions: number[];
}

interface Prepared {
  low: string[];
  /** where each path's file name starts */
  base: Int32Array;
}

const prepared = new WeakMap<readonly string[], Prepared>();

/** Lowercase a new list ahead of the first keystroke that needs it (the screen calls it when a listing arrives). */
export function prepareFuzzy(paths: readonly string[]): void {
  prepare(paths);
}

function prepare(paths: readonly string[]): Prepared {
  let p = prepared.get(paths);
  if (!p) {
    const low = paths.map((x) => x.toLowerCase());
    const base = new Int32Array(low.length);
    for (let i = 0; i < low.length; i++) base[i] = low[i].lastIndexOf('/') + 1;
    p = { low, base };
    prepared.set(paths, p);
  }
  return p;
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

const isBoundary = (s: string, i: number) => {
  if (i === 0) return true;
  const c = s.charCodeAt(i - 1);
  return c === 47 /* / */ || c === 95 /* _ */ || c === 45 /* - */ || c === 46 /* . */ || c === 32;
};

/**
 * Greedy positions of `q` in `s` from `start`, preferring a later occurrence at a word start
 * (`ut` in `src/ui/text` → the `t` of text); written into `out`, false when it does not fit.
 */
function placeIn(s: string, q: string, start: number, out: number[] | null): number {
  let at = start;
  let prev = -2;
  let bonus = 0;
  for (let i = 0; i < q.length; i++) {
    const c = q[i];
    let hit = s.indexOf(c, at);
    if (hit === -1) return NaN;
    if (i > 0 && hit !== prev + 1) {
      for (let k = hit; k !== -1; k = s.indexOf(c, k + 1)) {
        if (isBoundary(s, k)) {
          hit = k;
          break;
        }
      }
    }
    if (isBoundary(s, hit)) bonus += 6;
    if (i > 0 && hit === prev + 1) bonus += 4;
    else if (i > 0) bonus -= Math.min(6, hit - prev) * 0.5;
    if (out) out.push(hit);
    prev = hit;
    at = hit + 1;
  }
  return bonus;
}

/** The score of one path (higher is better), NaN when `q` does not match; `out` gets the positions. */
function scoreOf(low: string, base: number, q: string, out: number[] | null): number {
  let score = 0;
  const inName = low.indexOf(q, base);
  const run = inName !== -1 ? inName : low.indexOf(q);
  if (run !== -1) {
    // a contiguous run is the strongest signal, best inside the file name and at its start
    score += 50;
    if (run >= base) score += run === base ? 70 : 30;
    if (isBoundary(low, run)) {
      score += 16;
      // a whole directory name (`ui` in `src/ui/…`)
      if (low.charCodeAt(run + q.length) === 47) score += 35;
    }
    score += (q.length - 1) * 4;
    if (out) for (let i = 0; i < q.length; i++) out.push(run + i);
  } else {
    let b = q.includes('/') ? NaN : placeIn(low, q, base, null);
    if (!Number.isNaN(b)) {
      score += 40 + b;
      if (out) placeIn(low, q, base, out);
    } else {
      b = placeIn(low, q, 0, out);
      if (Number.isNaN(b)) return NaN;
      score += b;
    }
  }
  return score - low.length * 0.15;
}

// The last queries' candidates and answers for one path list: typing narrows from the longest
// earlier prefix, and a Backspace finds its answer already made.
const KEEP = 32;
let memo: { paths: readonly string[]; candidates: Map<string, number[]>; answers: Map<string, { limit: number; result: { matches: FuzzyMatch[]; total: number } }> } | undefined;

function memoFor(paths: readonly string[]) {
  if (!memo || memo.paths !== paths) memo = { paths, candidates: new Map(), answers: new Map() };
  return memo;
}

function remember<V>(m: Map<string, V>, k: string, v: V): void {
  m.delete(k);
  m.set(k, v);
  if (m.size > KEEP) m.delete(m.keys().next().value as string);
}

/** Indexes of the paths matching `q` as a subsequence, narrowing an earlier answer when it can. */
function candidatesFor(paths: readonly string[], low: string[], q: string): number[] {
  const m = memoFor(paths);
  const hit = m.candidates.get(q);
  if (hit) return hit;
  let from: number[] | undefined;
  for (let n = q.length - 1; n > 0 && !from; n--) from = m.candidates.get(q.slice(0, n));
  const out: number[] = [];
  if (from) {
    for (const i of from) if (isSubsequence(low[i], q)) out.push(i);
  } else {
    for (let i = 0; i < low.length; i++) if (isSubsequence(low[i], q)) out.push(i);
  }
  remember(m.candidates, q, out);
  return out;
}

/**
 * The best `limit` matches of `query` (case-insensitive) in `paths`, best first, and how many
 * matched in all. An empty query lists the first paths, shallowest first. Every candidate is
 * scored without allocating; positions are worked out for the ones returned only.
 */
export function fuzzyFilter(paths: readonly string[], query: string, limit: number): { matches: FuzzyMatch[]; total: number } {
  const q = query.toLowerCase();
  if (q === '') {
    const depth = (p: string) => p.split('/').length;
    const first = paths.slice(0, Math.min(paths.length, 2000)).sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
    return { matches: first.slice(0, limit).map((path) => ({ path, score: 0, positions: [] })), total: paths.length };
  }
  const known = memoFor(paths).answers.get(q);
  if (known && known.limit === limit) return known.result;
  const { low, base } = prepare(paths);
  const idx = candidatesFor(paths, low, q);
  // the best `limit`, kept sorted (best first) as the candidates stream by
  const topI: number[] = [];
  const topS: number[] = [];
  let total = 0;
  const better = (i: number, sc: number, j: number) => sc > topS[j] || (sc === topS[j] && (paths[i].length < paths[topI[j]].length || (paths[i].length === paths[topI[j]].length && paths[i] < paths[topI[j]])));
  for (const i of idx) {
    const sc = scoreOf(low[i], base[i], q, null);
    if (Number.isNaN(sc)) continue;
    total++;
    if (topI.length === limit && !better(i, sc, limit - 1)) continue;
    let at = topI.length;
    while (at > 0 && better(i, sc, at - 1)) at--;
    topI.splice(at, 0, i);
    topS.splice(at, 0, sc);
    if (topI.length > limit) {
      topI.pop();
      topS.pop();
    }
  }
  const matches = topI.map((i, k) => {
    const positions: number[] = [];
    scoreOf(low[i], base[i], q, positions);
    return { path: paths[i], score: topS[k], positions };
  });
  const result = { matches, total };
  remember(memoFor(paths).answers, q, { limit, result });
  return result;
}
