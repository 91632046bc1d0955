// What a local_fs call will do, as the toolset contract asks it (core/contract/toolset.ts): the
// path confined and classified before anyone is asked (refusals first), the axis and the
// protected facts for the envelope, the file a session allow covers, the diff an approval shows
// (after the read-before-write contract, which would refuse the write anyway), and the run with
// the file mode a human saw and the read-approve list asked through the gate.
import fs from 'node:fs';
import path from 'node:path';
import type { ApprovalContext, ApprovalView, CallPlan, CallView, RunContext, RunQuestion } from '../contract/toolset.ts';
import { axisOf, type CallFacts } from '../envelope/index.ts';
import type { ConfinedPath } from '../paths.ts';
import { gitWriteFact } from '../protect/git_dirs.ts';
import type { IdentityIndex } from '../protect/identity.ts';
import type { PathMatcher } from '../protect/matcher.ts';
import type { ToolKind } from '../tool.ts';
import { buildApprovalDiff, DIFF_MAX_BYTES, type MutatingTool } from './approval_diff.ts';
import { classifyPath, type ApprovalRequest, type AskApproval } from './context.ts';
import { TooBigForMessage, type FileIO, type FileSnapshot } from './file_io.ts';
import type { ReadLedger } from './ledger.ts';
import { LOCAL_FS, type FsPolicy } from './policy.ts';
import type { Args } from './tool_def.ts';

export { LOCAL_FS };

/** How a planned call runs: the file mode a human saw, the read-approve answer, the checkpoints' write recorder, who hears of its ledger records. */
export interface FsRunOptions {
  signal?: AbortSignal;
  approvedMode?: number;
  ask?: AskApproval;
  writes?: RunContext['writes'];
  onLedger?: (realPath: string, how: 'read' | 'write') => void;
}

/** The path a plan confined and classified, for the run to reuse while the file under it is the same. */
export interface PlannedPath {
  /** the argument as the tool will ask for it */
  arg: string;
  c: ConfinedPath;
  /** on the read-approve list: asked when the run gets there */
  readApprove?: ApprovalRequest;
}

/** What a plan needs of the toolset. */
export interface FsParts {
  readonly root: string;
  /** the session's additional directories, canonical */
  readonly extra?: readonly string[];
  readonly policy: FsPolicy;
  readonly ledger: ReadLedger;
  readonly io: FileIO;
  readonly identity: IdentityIndex;
  readonly matcher: PathMatcher;
  /** Runs a call whose arguments were checked, with the path its plan confined. */
  run(tool: string, a: Args, planned: PlannedPath | undefined, opts: FsRunOptions): Promise<unknown>;
}

/** The path a call names; the browsing tools default to the root. */
function pathOf(tool: string, path: unknown): string | undefined {
  if (typeof path === 'string') return path;
  return path === undefined && (tool === 'list_dir' || tool === 'find_files') ? '.' : undefined;
}

/** `local_fs.read_file: a.txt` (find_files by its pattern), and the file with its line. */
export function fsView(root: string, tool: string, kind: ToolKind, args: Record<string, unknown>): CallView {
  const shown = typeof args.path === 'string' ? args.path : typeof args.pattern === 'string' && tool === 'find_files' ? args.pattern : '';
  const p = typeof args.path === 'string' && args.path ? args.path : pathOf(tool, undefined) ?? '';
  const line = Number(args.start_line);
  const locations = !p || p.includes('\0') ? [] : [Number.isInteger(line) && line > 0 ? { path: path.resolve(root, p), line } : { path: path.resolve(root, p) }];
  return { title: shown ? `${LOCAL_FS}.${tool}: ${shown}` : `${LOCAL_FS}.${tool}`, kind, locations };
}

/**
 * A write the read-before-write contract will refuse (never read, only a range for write_file,
 * changed since read) is refused before a human is asked about it. Returns what it read, for the
 * diff to use rather than reading the file again.
 */
async function contractFirst(parts: FsParts, tool: string, c: ConfinedPath): Promise<FileSnapshot | undefined> {
  if (!c.exists) return undefined;
  const needFull = tool === 'write_file';
  if (!parts.ledger.get(c.real)) {
    // a file the client cannot send whole is never editable through it: say that, not "read it first"
    // (a limit of 0: the client's IO refuses on the local size before asking, so nothing is sent)
    if (parts.io.kind === 'client') await parts.io.read(c, { maxBytes: 0 }).catch((err) => (err instanceof TooBigForMessage ? Promise.reject(err) : undefined));
    parts.ledger.check(c.real, '', needFull, c.rel); // throws not_read
  }
  let snap: FileSnapshot;
  try {
    snap = await parts.io.read(c, { maxBytes: DIFF_MAX_BYTES, hashing: true });
  } catch (err) {
    if (err instanceof TooBigForMessage) throw err;
    return undefined; // unreadable here: the tool gives the precise error after the answer
  }
  parts.ledger.check(c.real, snap.sha256, needFull, c.rel);
  return snap;
}

/** The read-approve list met while running (a path the plan could not see), as a question for the gate. */
export function readApproveQuestion(req: ApprovalRequest): RunQuestion {
  return {
    tool: req.tool,
    title: `${LOCAL_FS}.${req.tool}: ${req.path}`,
    kind: 'read',
    args: { path: req.path },
    locations: [req.path],
    scope: [{ kind: 'file', axis: 'files.read', path: req.path }],
    rule: 'files.read.approve_paths',
    sentence: `approve: path \`${req.path}\` ${req.reason} (built-in read-approve list)`,
    refusal: `${req.path} ${req.reason} and needs a human's approval, which nobody can give here. Do without it, or rerun with --yes.`,
  };
}

/**
 * The path a call names, confined and classified: confinement, quarantine, denied substrings
 * refuse here; the read-approve list is the envelope's question (and asked when the run gets there).
 */
export function plannedPath(parts: Pick<FsParts, 'root' | 'extra' | 'policy' | 'matcher' | 'identity'>, tool: string, a: Args): PlannedPath | undefined {
  const arg = pathOf(tool, a.path);
  if (arg === undefined) return undefined;
  return { arg, ...classifyPath({ root: parts.root, ...(parts.extra?.length ? { extra: parts.extra } : {}), policy: parts.policy, matcher: parts.matcher, identity: parts.identity }, tool, arg) };
}

/** The plan of one call whose arguments `a` were checked (`raw` as given, for the diff). */
export async function planFsCall(parts: FsParts, tool: string, a: Args, raw: Record<string, unknown>): Promise<CallPlan> {
  const axis = axisOf(LOCAL_FS, tool) as 'files.read' | 'files.write';
  const facts: CallFacts = { toolset: LOCAL_FS, tool, axis };
  const planned = plannedPath(parts, tool, a);
  const c = planned?.c;
  if (c) {
    facts.paths = [c.requestedRel];
    facts.resolved = [c.rel];
    facts.absolute = [c.lexical, c.real];
    // a git dir under another name, the hooks dir core.hooksPath names: only the disk knows
    const fact = axis === 'files.write' ? gitWriteFact(c.real, parts.root) : undefined;
    if (fact) facts.protected = [fact];
  }
  const file = c;
  return {
    facts,
    scope: { whole: file ? [{ kind: 'file', axis, path: file.rel }] : [] },
    locations: file ? [file.rel] : [],
    effects: axis === 'files.write' ? 'files' : 'none',
    keepsNames: true, // local_fs never makes a link
    approval: (ctx) => approvalOf(parts, tool, raw, file, ctx),
    run: (ctx) => runFs(parts, tool, a, planned, ctx),
  };
}

async function approvalOf(parts: FsParts, tool: string, raw: Record<string, unknown>, c: ConfinedPath | undefined, ctx: ApprovalContext): Promise<ApprovalView> {
  const title = c ? `${LOCAL_FS}.${tool}: ${c.rel}` : `${LOCAL_FS}.${tool}`;
  if (!c || axisOf(LOCAL_FS, tool) !== 'files.write') return { title };
  const current = await contractFirst(parts, tool, c);
  const diff = await buildApprovalDiff(parts.io, c, tool as MutatingTool, raw, current);
  const fileMode = ctx.alwaysAsk ? execMode(c) : undefined;
  if (fileMode === undefined) return { title, diff };
  return { title: `${title} (mode ${fileMode}, executable: kept if you allow)`, diff, fileMode };
}

/** The mode of a file that can run (exec bits), octal: an always-ask write shows it. */
function execMode(c: ConfinedPath): string | undefined {
  const st = fs.lstatSync(c.real, { throwIfNoEntry: false });
  return st?.isFile() && (st.mode & 0o7111) !== 0 ? `0${(st.mode & 0o7777).toString(8)}` : undefined;
}

function runFs(parts: FsParts, tool: string, a: Args, planned: PlannedPath | undefined, ctx: RunContext): Promise<unknown> {
  const mode = ctx.shown?.fileMode;
  return parts.run(tool, a, planned, {
    signal: ctx.signal,
    ...(ctx.writes ? { writes: ctx.writes } : {}),
    ...(ctx.reports?.ledger ? { onLedger: ctx.reports.ledger } : {}),
    ...(mode !== undefined ? { approvedMode: parseInt(mode, 8) } : {}),
    // the read-approve list as the tool meets it: already approved, covered, or asked
    ask: (req) => ctx.ask(readApproveQuestion(req)),
  });
}
