// The diff of one change to a file: only a window around the change is diffed (its first line
// kept, so a client numbers lines as the file does), so a 50 MB file costs little. An approval
// shows it before the change (approval_diff.ts replays the change in memory); a change allowed
// unasked carries it on its result (CHANGE), so a person still sees what changed.
import { structuredPatch } from 'diff';
import type { ApprovalDiff } from '../contract/toolset.ts';
import { sameBytes, type MutationPlan } from './mutate.ts';
import { countNewlines, decode } from './text.ts';

/** Lines of context around each change. */
export const DIFF_CONTEXT = 3;
/** Each side of the diffed window is cut to this many lines. */
export const DIFF_MAX_FILE_LINES = 500;
/** At most this many hunk lines are shown, then `... (diff truncated)`. */
export const DIFF_MAX_LINES = 120;

/** The change a write_file, edit_file or sed made, on its result (not enumerable by JSON: the model never reads it). */
export const CHANGE = Symbol('local_fs.change');

/** `result` with the change it made attached under CHANGE. */
export function withChange<T extends object>(result: T, change: ApprovalDiff): T {
  Object.defineProperty(result, CHANGE, { value: change, enumerable: false });
  return result;
}

/** The change a result carries, if any. */
export function changeOf(result: unknown): ApprovalDiff | undefined {
  return typeof result === 'object' && result !== null ? ((result as Record<symbol, unknown>)[CHANGE] as ApprovalDiff | undefined) : undefined;
}

/** Start of the line `k` lines before the line holding `pos`. */
function backLines(b: Buffer, pos: number, k: number): number {
  let s = pos === 0 ? 0 : b.lastIndexOf(10, pos - 1) + 1;
  for (let i = 0; i < k && s > 0; i++) s = s < 2 ? 0 : b.lastIndexOf(10, s - 2) + 1;
  return s;
}

/** End (after the newline) of the line `k` lines after the line holding `pos`. */
function forwardLines(b: Buffer, pos: number, k: number): number {
  let e = pos;
  for (let i = 0; i <= k && e < b.length; i++) {
    const nl = b.indexOf(10, e);
    e = nl === -1 ? b.length : nl + 1;
  }
  return e;
}

/** Bytes [from, to) of the concatenation of `parts`, copying only that range. */
function sliceParts(parts: readonly Buffer[], from: number, to: number): Buffer {
  const out: Buffer[] = [];
  let off = 0;
  for (const p of parts) {
    const s = Math.max(from - off, 0);
    const e = Math.min(to - off, p.length);
    if (e > s) out.push(p.subarray(s, e));
    off += p.length;
    if (off >= to) break;
  }
  return Buffer.concat(out);
}

/** First `max` lines of `s`, and whether it was cut. */
function firstLines(s: string, max: number): { text: string; cut: boolean } {
  let idx = -1;
  for (let i = 0; i < max; i++) {
    idx = s.indexOf('\n', idx + 1);
    if (idx === -1) return { text: s, cut: false };
  }
  return idx + 1 >= s.length ? { text: s, cut: false } : { text: s.slice(0, idx + 1), cut: true };
}

/** Unified diff of `old` (null: new file) against the plan, windowed around the change. */
export function renderApprovalDiff(rel: string, old: Buffer | null, plan: MutationPlan): ApprovalDiff {
  if (old === null) {
    const { text, cut } = firstLines(decode(plan.bytes), DIFF_MAX_FILE_LINES);
    const lines = text.length === 0 ? [] : text.replace(/\n$/, '').split('\n');
    const out = [`--- /dev/null`, `+++ b/${rel}`, `@@ -0,0 +1,${lines.length} @@`];
    const body = lines.map((l) => `+${l}`);
    let truncated = cut;
    if (body.length > DIFF_MAX_LINES) {
      body.length = DIFF_MAX_LINES;
      truncated = true;
    }
    out.push(...body);
    if (truncated) out.push('... (diff truncated)');
    return { path: rel, isNew: true, diff: lines.length === 0 ? '(new empty file)' : out.join('\n'), oldText: '', newText: text, startLine: 1, ...(cut ? { cut: true } : {}) };
  }
  if (plan.replacements === 0 && sameBytes(old, plan.parts)) return { path: rel, isNew: false, diff: '(no changes)' };
  // only the window around the change is touched: old and new share everything before
  // changeStart (the head: the changed line's start and DIFF_CONTEXT lines before it; the only
  // newlines counted are those before it), and the new content after newChangeEnd is the old
  // after oldChangeEnd (the tail, the same bytes on both sides)
  const ws = backLines(old, plan.changeStart, DIFF_CONTEXT);
  const startLine = countNewlines(old.subarray(0, ws)) + 1;
  const head = old.subarray(ws, plan.changeStart);
  const middle = sliceParts(plan.parts, plan.changeStart, plan.newChangeEnd);
  const rest = old.subarray(plan.oldChangeEnd);
  // the tail finishes the line the change ends in (on either side: `abc\n` → `abc` ends
  // mid-line in the new text only), then gives DIFF_CONTEXT lines
  const tailFor = (last: number | undefined) => forwardLines(rest, 0, last === undefined || last === 10 ? DIFF_CONTEXT - 1 : DIFF_CONTEXT);
  const oldLast = plan.oldChangeEnd > 0 ? old[plan.oldChangeEnd - 1] : undefined;
  const newLast = middle.length > 0 ? middle[middle.length - 1] : plan.changeStart > 0 ? old[plan.changeStart - 1] : undefined;
  const tail = rest.subarray(0, Math.max(tailFor(oldLast), tailFor(newLast)));
  const a = firstLines(decode(old.subarray(ws, plan.oldChangeEnd + tail.length)), DIFF_MAX_FILE_LINES);
  const b = firstLines(decode(Buffer.concat([head, middle, tail])), DIFF_MAX_FILE_LINES);
  const patch = structuredPatch(`a/${rel}`, `b/${rel}`, a.text, b.text, undefined, undefined, { context: DIFF_CONTEXT });
  const out = [`--- a/${rel}`, `+++ b/${rel}`];
  let shown = 0;
  let truncated = a.cut || b.cut;
  outer: for (const h of patch.hunks) {
    if (shown >= DIFF_MAX_LINES) {
      truncated = true;
      break;
    }
    out.push(`@@ -${h.oldStart + startLine - 1},${h.oldLines} +${h.newStart + startLine - 1},${h.newLines} @@`);
    for (const l of h.lines) {
      if (shown >= DIFF_MAX_LINES) {
        truncated = true;
        break outer;
      }
      out.push(l);
      shown++;
    }
  }
  if (truncated) out.push('... (diff truncated)');
  return { path: rel, isNew: false, diff: out.join('\n'), oldText: a.text, newText: b.text, startLine, ...(a.cut || b.cut ? { cut: true } : {}) };
}
