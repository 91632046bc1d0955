// The local_fs toolset: ten tools over one canonical root, one policy, one session ledger and
// one FileIO for the content half. Browsing tools always run in-process on the real filesystem.
// What a call will do before it runs is its plan (plan.ts).
import fs from 'node:fs';
import path from 'node:path';
import { checkArgs } from '../contract/args.ts';
import { plainOutput } from '../contract/schema_plan.ts';
import type { CallPlan, CallView, PlanContext, Toolset, ToolOutput } from '../contract/toolset.ts';
import { RecordedIO } from './recorded_io.ts';
import { changeOf } from './change_diff.ts';
import { ToolError, toToolError } from '../errors.ts';
import { WorkspaceFileIO, type FileIO } from './file_io.ts';
import { DEFAULT_FS_POLICY, type FsPolicy } from './policy.ts';
import { ReadLedger } from './ledger.ts';
import { defaultIdentityIndex, type IdentityIndex } from '../protect/identity.ts';
import { canonicalRoot, type ConfinedPath } from '../paths.ts';
import { defaultPathMatcher, type PathMatcher } from '../protect/matcher.ts';
import { nodeCrypto } from '../platform/runtime.ts';
import type { ToolSpec } from '../tool.ts';
import { answerReadApprove, gatePath, type ApprovalMode, type AskApproval, type FsContext, type GateOptions as PathGate, type GrepEngine } from './context.ts';
import { findFiles } from './find_files.ts';
import { grep } from './grep.ts';
import { listDir } from './list_dir.ts';
import { fsView, LOCAL_FS, planFsCall, plannedPath, type FsRunOptions, type PlannedPath } from './plan.ts';
import { readFile, readFileRange } from './read.ts';
import { findRipgrep } from './ripgrep.ts';
import { countStats, statFile } from './stat.ts';
import type { Args, ToolDef } from './tool_def.ts';
import { editFile, sed, writeFile } from './write.ts';

export { LOCAL_FS };

/** The ten tools, in the order they are offered to a model. */
export const LOCAL_FS_TOOLS: readonly ToolDef[] = Object.freeze([
  readFile, readFileRange, writeFile, editFile, sed, listDir, grep, findFiles, statFile, countStats,
]);

export interface LocalFsOptions {
  /** the session cwd; `policy.allowedDir`, when set, is resolved against it */
  root: string;
  /** the session's additional directories, already checked and canonical (extra_roots.ts's `additionalRoots`) */
  extra?: readonly string[];
  policy?: FsPolicy;
  /** the session's read ledger (a fresh one when omitted) */
  ledger?: ReadLedger;
  sessionId?: string;
  /** content half (read/write/edit/sed); workspace-backed by default */
  io?: FileIO;
  /** how read-approve paths are answered (default `refuse`) */
  approvals?: ApprovalMode;
  /** the answer under `ask` for a call that brings none of its own (through the gate, each call brings the gate's) */
  ask?: AskApproval;
  matcher?: PathMatcher;
  /** identities of protected files, for hard links to them (default: the shared index over $HOME) */
  identity?: IdentityIndex;
  /** `auto` uses ripgrep for literal tree greps and find_files when it is installed */
  grepEngine?: GrepEngine;
  /** ripgrep binary; undefined = look up the bundled one, null = none */
  rgPath?: string | null;
}

export class LocalFsToolset implements Toolset {
  readonly name = LOCAL_FS;
  readonly root: string;
  readonly extra: readonly string[];
  readonly policy: FsPolicy;
  readonly ledger: ReadLedger;
  readonly io: FileIO;
  /** identities of protected files (hard links to them are them) */
  readonly identity: IdentityIndex;
  readonly #opts: LocalFsOptions;
  readonly #tools = new Map(LOCAL_FS_TOOLS.map((t) => [t.name, t]));
  #rg: Promise<string | null> | undefined;

  constructor(opts: LocalFsOptions) {
    this.#opts = opts;
    this.policy = opts.policy ?? { ...DEFAULT_FS_POLICY };
    this.root = canonicalRoot(this.policy.allowedDir ? path.resolve(opts.root, this.policy.allowedDir) : opts.root);
    this.extra = opts.extra ?? [];
    this.ledger = opts.ledger ?? new ReadLedger(opts.sessionId ?? nodeCrypto().randomUUID());
    this.io = opts.io ?? new WorkspaceFileIO(this.root, this.extra);
    this.identity = opts.identity ?? defaultIdentityIndex;
  }

  /** ripgrep, looked up on the first call that can use it (a cold `cxl tool stat_file` never does). */
  #ripgrep(): Promise<string | null> {
    const o = this.#opts;
    this.#rg ??= (o.grepEngine ?? 'auto') === 'builtin' ? Promise.resolve(null) : o.rgPath !== undefined ? Promise.resolve(o.rgPath) : findRipgrep();
    return this.#rg;
  }

  list(): ToolSpec[] {
    return LOCAL_FS_TOOLS.map((t) => ({
      toolset: LOCAL_FS,
      name: t.name,
      description: this.policy.longDescriptions ? t.longDescription : t.description,
      longDescription: t.longDescription,
      inputSchema: t.inputSchema,
      kind: t.kind,
    }));
  }

  /** Confines and gates a path as `tool` would (for callers that need the same verdict). */
  resolve(tool: string, p: string): Promise<ConfinedPath> {
    return gatePath(this.#gate(), tool, p);
  }

  #gate(ask?: AskApproval): PathGate & { identity: IdentityIndex } {
    const o = this.#opts;
    return { root: this.root, ...(this.extra.length ? { extra: this.extra } : {}), policy: this.policy, matcher: o.matcher ?? defaultPathMatcher, identity: this.identity, approvals: o.approvals ?? 'refuse', ask: ask ?? o.ask };
  }

  /** A tool by its bare or qualified name. */
  #def(tool: string): { name: string; def: ToolDef } {
    const name = tool.startsWith(`${LOCAL_FS}.`) ? tool.slice(LOCAL_FS.length + 1) : tool;
    const def = this.#tools.get(name);
    if (!def) throw new ToolError('unknown_tool', `local_fs has no tool \`${tool}\`. Tools: ${[...this.#tools.keys()].join(', ')}.`);
    return { name, def };
  }

  view(tool: string, args: Record<string, unknown>): CallView {
    const name = tool.startsWith(`${LOCAL_FS}.`) ? tool.slice(LOCAL_FS.length + 1) : tool;
    return fsView(this.root, name, this.#tools.get(name)?.kind ?? 'other', args);
  }

  /** The result as the model reads it (its JSON); a change a write made is shown beside it as its diff. */
  output(_tool: string, result: unknown): ToolOutput {
    const out = plainOutput(result);
    const change = changeOf(result);
    if (!change || change.diff === null || change.newText === undefined) return out;
    const diff = { path: change.path, oldText: change.isNew ? null : (change.oldText ?? ''), newText: change.newText, ...(change.startLine !== undefined ? { startLine: change.startLine } : {}), ...(change.cut ? { cut: true } : {}) };
    return { ...out, display: { ...out.display, diff } };
  }

  plan(tool: string, args: Record<string, unknown>, _ctx?: PlanContext): Promise<CallPlan> {
    const { name, def } = this.#def(tool);
    return planFsCall(this, name, checkArgs(name, def.inputSchema, args) as Args, args);
  }

  /** How the plan's path gate answers: the toolset's matcher. */
  get matcher(): PathMatcher {
    return this.#opts.matcher ?? defaultPathMatcher;
  }

  /**
   * Runs a call as it would run through the gate's plan, without an envelope (tests, one-off
   * callers): the arguments checked and the path confined once, then the tool. `approvedMode`: the
   * file mode a human saw when approving a write into an always-ask path (see write.ts); `ask`:
   * how read-approve paths are answered under `approvals: 'ask'`.
   */
  async call(tool: string, args: Record<string, unknown>, opts: FsRunOptions = {}): Promise<unknown> {
    try {
      const { name, def } = this.#def(tool);
      const a = checkArgs(name, def.inputSchema, args) as Args;
      return await this.run(name, a, plannedPath(this, name, a), opts);
    } catch (err) {
      throw toToolError(err);
    }
  }

  /** Runs a checked call with the path its plan confined (FsParts.run): the plan's run and `call` both come here. */
  async run(name: string, a: Args, planned: PlannedPath | undefined, opts: FsRunOptions): Promise<unknown> {
    try {
      const def = this.#def(name).def;
      const gate = this.#gate(opts.ask);
      const ctx: FsContext = {
        root: this.root,
        ...(this.extra.length ? { extra: this.extra } : {}),
        policy: this.policy,
        ledger: opts.onLedger ? this.ledger.reporting(opts.onLedger) : this.ledger,
        io: opts.writes ? new RecordedIO(this.io, opts.writes) : this.io,
        matcher: gate.matcher,
        identity: gate.identity,
        ...(opts.approvedMode !== undefined ? { approvedMode: opts.approvedMode } : {}),
        rgPath: name === 'grep' || name === 'find_files' ? await this.#ripgrep() : null,
        resolve: (t, p) => (planned && p === planned.arg ? this.#again(gate, t, planned, def.kind === 'edit') : gatePath(gate, t, p)),
      };
      if (opts.signal?.aborted) throw new ToolError('cancelled', `${name} was cancelled before it started.`);
      return await def.run(ctx, a, opts.signal);
    } catch (err) {
      throw toToolError(err);
    }
  }

  /**
   * The planned path at run time. What can change since the plan is the file under the name: a
   * read of the same file (device, inode, link count) keeps the plan's answer and asks only the
   * read-approve question; a write, a new path or another file goes through the whole gate again.
   */
  #again(gate: PathGate, tool: string, planned: PlannedPath, writes: boolean): Promise<ConfinedPath> {
    const c = planned.c;
    if (writes || !c.exists) return gatePath(gate, tool, planned.arg);
    const st = fs.lstatSync(c.real, { throwIfNoEntry: false });
    if (!st || st.dev !== c.dev || st.ino !== c.ino || (st.isFile() ? st.nlink : undefined) !== c.links) return gatePath(gate, tool, planned.arg);
    return planned.readApprove ? answerReadApprove(gate, c, { ...planned.readApprove, tool }).then(() => c) : Promise.resolve(c);
  }
}
