// The diff a human sees when a write_file, edit_file or sed call asks for approval (docs/local-fs.md, "Approval diff").
// The file is re-read (no ledger, no dedup stub, nothing recorded) unless the caller has just read
// it (the plan's approval, checking the read-before-write contract), the mutation is replayed in
// memory, and only a window around the change is diffed, so a 50 MB file costs little.
import { checkArgs } from '../contract/args.ts';
import type { ApprovalDiff } from '../contract/toolset.ts';
import { ToolError } from '../errors.ts';
import type { FileIO, FileSnapshot } from './file_io.ts';
import { borrowScanBuffer, type ScanLease } from './byte_scan.ts';
import type { MutationPlan } from './mutate.ts';
import { isBinary } from './text.ts';
import type { Args } from './tool_def.ts';
import { editFile, planMutation, sed, writeFile, type MutatingTool } from './write.ts';
import type { ConfinedPath } from '../paths.ts';

import { renderApprovalDiff } from './change_diff.ts';

export { DIFF_CONTEXT, DIFF_MAX_FILE_LINES, DIFF_MAX_LINES, renderApprovalDiff } from './change_diff.ts';
/** Files over this size are asked about without a diff. */
export const DIFF_MAX_BYTES = 256 * 1024 * 1024;

export type { ApprovalDiff, MutatingTool };

const DEFS = { write_file: writeFile, edit_file: editFile, sed } as const;

/**
 * The approval diff for a pending mutation of `file` (already confined and gated): re-reads it
 * through `io` (unless `current` is what the caller has just read of it), replays `tool` with
 * `args`, renders the windowed diff. Never throws for a file it cannot read or a mutation that
 * would fail: those give `diff: null` and a reason.
 */
export async function buildApprovalDiff(io: FileIO, file: ConfinedPath, tool: MutatingTool, rawArgs: Record<string, unknown>, current?: FileSnapshot): Promise<ApprovalDiff> {
  const none = (reason: string): ApprovalDiff => ({ path: file.rel, isNew: false, diff: null, reason });
  let args: Args;
  try {
    args = checkArgs(tool, DEFS[tool].inputSchema, rawArgs) as Args;
  } catch (err) {
    return none((err as Error).message);
  }
  let old: Buffer | null = null;
  // read into the scan arena when it is free: scanned where it lies, and no fresh pages to fault
  // in. Nothing returned refers to it (the diff and both windows are strings).
  let lease: ScanLease | undefined;
  try {
    try {
      old = (current ?? (await io.read(file, { maxBytes: DIFF_MAX_BYTES, into: (size) => (lease = borrowScanBuffer(size))?.buf }))).bytes;
    } catch (err) {
      if (!(err instanceof ToolError && err.code === 'not_found' && tool === 'write_file')) {
        return none(`the current content could not be read safely (${(err as Error).message})`);
      }
    }
    if (old && isBinary(old)) return none('the file looks binary');
    let plan: MutationPlan;
    try {
      plan = planMutation(tool, old, args, file.rel);
    } catch (err) {
      return none(`the change would fail: ${(err as Error).message}`);
    }
    return renderApprovalDiff(file.rel, old, plan);
  } finally {
    (lease as ScanLease | undefined)?.release();
  }
}
