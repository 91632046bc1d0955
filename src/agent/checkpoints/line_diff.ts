// A rewind's diffs in time linear in the files' size: jsdiff's createPatch is Myers over strings
// with no bound on the edits, so 10,000 changed lines took tens of seconds on the agent's event
// loop (and 500 changed lines half a second per file). Here each line is numbered once through a
// Map, the common head and tail are cut off, and Myers runs on the numbers with a cap on its
// edits (MAX_EDITS): past the cap the changed middle is shown as one hunk, removed then added,
// still a correct diff, only not the smallest. A count of the changed lines (for every file of a
// preview) needs no diff at all: the lines of one side not matched by the other, by multiplicity.

/** Edits Myers may spend on one file's changed middle; past it the middle is one replace hunk. */
export const MAX_EDITS = 400;

export interface LineCount {
  added: number;
  removed: number;
}

interface Lines {
  /** each line's number (equal lines, equal numbers) */
  ids: Int32Array;
  text: string[];
  /** the last line has no newline after it */
  noEol: boolean;
}

/** Splits both texts into numbered lines through one Map (a last line without a newline is its own line). */
function number(a: string, b: string): [Lines, Lines] {
  const ids = new Map<string, number>();
  const one = (s: string): Lines => {
    const text = s.split('\n');
    const noEol = text.length > 0 && text[text.length - 1] !== '';
    if (!noEol) text.pop();
    const out = new Int32Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const key = noEol && i === text.length - 1 ? `${text[i]}\u0000` : text[i];
      let id = ids.get(key);
      if (id === undefined) ids.set(key, (id = ids.size));
      out[i] = id;
    }
    return { ids: out, text, noEol };
  };
  return [one(a), one(b)];
}

/**
 * How many lines going from `a` to `b` removes and adds, at least (the lines of each side that
 * the other has fewer of): linear, and the exact count whenever the change does not move lines.
 */
export function countChanges(a: string, b: string): LineCount {
  const [x, y] = number(a, b);
  let top = -1;
  for (const id of x.ids) if (id > top) top = id;
  for (const id of y.ids) if (id > top) top = id;
  const n = new Int32Array(top + 1);
  for (const id of x.ids) n[id]++;
  for (const id of y.ids) n[id]--;
  let added = 0;
  let removed = 0;
  for (const k of n) {
    if (k > 0) removed += k;
    else added -= k;
  }
  return { added, removed };
}

/** The edits any script from a to b needs at least: the lines of each side the other has fewer of. */
function lowerBound(a: Int32Array, b: Int32Array): number {
  const n = new Map<number, number>();
  for (const id of a) n.set(id, (n.get(id) ?? 0) + 1);
  for (const id of b) n.set(id, (n.get(id) ?? 0) - 1);
  let d = 0;
  for (const k of n.values()) d += Math.abs(k);
  return d;
}

type Op = 0 | 1 | 2; // 0 the same, 1 removed, 2 added

/** Myers' shortest edit script of a → b, or undefined when it needs more than `maxD` edits. */
function myers(a: Int32Array, b: Int32Array, maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxD);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, off, n, m);
    }
  }
  return undefined;
}

function backtrack(trace: Int32Array[], off: number, n: number, m: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? k + 1 : k - 1;
    const prevX = v[off + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(0);
      x--;
      y--;
    }
    if (d > 0) ops.push(x === prevX ? 2 : 1);
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

export interface UnifiedDiff {
  /** the diff's lines, headers first; cut at `maxLines` with a line saying how many more */
  text: string;
  added: number;
  removed: number;
  /** the edits passed MAX_EDITS: the changed middle is one hunk, not the smallest diff */
  coarse: boolean;
}

/**
 * The unified diff (3 lines of context) from `a` to `b`, named `from` and `to` in its headers
 * (`/dev/null` for an absent side), in time linear in their size; at most `maxLines` lines of it.
 */
export function unifiedDiff(from: string, to: string, a: string, b: string, maxLines = Number.POSITIVE_INFINITY, context = 3): UnifiedDiff {
  const [x, y] = number(a, b);
  const n = x.ids.length;
  const m = y.ids.length;
  let head = 0;
  while (head < n && head < m && x.ids[head] === y.ids[head]) head++;
  let tail = 0;
  while (tail < n - head && tail < m - head && x.ids[n - 1 - tail] === y.ids[m - 1 - tail]) tail++;
  const midA = x.ids.subarray(head, n - tail);
  const midB = y.ids.subarray(head, m - tail);
  // the lines one side has more of than the other are edits of any script: a lower bound that,
  // past the cap, spares Myers the search it would give up on
  let mid = lowerBound(midA, midB) > MAX_EDITS ? undefined : myers(midA, midB, MAX_EDITS);
  const coarse = mid === undefined;
  mid ??= [...new Array<Op>(midA.length).fill(1), ...new Array<Op>(midB.length).fill(2)];
  const ops: Op[] = [...new Array<Op>(head).fill(0), ...mid, ...new Array<Op>(tail).fill(0)];
  // walk the script once: each op's line numbers on both sides
  const out: string[] = [`--- ${from}`, `+++ ${to}`];
  let added = 0;
  let removed = 0;
  let cut = 0;
  const push = (l: string) => {
    if (out.length < maxLines) out.push(l);
    else cut++;
  };
  const line = (side: Lines, i: number, mark: string) => {
    push(`${mark}${side.text[i]}`);
    if (side.noEol && i === side.text.length - 1) push('\\ No newline at end of file');
  };
  let i = 0;
  let ai = 0;
  let bi = 0;
  while (i < ops.length) {
    // the next change, and the hunk around it: changes closer than 2×context join one hunk
    while (i < ops.length && ops[i] === 0) {
      i++;
      ai++;
      bi++;
    }
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    const startA = ai - (i - start);
    const startB = bi - (i - start);
    let end = i;
    let same = 0;
    for (let j = i; j < ops.length; j++) {
      if (ops[j] === 0) {
        same++;
        if (same > 2 * context) break;
      } else {
        same = 0;
        end = j + 1;
      }
    }
    const stop = Math.min(ops.length, end + context);
    let lenA = 0;
    let lenB = 0;
    for (let j = start; j < stop; j++) {
      if (ops[j] !== 2) lenA++;
      if (ops[j] !== 1) lenB++;
    }
    push(`@@ -${lenA ? startA + 1 : startA},${lenA} +${lenB ? startB + 1 : startB},${lenB} @@`);
    let pa = startA;
    let pb = startB;
    for (let j = start; j < stop; j++) {
      if (ops[j] === 0) {
        line(x, pa++, ' ');
        pb++;
      } else if (ops[j] === 1) {
        line(x, pa++, '-');
        removed++;
      } else {
        line(y, pb++, '+');
        added++;
      }
    }
    i = stop;
    ai = pa;
    bi = pb;
  }
  if (cut) out.push(`… ${cut} more lines of this diff (+${added} −${removed} in all)`);
  return { text: out.length > 2 ? out.join('\n') : '', added, removed, coarse };
}
