// write_file, edit_file and sed: read the current version, check it against the session ledger,
// apply the mutation in memory, and write atomically through the FileIO, which re-verifies the
// hash immediately before the rename. A successful write records the new content. The file keeps
// its mode, except that a file in an always-ask path (hooks, ~/.local/bin) keeps exec bits only
// when the approval a human answered showed that mode.
import { ToolError } from '../errors.ts';
import { sha256Parts, type EarlyGuess, type FileSnapshot } from './file_io.ts';
import { hooksDirFact } from '../protect/git_dirs.ts';
import type { ConfinedPath } from '../paths.ts';
import { bool, int, schema, str } from './args.ts';
import { renderApprovalDiff, withChange } from './change_diff.ts';
import { lstatOf, type FsContext } from './context.ts';
import { occurrences, planEdit, planSed, planWrite, sameBytes, type MutationPlan } from './mutate.ts';
import { mustBeFile, refuseBinary } from './read.ts';
import { RANGE_READ_HARD_CAP, type Args, type ToolDef } from './tool_def.ts';

/** What a result reports of the version replaced. */
type Current = Pick<FileSnapshot, 'bytes' | 'sha256'>;

/** The current version of an existing file, checked against the ledger. */
async function current(ctx: FsContext, c: ConfinedPath, needFull: boolean): Promise<FileSnapshot> {
  mustBeFile(c);
  const snap = await ctx.io.read(c, { maxBytes: RANGE_READ_HARD_CAP, hashing: true });
  ctx.ledger.check(c.real, snap.sha256, needFull, c.rel);
  return snap;
}

function result(c: ConfinedPath, old: Current | null, plan: MutationPlan, written: boolean, newSha: string, note?: string) {
  return {
    path: c.rel,
    written,
    old_bytes: old ? old.bytes.length : 0,
    new_bytes: plan.length,
    old_sha256: old ? old.sha256 : null,
    new_sha256: newSha,
    ...(note ? { note } : {}),
  };
}

const octal = (m: number) => `0${m.toString(8).padStart(3, '0')}`;
/** exec, setuid, setgid and sticky bits: what makes a file in a hooks dir or on PATH run */
const RUN_BITS = 0o7111;

/**
 * The mode a write gives an existing file: its own, unless the file has exec bits, lies in an
 * always-ask path, and the approval did not show that very mode (`ctx.approvedMode`); then the
 * exec bits are dropped and the note says so.
 */
export function keptMode(ctx: FsContext, c: ConfinedPath): { mode?: number; note?: string } {
  if (ctx.io.kind === 'client') return {}; // the client keeps the mode; its human saw the approval
  const st = lstatOf(c);
  if (!st?.isFile()) return {};
  const mode = st.mode & 0o7777;
  if ((mode & RUN_BITS) === 0 || ctx.approvedMode === mode) return {};
  if (!ctx.matcher.alwaysAsk(c.lexical, c.real, c.requestedRel, c.rel) && !hooksDirFact(c.real, ctx.root)) return {};
  const plain = mode & 0o666;
  return { mode: plain, note: `mode ${octal(mode)} became ${octal(plain)}: ${c.rel} is in an always-ask path, and a file there keeps exec bits only after an approval that showed its mode. Ask the user to restore it if it must stay executable.` };
}

async function commit(ctx: FsContext, c: ConfinedPath, old: FileSnapshot | null, plan: MutationPlan) {
  const written = old === null || !sameBytes(old.bytes, plan.parts);
  let newSha: string;
  const kept = old && written ? keptMode(ctx, c) : {};
  if (written) {
    // the new content is hashed while the write is in flight (the write runs off this thread)
    const writing = ctx.io.write(c, plan.parts, { expectSha256: old ? old.sha256 : null, expectBytes: old?.bytes, ...(old?.identity ? { expectIdentity: old.identity } : {}), ...(kept.mode !== undefined ? { mode: kept.mode } : {}) });
    newSha = old ? old.sha256Of(plan.parts, plan.changeStart) : sha256Parts(plan.parts);
    await writing;
  } else {
    newSha = old.sha256;
  }
  ctx.ledger.recordWrite(c.real, newSha);
  return withChange(result(c, old, plan, written, newSha, kept.note), renderApprovalDiff(c.rel, old?.bytes ?? null, plan));
}

/**
 * edit_file and sed: read, plan, and write the temp file; with `guess` a big file's temp file is
 * begun during the read (guessEdit). The hash of the current content (for the ledger) and of the
 * new one are computed while the data goes out, and the ledger verdict gates the rename. Nothing
 * is visible until then; a refusal removes the temp.
 * The file is read once: the last check before the rename compares its identity with the read's
 * (bytes only when that differs or cannot vouch), and the two hashes share the unchanged prefix.
 */
async function mutate(ctx: FsContext, c: ConfinedPath, plan: (old: Buffer) => MutationPlan, guess?: (bytes: Buffer, len: number) => EarlyGuess) {
  mustBeFile(c);
  const entry = ctx.ledger.get(c.real);
  if (!entry) ctx.ledger.check(c.real, '', false, c.rel); // not_read, before any work
  const old = await ctx.io.read(c, { maxBytes: RANGE_READ_HARD_CAP, hashing: true, ...(guess ? { early: guess } : {}) });
  let handedOver = false;
  try {
    refuseBinary(c, old.bytes);
    let p: MutationPlan;
    try {
      p = plan(old.bytes);
    } catch (err) {
      ctx.ledger.check(c.real, old.sha256, false, c.rel); // a stale read is the first thing to fix
      throw err;
    }
    let refusal: unknown;
    const beforeCommit = () => {
      if (refusal) throw refusal;
    };
    // expectSha256 is the version the ledger holds; beforeCommit refuses the rename unless it is
    // the version just read, and the workspace side then checks the file is still that read (its
    // identity unchanged, or else its bytes)
    const kept = keptMode(ctx, c);
    handedOver = true;
    const writing = ctx.io.write(c, p.parts, {
      expectSha256: entry!.sha256,
      expectBytes: old.bytes,
      ...(old.identity ? { expectIdentity: old.identity } : {}),
      beforeCommit,
      ...(kept.mode !== undefined ? { mode: kept.mode } : {}),
      ...(old.early ? { early: { temp: old.early, change: p } } : {}),
    });
    writing.catch(() => {}); // observed below; never an unhandled rejection meanwhile
    const newSha = old.sha256Of(p.parts, p.changeStart);
    const oldSha = old.sha256;
    try {
      ctx.ledger.check(c.real, oldSha, false, c.rel);
    } catch (err) {
      refusal = err;
    }
    await writing;
    ctx.ledger.recordWrite(c.real, newSha);
    return { p, r: result(c, old, p, true, newSha, kept.note), change: renderApprovalDiff(c.rel, old.bytes, p) };
  } finally {
    if (!handedOver) old.early?.discard();
  }
}

/**
 * The early guess of an edit replacing `needle` (an EarlyGuess): the file is kept up to its first
 * occurrence (sed's line window and replace_all only change more after it), and with `with` (one
 * replacement, edit_file) that occurrence is replaced and the rest follows; a second occurrence
 * makes the plan refuse, which discards the temp file. The search goes over what each chunk
 * added, overlapping the previous by the needle's length less one.
 */
function guessEdit(needle: string, replacement?: string): (bytes: Buffer, len: number) => EarlyGuess {
  const n = Buffer.from(needle, 'utf8');
  const replace = replacement === undefined ? undefined : { with: Buffer.from(replacement, 'utf8'), length: n.length };
  let searched = 0;
  let first = -1;
  return (bytes, len) => {
    if (first === -1) {
      const [at] = occurrences(bytes, n, Math.max(0, searched - n.length + 1), len, 1);
      if (at !== undefined) first = at;
      searched = len;
    }
    if (first === -1) return { keep: Math.max(0, len - n.length + 1) };
    return replace ? { keep: first, replace } : { keep: first };
  };
}

export const writeFile: ToolDef = {
  name: 'write_file',
  kind: 'edit',
  description: 'Create a file, or overwrite one you have fully read in this session, with the given content.',
  longDescription:
    'Write content to a file inside the workspace root, creating parent directories. The write is atomic (temp file, fsync, rename) and keeps the file mode. ' +
    'Overwriting an existing file needs a full read_file of its current version in this session; if the file changed since, the write is refused as stale and you must re-read it. ' +
    'Prefer edit_file or sed for targeted changes to existing files.',
  inputSchema: schema({ path: str('file path, relative to the workspace root'), content: str('the complete new content') }, ['path', 'content']),
  async run(ctx, a: Args) {
    const c = await ctx.resolve('write_file', a.path as string);
    const st = lstatOf(c);
    if (st?.isDirectory()) throw new ToolError('is_directory', `${c.rel} is a directory; write_file writes files.`);
    const old = st ? await current(ctx, c, true) : null;
    if (old === null) {
      // a new file needs no read, but the ledger must not hold an older version of this path
      ctx.ledger.forget(c.real);
    }
    return commit(ctx, c, old, planMutation('write_file', old?.bytes ?? null, a, c.rel));
  },
};

export const editFile: ToolDef = {
  name: 'edit_file',
  kind: 'edit',
  description: 'Replace one exact occurrence of old_string with new_string in a file you have read.',
  longDescription:
    'Replace old_string with new_string in an existing file: a byte-exact match (whitespace and line endings included) that must occur exactly once, unless replace_all is true. ' +
    'Zero matches leaves the file unchanged (re-read and retry with the exact text); several matches are refused with their count (add context to make it unique). ' +
    'Needs a read_file or read_file_range of the current version in this session. Returns sizes and hashes, not the file.',
  inputSchema: schema(
    {
      path: str('file path, relative to the workspace root'),
      old_string: str('the exact text to replace'),
      new_string: str('the replacement text'),
      replace_all: bool('replace every occurrence instead of exactly one'),
    },
    ['path', 'old_string', 'new_string'],
  ),
  async run(ctx, a: Args) {
    const c = await ctx.resolve('edit_file', a.path as string);
    const guess = typeof a.old_string === 'string' && a.old_string !== '' ? guessEdit(a.old_string, a.replace_all === true || typeof a.new_string !== 'string' ? undefined : a.new_string) : undefined;
    const { p, r, change } = await mutate(ctx, c, (old) => planMutation('edit_file', old, a, c.rel), guess);
    return withChange({ path: r.path, written: r.written, replacements: p.replacements, old_bytes: r.old_bytes, new_bytes: r.new_bytes, old_sha256: r.old_sha256, new_sha256: r.new_sha256, ...(r.note ? { note: r.note } : {}) }, change);
  },
};

export const sed: ToolDef = {
  name: 'sed',
  kind: 'edit',
  description: 'Literal find-and-replace in a file you have read, optionally within start_line..end_line.',
  longDescription:
    'Replace the literal text pattern with replacement (no regex, no sed syntax) in an existing file, optionally only within lines start_line..end_line. ' +
    'Exactly one match is required unless all is true or expect_replacements gives the exact count. ' +
    'No match leaves the file unchanged and shows the closest lines; a count mismatch leaves it unchanged and says where the matches are. ' +
    'Needs a read_file or read_file_range of the current version in this session.',
  inputSchema: schema(
    {
      path: str('file path, relative to the workspace root'),
      pattern: str('literal text to find'),
      replacement: str('literal replacement'),
      all: bool('replace every match in the window'),
      expect_replacements: int('the exact number of matches expected (all of them are replaced)', 1),
      start_line: int('first line of the window (1-based)', 1),
      end_line: int('last line of the window (inclusive)', 1),
    },
    ['path', 'pattern', 'replacement'],
  ),
  async run(ctx, a: Args) {
    const c = await ctx.resolve('sed', a.path as string);
    const { p, r, change } = await mutate(ctx, c, (old) => planMutation('sed', old, a, c.rel), typeof a.pattern === 'string' && a.pattern !== '' ? guessEdit(a.pattern) : undefined);
    return withChange({ path: r.path, written: r.written, changed: p.changedLines ?? 0, replacements: p.replacements, old_bytes: r.old_bytes, new_bytes: r.new_bytes, old_sha256: r.old_sha256, new_sha256: r.new_sha256, ...(r.note ? { note: r.note } : {}) }, change);
  },
};

export type MutatingTool = 'write_file' | 'edit_file' | 'sed';

/**
 * What `tool` with its checked arguments makes of `old` (null: no file yet, write_file only).
 * The tools and the approval diff both plan through here, so a diff replays exactly the change.
 */
export function planMutation(tool: MutatingTool, old: Buffer | null, a: Args, shown: string): MutationPlan {
  if (tool === 'write_file') return planWrite(old, a.content as string);
  if (old === null) throw new ToolError('not_found', `${shown} does not exist.`);
  if (tool === 'edit_file') return planEdit(old, a.old_string as string, a.new_string as string, a.replace_all === true, shown);
  const sedOpts = { all: a.all === true, expectReplacements: a.expect_replacements as number | undefined, startLine: a.start_line as number | undefined, endLine: a.end_line as number | undefined };
  return planSed(old, a.pattern as string, a.replacement as string, sedOpts, shown);
}
