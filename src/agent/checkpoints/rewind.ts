// Going back to before a prompt: for every file that prompt or a later one changed, the version
// it had before the first of them (or its absence), with the diff from what is there now. A file
// someone else changed since the session last did (an editor, a `!` line, another program) is
// listed as such and kept unless the person names it; a file whose old content was not kept is
// listed as lost. Restoring goes through the same confinement as the file tools: a path that now
// leads out of the workspace (a directory swapped for a link), into the credential quarantine or
// into git's own files is refused, whatever the checkpoint says.
import fs from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { confine } from '../../core/paths.ts';
import { replaceFileSync } from '../../core/platform/atomic_file.ts';
import { gitWallFact } from '../../core/protect/git_dirs.ts';
import { classifyPath } from '../../core/protect/matcher.ts';
import type { PromptCheckpoint, SessionCheckpoints } from './recorder.ts';
import { sameStamp, stampAt, type Stamp } from './workspace_state.ts';

/** A diff is shown for text up to this size; a bigger or binary file is summarised. */
const DIFF_MAX_BYTES = 256 * 1024;

export type RestoreWhat = 'files' | 'conversation' | 'both';

export interface RewindFile {
  /** root-relative */
  path: string;
  /** restore: put the old content back; delete: the prompt created it; recreate: it was deleted */
  action: 'restore' | 'delete' | 'recreate';
  /** the change as a unified diff (from now to after the rewind), or a summary for binary and big files */
  diff: string;
  /** someone else changed it since the session did: kept unless the person names it */
  changedSince?: string;
  /** it cannot be restored: why */
  cannot?: string;
}

export interface RewindPlan {
  /** the prompt to go back to before */
  n: number;
  restore: RestoreWhat;
  files: RewindFile[];
  /** the conversation part: how many prompts it drops; `cannot` when a compaction rewrote what came before */
  conversation?: { prompts: number; cannot?: string };
}

export interface RewindResult {
  restored: string[];
  skipped: Array<{ path: string; why: string }>;
}

/** For each path the prompts from `n` on touched: its first record (what to restore) and the last stamp the session left. */
function targets(prompts: readonly PromptCheckpoint[], n: number): Map<string, { before: string | null; mode?: number; lost?: string; expected: Stamp | null }> {
  const out = new Map<string, { before: string | null; mode?: number; lost?: string; expected: Stamp | null }>();
  for (const cp of prompts) {
    if (cp.n < n) continue;
    for (const [rel, ch] of Object.entries(cp.files)) {
      const t = out.get(rel);
      if (t) t.expected = ch.after;
      else out.set(rel, { before: ch.before, ...(ch.mode !== undefined ? { mode: ch.mode } : {}), ...(ch.lost ? { lost: ch.lost } : {}), expected: ch.after });
    }
  }
  return out;
}

function isBinary(b: Buffer): boolean {
  return b.subarray(0, 8192).includes(0);
}

function readNow(abs: string): Buffer | undefined {
  try {
    const st = fs.lstatSync(abs);
    return st.isFile() ? fs.readFileSync(abs) : undefined;
  } catch {
    return undefined;
  }
}

/** The diff from `now` to `then` for `rel`, or a line saying what changes when it cannot be shown as text. */
export function rewindDiff(rel: string, now: Buffer | undefined, then: Buffer | undefined): string {
  const a = now ?? Buffer.alloc(0);
  const b = then ?? Buffer.alloc(0);
  if (a.length > DIFF_MAX_BYTES || b.length > DIFF_MAX_BYTES || isBinary(a) || isBinary(b)) {
    const what = now === undefined ? 'created' : then === undefined ? 'deleted' : 'replaced';
    return `${rel}: ${what} (${now === undefined ? 'absent' : `${a.length} bytes`} → ${then === undefined ? 'absent' : `${b.length} bytes`}; binary or too big to show)`;
  }
  return createTwoFilesPatch(now === undefined ? '/dev/null' : `a/${rel}`, then === undefined ? '/dev/null' : `b/${rel}`, a.toString('utf8'), b.toString('utf8'), '', '', { context: 3 })
    .split('\n')
    .filter((l) => !/^(?:Index:|={3,})/.test(l))
    .join('\n')
    .trimEnd();
}

/** Why a path may not be written back now, or undefined (with its real path) when it may. */
function refusal(root: string, rel: string): { why: string } | { real: string } {
  let real: string;
  try {
    real = confine(root, rel).real;
  } catch (err) {
    return { why: (err as Error).message };
  }
  const cls = classifyPath(real, path.join(root, rel));
  if (cls) return { why: `it is ${cls === 'quarantined' ? 'in the credential quarantine' : 'on the read-approve list'} now` };
  const wall = gitWallFact(real, root);
  if (wall) return { why: wall.why };
  return { real };
}

/** What going back to before prompt `n` would do, without doing it. */
export function planRewind(cp: SessionCheckpoints, n: number, restore: RestoreWhat): RewindPlan {
  const prompts = cp.prompts();
  const at = prompts.find((p) => p.n === n);
  if (!at) throw new Error(`there is no prompt ${n} to go back to (prompts: ${prompts.map((p) => p.n).join(', ') || 'none'})`);
  const plan: RewindPlan = { n, restore, files: [] };
  if (restore !== 'files') {
    const dropped = prompts.filter((p) => p.n >= n).length;
    plan.conversation = at.history === null ? { prompts: dropped, cannot: 'the conversation was compacted since that prompt, so it cannot go back to before it (its files still can)' } : { prompts: dropped };
  }
  if (restore === 'conversation') return plan;
  for (const [rel, t] of targets(prompts, n)) {
    const abs = path.join(cp.root, rel);
    const now = stampAt(abs);
    const exists = now !== null || fs.existsSync(abs);
    if (t.before === null && !t.lost && !exists) continue; // created, and already gone
    const action: RewindFile['action'] = t.before === null && !t.lost ? 'delete' : exists ? 'restore' : 'recreate';
    const file: RewindFile = { path: rel, action, diff: '' };
    if (t.lost) {
      file.cannot = `its content before was not kept (${t.lost})`;
      plan.files.push(file);
      continue;
    }
    const then = t.before === null ? undefined : cp.store.get(t.before);
    if (t.before !== null && then === undefined) {
      file.cannot = 'its kept content is gone from the checkpoint store';
      plan.files.push(file);
      continue;
    }
    const current = readNow(abs);
    if (then !== undefined && current !== undefined && then.equals(current)) continue; // already as it was
    if (!sameStamp(now, t.expected)) {
      file.changedSince = now === null ? 'it was deleted since the session last changed it' : t.expected === null ? 'it was created again since the session deleted it' : 'it was changed since the session last changed it';
    }
    const refused = refusal(cp.root, rel);
    if ('why' in refused) file.cannot = refused.why;
    file.diff = rewindDiff(rel, current, then);
    plan.files.push(file);
  }
  return plan;
}

/**
 * Puts the files of `plan` back: each one safe to write (and, when changed by someone else since,
 * named in `overwrite`) is restored, deleted or created again; the rest are listed with why.
 */
export function applyFiles(cp: SessionCheckpoints, plan: RewindPlan, overwrite: ReadonlySet<string>): RewindResult {
  const out: RewindResult = { restored: [], skipped: [] };
  const t = targets(cp.prompts(), plan.n);
  for (const f of plan.files) {
    if (f.cannot) {
      out.skipped.push({ path: f.path, why: f.cannot });
      continue;
    }
    if (f.changedSince && !overwrite.has(f.path)) {
      out.skipped.push({ path: f.path, why: `${f.changedSince}: kept as it is (it was not among the files to overwrite)` });
      continue;
    }
    const target = t.get(f.path);
    const ok = refusal(cp.root, f.path);
    if (!target || 'why' in ok) {
      out.skipped.push({ path: f.path, why: target ? (ok as { why: string }).why : 'no record of it' });
      continue;
    }
    try {
      if (target.before === null) {
        const st = fs.lstatSync(ok.real, { throwIfNoEntry: false });
        if (st?.isFile() || st?.isSymbolicLink()) fs.unlinkSync(ok.real);
      } else {
        const data = cp.store.get(target.before);
        if (!data) throw new Error('its kept content is gone');
        fs.mkdirSync(path.dirname(ok.real), { recursive: true });
        // the directories made may have moved the path: confined again before the write
        const again = refusal(cp.root, f.path);
        if ('why' in again) throw new Error(again.why);
        replaceFileSync(again.real, data, target.mode !== undefined ? { mode: target.mode } : {});
      }
      out.restored.push(f.path);
    } catch (err) {
      out.skipped.push({ path: f.path, why: (err as Error).message });
    }
  }
  return out;
}
