// Going back to before a prompt: for every file that prompt or a later one changed, the version
// it had before the first of them (or its absence), with the diff from what is there now. A file
// someone else changed since the session last did (an editor, a `!` line, another program) is
// listed as such and kept unless the person names it; a file whose old content was not kept is
// listed as lost. A restore is a write (docs/tui.md, "Going back"): each path is resolved when it
// is restored, through the same gate as the file tools' writes (confinement, the credential
// quarantine with a hard link counted as the file it links to, the read-approve list), put back
// only where it was (never through a directory or a name that is a link now), decided by the
// session's envelope as write_file would be (its floor: the write wall, git's own files and a git
// dir by shape; its deny_paths and files.write), and written, or removed, by the workspace file IO
// that writes for the tools (the directory checked to be itself at the rename, O_NOFOLLOW, the
// content compared under the path's lock). What it may not restore is listed with why.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { decide, type CallFacts, type CompiledEnvelope } from '../../core/envelope/index.ts';
import { ToolError } from '../../core/errors.ts';
import { gatePath } from '../../core/local_fs/context.ts';
import { WorkspaceFileIO, type FileSnapshot } from '../../core/local_fs/file_io.ts';
import { LOCAL_FS } from '../../core/local_fs/plan.ts';
import { DEFAULT_FS_POLICY } from '../../core/local_fs/policy.ts';
import { isWithin, type ConfinedPath } from '../../core/paths.ts';
import { gitWriteFact, hooksDirs, type HooksDir } from '../../core/protect/git_dirs.ts';
import { identitiesChanged, type IdentityIndex } from '../../core/protect/identity.ts';
import { defaultPathMatcher } from '../../core/protect/matcher.ts';
import { countChanges, unifiedDiff } from './line_diff.ts';
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
  /** the lines going back adds and removes (absent for a binary or big file, or one not read) */
  added?: number;
  removed?: number;
  /**
   * Its path is in the always-ask tier (a hook, a file on PATH): the sentence, and the mode it
   * gets back. It asks in every envelope, so it is restored only because the person said yes to
   * this plan, which shows it.
   */
  alwaysAsk?: string;
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

/** What a restore is checked against: the session's envelope now, and the identities of protected files (default: the shared index). */
export interface RestoreChecks {
  envelope: CompiledEnvelope;
  identity?: IdentityIndex;
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

/**
 * The diff from `now` to `then` for `rel` (at most `maxLines` lines of it; 0: only its counts),
 * or a line saying what changes when it cannot be shown as text. Linear in the files' size
 * (line_diff.ts).
 */
export function rewindDiff(rel: string, now: Buffer | undefined, then: Buffer | undefined, maxLines = Number.POSITIVE_INFINITY): { diff: string; added?: number; removed?: number } {
  const a = now ?? Buffer.alloc(0);
  const b = then ?? Buffer.alloc(0);
  if (a.length > DIFF_MAX_BYTES || b.length > DIFF_MAX_BYTES || isBinary(a) || isBinary(b)) {
    const what = now === undefined ? 'created' : then === undefined ? 'deleted' : 'replaced';
    return { diff: `${rel}: ${what} (${now === undefined ? 'absent' : `${a.length} bytes`} → ${then === undefined ? 'absent' : `${b.length} bytes`}; binary or too big to show)` };
  }
  if (maxLines <= 0) {
    const c = countChanges(a.toString('utf8'), b.toString('utf8'));
    return { diff: `${rel}: +${c.added} −${c.removed} lines (the preview shows the diffs of the first files only)`, ...c };
  }
  const d = unifiedDiff(now === undefined ? '/dev/null' : `a/${rel}`, then === undefined ? '/dev/null' : `b/${rel}`, a.toString('utf8'), b.toString('utf8'), maxLines);
  return { diff: d.text, added: d.added, removed: d.removed };
}

/** Files restored at once (distinct paths: their writes never meet). */
const RESTORE_AT_ONCE = 8;

/** Lines of diff one preview carries in all, and of one file: a screen's worth, and more than one. */
const PREVIEW_DIFF_LINES = 1200;
const FILE_DIFF_LINES = 400;

/** Lets the agent's other sessions in between files: a rewind of many files never holds the loop for long. */
async function breathe(since: { at: number }): Promise<void> {
  if (performance.now() - since.at < 8) return;
  await new Promise<void>((r) => setImmediate(r));
  since.at = performance.now();
}

/** Where a record's key is on disk: root-relative, or absolute (a file in an additional directory). */
function onDisk(root: string, rel: string): string {
  return path.isAbsolute(rel) ? rel : path.join(root, rel);
}

/**
 * The first name along `rel` (under `root`, or for an absolute key under the additional directory
 * holding it) that is a symbolic link now, and where it points.
 */
function linkAlong(root: string, rel: string, extra: readonly string[]): { at: string; to: string } | undefined {
  if (path.isAbsolute(rel)) {
    const r = extra.find((d) => isWithin(d, rel));
    if (r === undefined) return undefined;
    // the additional directory itself may be the link (swapped for one since the session began)
    const self = fs.lstatSync(r, { throwIfNoEntry: false });
    if (self?.isSymbolicLink()) return { at: r, to: readLink(r) };
    const found = linkAlong(r, path.relative(r, rel).split(path.sep).join('/'), []);
    return found && { at: path.join(r, found.at), to: found.to };
  }
  const parts = rel.split('/');
  for (let k = 1; k <= parts.length; k++) {
    const at = parts.slice(0, k).join('/');
    const st = fs.lstatSync(path.join(root, at), { throwIfNoEntry: false });
    if (!st) return undefined;
    if (st.isSymbolicLink()) return { at, to: readLink(path.join(root, at)) };
  }
  return undefined;
}

/** Where the link `p` points ('?' when it went meanwhile: the link is named all the same). */
function readLink(p: string): string {
  try {
    return fs.readlinkSync(p);
  } catch {
    return '?';
  }
}

/** Why the gate refused `rel`, in a restore's words. */
function gateRefusal(err: unknown): string {
  if (err instanceof ToolError && err.code === 'approval_required') return 'it is on the read-approve list (.env, *.pem, *.key), which a restore does not write: put it back by hand';
  return err instanceof Error ? err.message : String(err);
}

/**
 * Where `rel` may be written back now, or why not: the file tools' gate (confinement, the
 * quarantine and hard links to it, the read-approve list), the path as it was (no link along it
 * now), and the envelope's decision on a write_file of it (deny refuses; an always-ask path is
 * said, and the person's yes to the plan answers it).
 */
async function restoreTarget(root: string, extra: readonly string[], rel: string, checks: RestoreChecks, hooks: readonly HooksDir[]): Promise<{ why: string } | { file: ConfinedPath; alwaysAsk?: string }> {
  let file: ConfinedPath;
  try {
    // an absolute key (a file in an additional directory) is confined to the session's additional
    // directories as they are now: one the session no longer has refuses it as outside
    file = await gatePath({ root, ...(extra.length ? { extra } : {}), policy: DEFAULT_FS_POLICY, matcher: defaultPathMatcher, approvals: 'refuse', ...(checks.identity ? { identity: checks.identity } : {}) }, 'write_file', rel);
  } catch (err) {
    const link = linkAlong(root, rel, extra);
    return { why: `${gateRefusal(err)}${link ? ` (\`${link.at}\` is a symbolic link now, to \`${link.to}\`)` : ''}` };
  }
  if (file.rel !== file.requestedRel) {
    const link = linkAlong(root, rel, extra);
    return { why: `${link ? `\`${link.at}\` is a symbolic link now (to \`${link.to}\`)` : 'a name along it is a link now'}: restoring ${rel} would write ${file.rel} instead, and a restore puts a file back only where it was` };
  }
  const facts: CallFacts = { toolset: LOCAL_FS, tool: 'write_file', axis: 'files.write', paths: [file.requestedRel], resolved: [file.rel], absolute: [file.lexical, file.real] };
  const fact = gitWriteFact(file.real, root, undefined, hooks);
  if (fact) facts.protected = [fact];
  const d = decide(checks.envelope, facts);
  if (d.action === 'deny') return { why: `the session's envelope refuses writing it: ${d.sentence}` };
  return d.rule === 'always_ask' ? { file, alwaysAsk: d.sentence } : { file };
}

/** The file now, read as the file tools read it (no link followed, the inode checked); undefined when there is none. */
async function readNow(io: WorkspaceFileIO, file: ConfinedPath, hashing: boolean): Promise<FileSnapshot | undefined> {
  if (!file.exists) return undefined;
  return io.read(file, { maxBytes: Number.MAX_SAFE_INTEGER, hashing });
}

const octal = (m: number) => `0${m.toString(8).padStart(3, '0')}`;

/** What going back to before prompt `n` would do, without doing it. */
export async function planRewind(cp: SessionCheckpoints, n: number, restore: RestoreWhat, checks: RestoreChecks, o: { diffs?: boolean } = {}): Promise<RewindPlan> {
  const prompts = cp.prompts();
  const at = prompts.find((p) => p.n === n);
  if (!at) throw new Error(`there is no prompt ${n} to go back to (prompts: ${prompts.map((p) => p.n).join(', ') || 'none'})`);
  const plan: RewindPlan = { n, restore, files: [] };
  if (restore !== 'files') {
    const dropped = prompts.filter((p) => p.n >= n).length;
    plan.conversation = at.history === null ? { prompts: dropped, cannot: 'the conversation was compacted since that prompt, so it cannot go back to before it (its files still can)' } : { prompts: dropped };
  }
  if (restore === 'conversation') return plan;
  // a build step, an editor, another program may have made new names since the last scan (a hard
  // link to a key): looked up afresh, which costs a scan only when a file has a second name
  identitiesChanged();
  const io = new WorkspaceFileIO(cp.root, cp.extra);
  // the hooks dirs git config names, read once for every path
  const hooks = hooksDirs(cp.root);
  const since = { at: performance.now() };
  let budget = o.diffs === false ? 0 : PREVIEW_DIFF_LINES;
  for (const [rel, t] of targets(prompts, n)) {
    await breathe(since);
    const abs = onDisk(cp.root, rel);
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
    // checked against the hash that names it: a kept file cut short, emptied, altered or
    // replaced by a link is "cannot be restored", never written over the file
    const kept = t.before === null ? undefined : await cp.store.read(t.before);
    if (kept && 'why' in kept) {
      file.cannot = kept.why;
      plan.files.push(file);
      continue;
    }
    const then = kept?.data;
    // what is there now is read only where a restore may write: a path that leads elsewhere now is not read
    const target = await restoreTarget(cp.root, cp.extra, rel, checks, hooks);
    if ('why' in target) {
      file.cannot = target.why;
      plan.files.push(file);
      continue;
    }
    let current: Buffer | undefined;
    try {
      current = (await readNow(io, target.file, false))?.bytes;
    } catch (err) {
      file.cannot = `it cannot be read as a file now: ${(err as Error).message}`;
      plan.files.push(file);
      continue;
    }
    if (then !== undefined && current !== undefined && then.equals(current)) continue; // already as it was
    if (!sameStamp(now, t.expected)) {
      file.changedSince = now === null ? 'it was deleted since the session last changed it' : t.expected === null ? 'it was created again since the session deleted it' : 'it was changed since the session last changed it';
    }
    if (target.alwaysAsk) file.alwaysAsk = `${target.alwaysAsk}${then !== undefined && t.mode !== undefined ? `; restored with mode ${octal(t.mode)}` : ''}`;
    if (o.diffs !== false) {
      const d = rewindDiff(rel, current, then, Math.min(budget, FILE_DIFF_LINES));
      budget -= d.diff ? d.diff.split('\n', FILE_DIFF_LINES + 2).length : 0;
      file.diff = d.diff;
      if (d.added !== undefined) Object.assign(file, { added: d.added, removed: d.removed });
    }
    plan.files.push(file);
  }
  return plan;
}

/**
 * Puts the files of `plan` back: each one safe to write now (and, when changed by someone else
 * since, named in `overwrite`) is restored, deleted or created again through the same checks as
 * the plan, made again at the moment of the write; the rest are listed with why.
 */
export async function applyFiles(cp: SessionCheckpoints, plan: RewindPlan, overwrite: ReadonlySet<string>, checks: RestoreChecks): Promise<RewindResult> {
  const t = targets(cp.prompts(), plan.n);
  const io = new WorkspaceFileIO(cp.root, cp.extra);
  identitiesChanged();
  const hooks = hooksDirs(cp.root);
  const since = { at: performance.now() };
  /** One file: restored (undefined), or why not. */
  const one = async (f: RewindFile): Promise<string | undefined> => {
    if (f.cannot) return f.cannot;
    if (f.changedSince && !overwrite.has(f.path)) return `${f.changedSince}: kept as it is (it was not among the files to overwrite)`;
    const target = t.get(f.path);
    if (!target) return 'no record of it';
    try {
      // resolved again now: the plan was made a moment (or a minute) ago
      const ok = await restoreTarget(cp.root, cp.extra, f.path, checks, hooks);
      if ('why' in ok) return ok.why;
      const now = await readNow(io, ok.file, true);
      if (target.before === null) {
        if (now) await io.remove(ok.file, { expectSha256: now.sha256, expectBytes: now.bytes });
      } else {
        const kept = await cp.store.read(target.before);
        if ('why' in kept) return kept.why;
        await io.write(ok.file, kept.data, { expectSha256: now ? now.sha256 : null, ...(now ? { expectBytes: now.bytes } : {}), ...(target.mode !== undefined ? { mode: target.mode } : {}) });
      }
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  };
  // a few files at once: each write waits on its own fdatasync, and those overlap on the disk
  const why: Array<string | undefined> = new Array(plan.files.length);
  for (let i = 0; i < plan.files.length; i += RESTORE_AT_ONCE) {
    await breathe(since);
    const batch = plan.files.slice(i, i + RESTORE_AT_ONCE);
    const got = await Promise.all(batch.map(one));
    for (const [k, w] of got.entries()) why[i + k] = w;
  }
  const out: RewindResult = { restored: [], skipped: [] };
  for (const [i, f] of plan.files.entries()) {
    if (why[i] === undefined) out.restored.push(f.path);
    else out.skipped.push({ path: f.path, why: why[i]! });
  }
  return out;
}
