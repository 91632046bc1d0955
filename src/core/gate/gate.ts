// The one pipeline every tool call passes (docs/local-shell.md, docs/config.md "Envelopes", docs/local-fs.md "Approval diff"):
//   arguments (bad_args, never shown to anyone) → tools_policies and confinement (refuse) →
//   envelope (allow / approve / deny) → for approve,
//   an approval request carrying the diff or the command's steps → the human's answer (allow
//   once, allow for this session with its scope, reject, reject with a reason) → run.
// The approver is injected: the ACP agent, the TUI and `cxl tool --yes` each bring their own.
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { buildApprovalDiff, DIFF_MAX_BYTES, type ApprovalDiff, type MutatingTool } from './approval_diff.ts';
import { decide, axisOf, type CallFacts, type CompiledEnvelope, type Decision } from '../envelope/index.ts';
import { ToolError, toToolError } from '../errors.ts';
import type { FileSnapshot } from '../local_fs/file_io.ts';
import { gitWriteFact } from '../protect/git_dirs.ts';
import type { ApprovalRequest as FsApprovalRequest, AskApproval } from '../local_fs/context.ts';
import { checkArgs } from '../local_fs/args.ts';
import { gatePath } from '../local_fs/context.ts';
import { LocalFsToolset } from '../local_fs/toolset.ts';
import { defaultIdentityIndex, identitiesChanged, type IdentityIndex } from '../protect/identity.ts';
import type { ConfinedPath } from '../paths.ts';
import { defaultPathMatcher } from '../protect/matcher.ts';
import { envelopeSandbox, profileFor, withoutSandbox, type SandboxCall } from '../shell/sandbox/settings.ts';
import { commandScope, describeAllow, SessionAllows, type SessionAllow } from './session_allows.ts';
import { addShellPaths, approvePaths, shellCallOf, withReadApprove } from './shell_facts.ts';
import { LocalShell } from '../shell/local_shell.ts';
import { displayArgv } from '../shell/runner.ts';
import { validateArgs } from './tool_args.ts';
import type { CallPreview, Toolset, ToolKind } from '../tool.ts';

/** How long an ask waits when the envelope names no timeout. */
export const DEFAULT_ASK_TIMEOUT_MS = 5 * 60 * 1000;

export interface ApprovalRequest {
  id: string;
  toolset: string;
  tool: string;
  /** `local_fs.edit_file: src/app.ts`, `local_shell: git commit -m x` */
  title: string;
  kind: ToolKind;
  args: Record<string, unknown>;
  /** the envelope's decision: its rule and sentence travel to the client (ACP `_meta`) */
  decision: Decision;
  /** for write_file / edit_file / sed: the diff of the exact change (diff null when unknowable) */
  diff?: ApprovalDiff;
  /** for local_shell: each step as it will run */
  steps?: string[];
  /** for a toolset with a preview (remote tools): what the call will do (method, URL, body) */
  detail?: string[];
  /** root-relative paths the call touches */
  locations: string[];
  /** what "allow for this session" would allow; empty = the option is not offered */
  sessionScope: SessionAllow[];
  /**
   * For a write into an always-ask path whose file can run (exec bits): its mode, octal
   * ("0755"). The approver must show it; only a human's yes to a request that carried it keeps it.
   */
  fileMode?: string;
  /** the ask resolves as a rejection after this long */
  timeoutMs: number;
}

export type ApprovalAnswer =
  | { outcome: 'allow_once' }
  | { outcome: 'allow_session' }
  | { outcome: 'reject'; reason?: string }
  | { outcome: 'cancelled' };

export type Approver = (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

/** How an approve decision was answered. */
export type ApprovedBy = 'human' | 'human-session' | 'session' | 'yes';

export interface GateResult {
  result: unknown;
  decision: Decision;
  approvedBy?: ApprovedBy;
}

export interface Evaluation {
  toolset: string;
  tool: string;
  facts: CallFacts;
  decision: Decision;
  /** for an approve: what "allow for this session" would cover */
  sessionScope: SessionAllow[];
  /** the session already allowed it */
  coveredBySession: boolean;
}

export interface GateOptions {
  envelope: CompiledEnvelope;
  /** asks a human; absent = nobody can answer, approve refuses with approval_required */
  approver?: Approver;
  /** approve counts as allow-once without asking (`cxl tool --yes`); deny still denies */
  autoApprove?: boolean;
  /** the session's scoped allows (restored from the session store when resuming) */
  session?: SessionAllows;
  defaultTimeoutMs?: number;
  toolsets?: Toolset[];
  /** the workspace root (for resolving shell arguments); default: local_fs's root */
  root?: string;
}

interface CallState {
  approved: boolean;
}

interface Prepared {
  toolset: Toolset;
  tool: string;
  facts: CallFacts;
  confined: ConfinedPath[];
  steps?: string[];
  preview?: CallPreview;
  /** a shell call's read-approve paths: a session allow covers them one by one */
  approve?: string[];
}

// argument names of other toolsets (MCP) whose string values are paths: the quarantine
// and every path list see them too.
const PATH_ARG = /^(?:path|paths|file|files|filename|filepath|file_path|dir|directory|target|source|src|dest|destination)$/i;

export class Gate {
  readonly session: SessionAllows;
  envelope: CompiledEnvelope;
  readonly #opts: GateOptions;
  readonly #toolsets = new Map<string, Toolset>();
  readonly #als = new AsyncLocalStorage<CallState>();

  constructor(opts: GateOptions) {
    this.#opts = opts;
    this.envelope = opts.envelope;
    this.session = opts.session ?? new SessionAllows();
    for (const ts of opts.toolsets ?? []) this.add(ts);
  }

  add(ts: Toolset): this {
    this.#toolsets.set(ts.name, ts);
    return this;
  }

  toolsets(): Toolset[] {
    return [...this.#toolsets.values()];
  }

  /**
   * The read-approve hook for LocalFsToolset (`approvals: 'ask', ask: gate.fsAsk`): a path on
   * the built-in read-approve list passes when this call was already approved here, and is
   * asked of the approver otherwise (an envelope that allows it does not silence the list).
   */
  readonly fsAsk: AskApproval = async (req: FsApprovalRequest) => {
    if (this.#als.getStore()?.approved) return true;
    if (this.session.hasFile('files.read', req.path)) return true;
    if (this.#opts.autoApprove) return true;
    if (!this.#opts.approver) {
      throw new ToolError('approval_required', `${req.path} ${req.reason} and needs a human's approval, which nobody can give here. Do without it, or rerun with --yes.`);
    }
    const decision: Decision = {
      action: 'approve',
      rule: 'files.read.approve_paths',
      envelope: this.envelope.name,
      from: 'built-in',
      sentence: `approve: path \`${req.path}\` ${req.reason} (built-in read-approve list)`,
    };
    const scope: SessionAllow[] = [{ kind: 'file', axis: 'files.read', path: req.path }];
    const answer = await this.#ask({
      id: await approvalId(),
      toolset: 'local_fs',
      tool: req.tool,
      title: `local_fs.${req.tool}: ${req.path}`,
      kind: 'read',
      args: { path: req.path },
      decision,
      locations: [req.path],
      sessionScope: scope,
      timeoutMs: this.#opts.defaultTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
    });
    return answer === 'human' || answer === 'human-session';
  };

  /** The root shell words are resolved from: the command policy's dir, the workspace, or the shell's own root (real). */
  #root(sh: LocalShell): string {
    let root = sh.root;
    if (sh.policy?.allowedDir) root = sh.policy.allowedDir;
    else if (this.#opts.root) root = this.#opts.root;
    else for (const ts of this.#toolsets.values()) if (ts instanceof LocalFsToolset) root = ts.root;
    try {
      return fs.realpathSync.native(root);
    } catch {
      return root;
    }
  }

  /** Whether an ask can be answered here (a human, or --yes). */
  #canAsk(): boolean {
    return this.#opts.approver !== undefined || this.#opts.autoApprove === true;
  }

  /** The identity index hard links are looked up in: local_fs's, or the shared one. */
  #identity(): IdentityIndex {
    for (const ts of this.#toolsets.values()) if (ts instanceof LocalFsToolset) return ts.identity;
    return defaultIdentityIndex;
  }

  /** Splits `local_fs.read_file` / `read_file` into its toolset and tool. */
  resolveName(name: string): { toolset: Toolset; tool: string } {
    const dot = name.indexOf('.');
    if (dot > 0) {
      const ts = this.#toolsets.get(name.slice(0, dot));
      if (ts) return { toolset: ts, tool: name.slice(dot + 1) };
    }
    const own = this.#toolsets.get(name);
    if (own && own.list().some((s) => s.name === name)) return { toolset: own, tool: name };
    for (const ts of this.#toolsets.values()) if (ts.list().some((s) => s.name === name)) return { toolset: ts, tool: name };
    const names = this.toolsets().flatMap((ts) => ts.list().map((s) => `${ts.name}.${s.name}`));
    throw new ToolError('unknown_tool', `No tool \`${name}\`. Tools: ${names.join(', ') || '(none)'}.`);
  }

  /** Stage 1 (tools_policies and confinement) and the facts for the envelope. Throws refusals. */
  async #prepare(name: string, args: Record<string, unknown>): Promise<Prepared> {
    const { toolset, tool } = this.resolveName(name);
    // Arguments first: a call with unknown or missing arguments is bad_args, never an ask.
    const spec = toolset.list().find((s) => s.name === tool);
    if (toolset instanceof LocalFsToolset && spec) checkArgs(tool, spec.inputSchema, args);
    else if (spec && !(toolset instanceof LocalShell) && !(toolset as Toolset).preview) validateArgs(`${toolset.name}.${tool}`, spec.inputSchema, args);
    const facts: CallFacts = { toolset: toolset.name, tool };
    const confined: ConfinedPath[] = [];
    if (toolset instanceof LocalFsToolset) {
      const p = typeof args.path === 'string' ? args.path : args.path === undefined && (tool === 'list_dir' || tool === 'find_files') ? '.' : undefined;
      if (p !== undefined) {
        // confinement, quarantine, denied substrings; the read-approve list is the envelope's
        // question here (and asked again by the tool if the envelope let it through)
        const c = await gatePath({ root: toolset.root, policy: toolset.policy, matcher: defaultPathMatcher, identity: toolset.identity, approvals: 'allow' }, tool, p);
        confined.push(c);
        facts.paths = [c.requestedRel];
        facts.resolved = [c.rel];
        facts.absolute = [c.lexical, c.real];
        // a git dir under another name, the hooks dir core.hooksPath names: only the disk knows
        if (axisOf('local_fs', tool) === 'files.write') {
          const fact = gitWriteFact(c.real, toolset.root);
          if (fact) facts.protected = [fact];
        }
      }
      return { toolset, tool, facts, confined };
    }
    if (toolset instanceof LocalShell) {
      const root = this.#root(toolset);
      const shell = shellCallOf(toolset, args, root, this.#canAsk());
      facts.shell = shell.facts;
      addShellPaths(facts, shell.paths, root, this.#identity());
      return { toolset, tool, facts, confined, steps: shell.shown, approve: approvePaths(shell.paths, root) };
    }
    const paths: string[] = [];
    for (const [k, v] of Object.entries(args)) {
      if (!PATH_ARG.test(k)) continue;
      if (typeof v === 'string' && v !== '') paths.push(v);
      else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string' && x !== '') paths.push(x);
    }
    if (paths.length) facts.paths = paths;
    // a toolset that can say what a call does checks its arguments here (bad_args before any ask)
    const preview = toolset.preview?.(tool, args);
    if (preview) {
      facts.access = preview.access;
      facts.accessReason = preview.accessReason;
      return { toolset, tool, facts, confined, preview };
    }
    return { toolset, tool, facts, confined };
  }

  /**
   * What "allow for this session" covers: exactly what asked. A shell line that asked only
   * because of a path (`cat .env`) gets that path; otherwise each step's program (and
   * subcommand) with the argument rules it was asked with, so a later use of the program with
   * another flag or path that needs a human still asks.
   */
  #scopeOf(p: Prepared, d: Decision): SessionAllow[] {
    const axis = axisOf(p.facts.toolset, p.facts.tool);
    if (axis === 'files.read' || axis === 'files.write') {
      return p.confined.length ? p.confined.map((c) => ({ kind: 'file', axis, path: c.rel })) : [];
    }
    if (axis === 'shell') {
      const sh = p.facts.shell;
      // a line whose programs cannot all be seen gets no session option: it would be blanket
      if (!sh || sh.opaque !== undefined) return [];
      const files: SessionAllow[] = (p.approve ?? []).map((path) => ({ kind: 'file', axis: 'files.read', path }));
      if (d.pathOnly && files.length) return files;
      const runs = sh.steps.filter((s) => s.argv.length && s.argv[0] !== 'cd');
      const out: SessionAllow[] = [...files];
      for (const s of runs) {
        const sc = commandScope(s.inner ?? s.argv, s.notes?.map((n) => n.rule));
        if (sc === null) return [];
        if (!out.some((o) => describeAllow(o) === describeAllow(sc))) out.push(sc);
      }
      return out;
    }
    return [{ kind: 'tool', tool: `${p.facts.toolset}.${p.facts.tool}` }];
  }

  #covered(p: Prepared, d: Decision): boolean {
    const axis = axisOf(p.facts.toolset, p.facts.tool);
    if (axis === 'files.read' || axis === 'files.write') {
      return p.confined.length > 0 && p.confined.every((c) => this.session.hasFile(axis, c.rel));
    }
    if (axis === 'shell') {
      const needs = this.#scopeOf(p, d);
      return needs.length > 0 && needs.every((n) => this.session.covers(n));
    }
    return this.session.hasTool(`${p.facts.toolset}.${p.facts.tool}`);
  }

  /**
   * The envelope's decision, and for a shell call with `shell.sandbox = "auto"` and no working
   * sandbox, a prefix-allowlist allow turned into an ask (it relies on the sandbox).
   */
  #decide(p: Prepared): Decision {
    // the built-in read-approve list asks for shell lines in every envelope, as for the file tools
    const decision = p.approve ? withReadApprove(decide(this.envelope, p.facts), p.approve) : decide(this.envelope, p.facts);
    if (!(p.toolset instanceof LocalShell)) return decision;
    const { mode, network } = envelopeSandbox(this.envelope.resolved.shell);
    return withoutSandbox(decision, mode, p.toolset.sandboxState(mode, network));
  }

  /**
   * A shell call's sandbox: the envelope's settings, the profile its decision and
   * approval give, and the read-approve files its approval named (left visible).
   */
  #sandboxCall(p: Prepared, decision: Decision, approvedBy: ApprovedBy | undefined): SandboxCall {
    const { mode, network } = envelopeSandbox(this.envelope.resolved.shell);
    const named = approvedBy === 'human' || approvedBy === 'human-session' || approvedBy === 'yes';
    const visible = named ? [...new Set((p.facts.absolute ?? []).filter((a) => defaultPathMatcher.classify(a) === 'read_approve'))] : [];
    return { mode, network, profile: profileFor(decision, approvedBy !== undefined), ...(visible.length ? { visible } : {}) };
  }

  /** What the envelope says about a call, without asking or running (`cxl check`, dry runs). */
  async evaluate(name: string, args: Record<string, unknown> = {}): Promise<Evaluation> {
    const p = await this.#prepare(name, args);
    const decision = this.#decide(p);
    // the always-ask tier is asked every time: no session allow covers it, none is offered
    const sessionable = decision.action === 'approve' && decision.rule !== 'always_ask';
    return { toolset: p.facts.toolset, tool: p.tool, facts: p.facts, decision, sessionScope: sessionable ? this.#scopeOf(p, decision) : [], coveredBySession: sessionable && this.#covered(p, decision) };
  }

  /** Runs one call through the whole pipeline. Refusals throw ToolError with a stable code. */
  async call(name: string, args: Record<string, unknown> = {}, opts: { signal?: AbortSignal } = {}): Promise<GateResult> {
    let p: Prepared;
    try {
      p = await this.#prepare(name, args);
    } catch (err) {
      throw toToolError(err);
    }
    const decision = this.#decide(p);
    const qualified = p.tool === p.facts.toolset ? p.tool : `${p.facts.toolset}.${p.tool}`;
    if (decision.action === 'deny') {
      throw new ToolError('envelope_denied', `${qualified} was denied by the session envelope: ${decision.sentence}. Do without it, or ask the user to change the envelope.`, {
        rule: decision.rule,
        envelope: decision.envelope,
        matched: decision.matched,
      });
    }
    let approvedBy: ApprovedBy | undefined;
    let approvedMode: number | undefined;
    if (decision.action === 'approve') {
      if (decision.rule !== 'always_ask' && this.#covered(p, decision)) approvedBy = 'session';
      else if (this.#opts.autoApprove) approvedBy = 'yes';
      else if (!this.#opts.approver) {
        throw new ToolError('approval_required', `${qualified} needs a human's approval (${decision.sentence}) and nobody can answer here. Rerun with --yes to approve it, or choose an envelope that allows it.`, {
          rule: decision.rule,
          envelope: decision.envelope,
        });
      } else {
        const current = await this.#contractFirst(p);
        const req = await this.#request(p, args, decision, current);
        approvedBy = await this.#ask(req, opts.signal);
        if (req.fileMode !== undefined) approvedMode = parseInt(req.fileMode, 8);
      }
    }
    const ts = p.toolset;
    const run = () =>
      ts instanceof LocalFsToolset
        ? ts.call(p.tool, args, { signal: opts.signal, approvedMode })
        : ts instanceof LocalShell
          ? ts.call(p.tool, args, {
              signal: opts.signal,
              sandbox: this.#sandboxCall(p, decision, approvedBy),
              // allowed as read-only with nobody asked: no shell, git with repository-driven
              // execution off; approved: what needed the approval (a read-approve path) may run
              readOnly: decision.action === 'allow' && decision.rule === 'shell.prefix_allowlist',
              approved: approvedBy !== undefined,
            })
          : ts.call(p.tool, args, { signal: opts.signal });
    try {
      const result = await this.#als.run({ approved: approvedBy !== undefined }, run);
      return approvedBy ? { result, decision, approvedBy } : { result, decision };
    } finally {
      // a command or another toolset's tool may have made new names for files (`ln`, `tar x`):
      // hard links are looked up afresh (local_fs itself never makes a link)
      if (!(ts instanceof LocalFsToolset)) identitiesChanged();
    }
  }

  /**
   * A write the read-before-write contract will refuse (never read, only a range for
   * write_file, changed since read) is refused before a human is asked about it. Returns what it
   * read, for the approval diff to use rather than reading the file again.
   */
  async #contractFirst(p: Prepared): Promise<FileSnapshot | undefined> {
    if (!(p.toolset instanceof LocalFsToolset) || axisOf('local_fs', p.tool) !== 'files.write') return undefined;
    const c = p.confined[0];
    if (!c || !c.exists) return undefined;
    const needFull = p.tool === 'write_file';
    if (!p.toolset.ledger.get(c.real)) p.toolset.ledger.check(c.real, '', needFull, c.rel); // throws not_read
    let snap: FileSnapshot;
    try {
      snap = await p.toolset.io.read(c, { maxBytes: DIFF_MAX_BYTES, hashing: true });
    } catch {
      return undefined; // unreadable here: the tool gives the precise error after the answer
    }
    p.toolset.ledger.check(c.real, snap.sha256, needFull, c.rel);
    return snap;
  }

  async #request(p: Prepared, args: Record<string, unknown>, decision: Decision, current?: FileSnapshot): Promise<ApprovalRequest> {
    const qualified = p.tool === p.facts.toolset ? p.tool : `${p.facts.toolset}.${p.tool}`;
    const spec = p.toolset.list().find((s) => s.name === p.tool);
    const req: ApprovalRequest = {
      id: await approvalId(),
      toolset: p.facts.toolset,
      tool: p.tool,
      title: qualified,
      kind: spec?.kind ?? 'other',
      args,
      decision,
      locations: p.confined.map((c) => c.rel),
      sessionScope: decision.rule === 'always_ask' ? [] : this.#scopeOf(p, decision),
      timeoutMs: decision.timeoutMs ?? this.#opts.defaultTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
    };
    if (p.confined.length) req.title = `${qualified}: ${p.confined[0].rel}`;
    if (p.approve?.length) req.locations = p.approve;
    if (p.toolset instanceof LocalFsToolset && axisOf('local_fs', p.tool) === 'files.write' && p.confined.length) {
      req.diff = await buildApprovalDiff(p.toolset.io, p.confined[0], p.tool as MutatingTool, args, current);
      if (decision.rule === 'always_ask') {
        const st = fs.lstatSync(p.confined[0].real, { throwIfNoEntry: false });
        if (st?.isFile() && (st.mode & 0o7111) !== 0) {
          req.fileMode = `0${(st.mode & 0o7777).toString(8)}`;
          req.title += ` (mode ${req.fileMode}, executable: kept if you allow)`;
        }
      }
    }
    if (p.preview) {
      req.title = `${qualified}: ${p.preview.title}`;
      req.detail = p.preview.detail;
    }
    if (p.steps) {
      req.steps = p.steps;
      req.title = `${qualified}: ${String(args.command ?? '')}${Array.isArray(args.args) ? ` ${displayArgv(args.args.map(String))}` : ''}`;
    }
    return req;
  }

  /** Asks, with the timeout; returns how it was approved or throws the rejection. */
  async #ask(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovedBy> {
    const ac = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<'timeout' | 'aborted'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), req.timeoutMs);
      if (signal) {
        onAbort = () => resolve('aborted');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    let answer: ApprovalAnswer | 'timeout' | 'aborted';
    try {
      answer = await Promise.race([Promise.resolve().then(() => this.#opts.approver!(req, ac.signal)), stop]);
    } catch (err) {
      ac.abort();
      throw new ToolError('internal', `Asking for approval of ${req.title} failed (${err instanceof Error ? err.message : String(err)}); it counts as rejected.`);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
    if (answer === 'aborted') {
      ac.abort();
      throw new ToolError('cancelled', `${req.title} was cancelled while waiting for approval.`);
    }
    if (answer === 'timeout') {
      ac.abort();
      throw new ToolError('approval_required', `Nobody answered the approval request for ${req.title} within ${Math.round(req.timeoutMs / 1000)}s, so it counts as rejected. Ask the user, or do without it.`, {
        timedOut: true,
        rule: req.decision.rule,
      });
    }
    switch (answer.outcome) {
      case 'allow_once':
        return 'human';
      case 'allow_session':
        if (req.sessionScope.length === 0) return 'human'; // nothing scoped to remember: counts once
        for (const s of req.sessionScope) this.session.add(s);
        return 'human-session';
      case 'reject':
        throw new ToolError('rejected', `The user rejected ${req.title}.${answer.reason ? ` Their reason: ${answer.reason}` : ' Do not retry it unchanged.'}`, answer.reason ? { reason: answer.reason } : undefined);
      case 'cancelled':
        throw new ToolError('cancelled', `The approval request for ${req.title} was cancelled.`);
      default:
        throw new ToolError('internal', `The approver answered ${JSON.stringify(answer)}, which is not an answer.`);
    }
  }
}

// nanoid loads node:crypto (~5 ms of a cold start); only a call that asks needs an id
const approvalId = async (): Promise<string> => (await import('nanoid')).nanoid();

/** `cxl check`'s decision on an allowed line: the same facts the gate builds (shell/envelope_facts.ts). */
export { shellDecision } from './shell_facts.ts';
