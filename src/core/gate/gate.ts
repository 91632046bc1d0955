// The one pipeline every tool call passes (docs/local-shell.md, docs/config.md "Envelopes", docs/local-fs.md "Approval diff"):
//   the name resolved once → the toolset's plan (bad_args, tools_policies and confinement refuse
//   here, never shown to anyone) → the decision (decision.ts: allow / approve / deny) → for
//   approve: covered by the session, approved by --yes, refused when nobody can answer, or asked
//   with the plan's approval view (the diff or the command's steps) → the human's answer (allow
//   once, allow for this session with its scope, reject, reject with a reason) → the plan's run,
//   which may ask again what only running finds out.
// Nothing here knows one toolset from another: each answers the contract (core/contract/toolset.ts).
// The approver is injected, per gate or per call: the ACP agent, the TUI and `cxl tool --yes` each bring their own.
import { ToolError, toToolError } from '../errors.ts';
import type { CallFacts, CompiledEnvelope, Decision } from '../envelope/index.ts';
import type { ApprovalDiff, ApprovalView, ApprovedBy, CallPlan, EffectRecorder, PlanContext, RunContext, RunQuestion, RunReports, Toolset } from '../contract/toolset.ts';
import { identitiesChanged } from '../protect/identity.ts';
import { qualified, schemaPlan } from '../contract/schema_plan.ts';
import type { ToolKind, ToolSpec } from '../tool.ts';
import { decideCall, type CallVerdict } from './decision.ts';
import { SessionAllows, type SessionAllow } from './session_allows.ts';

export type { ApprovalDiff, ApprovedBy, CallVerdict };
export { decideCall } from './decision.ts';

/**
 * How long an ask waits when the envelope names no timeout: until it is answered. A person who
 * steps away finds the question still there, not a rejection they never made (an unattended
 * unit's asks have their own default, units/lifecycle.ts).
 */
export const DEFAULT_ASK_TIMEOUT_MS = Infinity;

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
  /** for a toolset that says what a request sends (remote tools): the method, URL, body */
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
  /** the ask resolves as a rejection after this long (Infinity: an ask configured to wait `never`) */
  timeoutMs: number;
}

export type ApprovalAnswer =
  | { outcome: 'allow_once' }
  | { outcome: 'allow_session' }
  | { outcome: 'reject'; reason?: string }
  | { outcome: 'cancelled' }
  /** nobody answered within the ask's timeout (an approver that keeps its own time says so) */
  | { outcome: 'expired' };

export interface Approver {
  (req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  /**
   * The approver enforces `req.timeoutMs` itself and answers `expired` (a durable ask records
   * its own expiry exactly once, against an answer that may race it): the gate sets no timer.
   */
  keepsTime?: boolean;
}

export interface GateResult {
  result: unknown;
  decision: Decision;
  approvedBy?: ApprovedBy;
}

export interface Evaluation extends CallVerdict {
  toolset: string;
  tool: string;
  facts: CallFacts;
  /** for an approve: what "allow for this session" would cover */
  sessionScope: SessionAllow[];
  /** the session already allowed it */
  coveredBySession: boolean;
}

export interface GateOptions {
  envelope: CompiledEnvelope;
  /** asks a human; absent = nobody can answer, approve refuses with approval_required (a call may bring its own) */
  approver?: Approver;
  /** approve counts as allow-once without asking (`cxl tool --yes`); deny still denies */
  autoApprove?: boolean;
  /** what a call that needs approval is told when nobody can answer, after why (default: rerun with --yes) */
  nobodyHint?: string;
  /** the session's scoped allows (restored from the session store when resuming) */
  session?: SessionAllows;
  defaultTimeoutMs?: number;
  toolsets?: Toolset[];
  /** the workspace root words of a command resolve from when its policy names no dir (default: the shell's own root) */
  root?: string;
  /** the session's checkpoints: every plan with effects is recorded through them (absent: nothing is) */
  effects?: EffectRecorder;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** a person's own direct command, not the model's call (RunContext.direct) */
  direct?: true;
  /** who answers this call's asks (the agent brings one per call); default: the gate's */
  approver?: Approver;
  /** what the call reports while it runs (RunContext.reports) */
  reports?: RunReports;
}

/** One call on its way through: its toolset, its tool's spec, and the toolset's plan of it. */
interface Planned {
  toolset: Toolset;
  tool: string;
  spec: ToolSpec | undefined;
  plan: CallPlan;
}

/** How an approve was answered: who let it through, and what a human saw when one was asked. */
interface Answered {
  approvedBy?: ApprovedBy;
  shown?: ApprovalView;
}

export class Gate {
  readonly session: SessionAllows;
  envelope: CompiledEnvelope;
  readonly #opts: GateOptions;
  readonly #toolsets = new Map<string, Toolset>();

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

  /** The toolset's plan (a toolset with none gets its schema's). Throws the refusals. */
  async #plan(name: string, args: Record<string, unknown>, askable: boolean): Promise<Planned> {
    const { toolset, tool } = this.resolveName(name);
    const ctx: PlanContext = { envelope: this.envelope, askable, ...(this.#opts.root !== undefined ? { root: this.#opts.root } : {}) };
    const plan = toolset.plan ? await toolset.plan(tool, args, ctx) : schemaPlan(toolset, tool, args);
    return { toolset, tool, spec: toolset.list().find((s) => s.name === tool), plan };
  }

  /** What "allow for this session" covers for this decision: the paths alone when only they asked. */
  #scope(p: Planned, d: Decision): SessionAllow[] {
    const s = p.plan.scope;
    return [...(d.pathOnly && s.paths?.length ? s.paths : s.whole)];
  }

  #covers(scope: readonly SessionAllow[]): boolean {
    return scope.length > 0 && scope.every((n) => this.session.covers(n));
  }

  /** What the envelope says about a call, without asking or running (`cxl check`, dry runs). */
  async evaluate(name: string, args: Record<string, unknown> = {}): Promise<Evaluation> {
    const p = await this.#plan(name, args, this.#askable(this.#opts.approver));
    const v = decideCall(this.envelope, p.plan);
    const scope = v.sessionable ? this.#scope(p, v.decision) : [];
    return { ...v, toolset: p.toolset.name, tool: p.tool, facts: p.plan.facts, sessionScope: scope, coveredBySession: v.sessionable && this.#covers(scope) };
  }

  /** Runs one call through the whole pipeline. Refusals throw ToolError with a stable code. */
  async call(name: string, args: Record<string, unknown> = {}, opts: CallOptions = {}): Promise<GateResult> {
    const approver = opts.approver ?? this.#opts.approver;
    let p: Planned;
    try {
      p = await this.#plan(name, args, this.#askable(approver));
    } catch (err) {
      throw toToolError(err);
    }
    const v = decideCall(this.envelope, p.plan);
    if (v.decision.action === 'deny') throw denied(p, v.decision);
    const answer: Answered = v.decision.action === 'approve' ? await this.#approve(p, v, args, approver, opts.signal) : {};
    try {
      const ask = this.#runAsk(answer.approvedBy, approver, opts.signal, p.toolset.name);
      const result = await this.#run(p.plan, { signal: opts.signal, decision: v.decision, readOnly: v.readOnly, ...answer, ask, ...(opts.direct ? { direct: true as const } : {}), ...(opts.reports ? { reports: opts.reports } : {}) });
      return answer.approvedBy ? { result, decision: v.decision, approvedBy: answer.approvedBy } : { result, decision: v.decision };
    } finally {
      // a command or another toolset's tool may have made new names for files (`ln`, `tar x`):
      // hard links are looked up afresh
      if (!p.plan.keepsNames) identitiesChanged();
    }
  }

  /**
   * Runs a decided plan: the one place checkpoints meet a call. A plan that changes the files it
   * names records each write (the content it replaces in hand); one that may change any file is
   * compared around; one with no effects costs nothing.
   */
  #run(plan: CallPlan, rc: RunContext): Promise<unknown> {
    const rec = this.#opts.effects;
    if (!rec || plan.effects === 'none') return plan.run(rc);
    if (plan.effects === 'files') return plan.run({ ...rc, writes: rec });
    return rec.around(() => plan.run(rc));
  }

  /** Whether an ask can be answered here (a human, or --yes). */
  #askable(approver: Approver | undefined): boolean {
    return approver !== undefined || this.#opts.autoApprove === true;
  }

  /**
   * An approve: covered by the session, approved by --yes, refused when nobody can answer, or
   * asked with the plan's approval view. Returns who approved and what the human saw.
   */
  async #approve(p: Planned, v: CallVerdict, args: Record<string, unknown>, approver: Approver | undefined, signal: AbortSignal | undefined): Promise<Answered> {
    const { decision } = v;
    const scope = v.sessionable ? this.#scope(p, decision) : [];
    if (v.sessionable && this.#covers(scope)) return { approvedBy: 'session' };
    if (this.#opts.autoApprove) return { approvedBy: 'yes' };
    if (!approver) {
      throw new ToolError('approval_required', `${qualified(p.toolset.name, p.tool)} needs a human's approval (${decision.sentence}) and nobody can answer here. ${this.#opts.nobodyHint ?? 'Rerun with --yes to approve it, or choose an envelope that allows it.'}`, {
        rule: decision.rule,
        envelope: decision.envelope,
      });
    }
    const shown = await p.plan.approval({ decision, alwaysAsk: v.alwaysAsk });
    const approvedBy = await this.#ask(await this.#request(p, args, decision, shown, scope), approver, signal);
    return { approvedBy, shown };
  }

  async #request(p: Planned, args: Record<string, unknown>, decision: Decision, view: ApprovalView, scope: SessionAllow[]): Promise<ApprovalRequest> {
    return {
      id: await approvalId(),
      toolset: p.toolset.name,
      tool: p.tool,
      title: view.title,
      kind: p.spec?.kind ?? 'other',
      args,
      decision,
      ...(view.diff ? { diff: view.diff } : {}),
      ...(view.steps ? { steps: view.steps } : {}),
      ...(view.detail ? { detail: view.detail } : {}),
      ...(view.fileMode !== undefined ? { fileMode: view.fileMode } : {}),
      locations: [...p.plan.locations],
      sessionScope: scope,
      timeoutMs: decision.timeoutMs ?? this.#opts.defaultTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
    };
  }

  /**
   * How a running call's own questions are answered (a path on the built-in read-approve list the
   * plan could not see): yes when this call was already approved here or the session covers it
   * (an envelope that allows it does not silence the list), else asked of the approver.
   */
  #runAsk(approvedBy: ApprovedBy | undefined, approver: Approver | undefined, signal: AbortSignal | undefined, toolset: string): (q: RunQuestion) => Promise<boolean> {
    return async (q) => {
      if (approvedBy !== undefined && !q.again) return true;
      if (this.#covers(q.scope)) return true;
      if (this.#opts.autoApprove) return true;
      if (!approver) throw new ToolError('approval_required', q.refusal);
      const decision: Decision = { action: 'approve', rule: q.rule, envelope: this.envelope.name, from: 'built-in', sentence: q.sentence };
      const req: ApprovalRequest = {
        id: await approvalId(),
        toolset,
        tool: q.tool,
        title: q.title,
        kind: q.kind,
        args: q.args,
        decision,
        locations: q.locations,
        sessionScope: q.scope,
        timeoutMs: this.#opts.defaultTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
      };
      await this.#ask(req, approver, signal); // a rejection throws
      return true;
    };
  }

  /** Asks, with the timeout; returns how it was approved or throws the rejection. */
  async #ask(req: ApprovalRequest, approver: Approver, signal?: AbortSignal): Promise<ApprovedBy> {
    const ac = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<'timeout' | 'aborted'>((resolve) => {
      // a timer past 2^31-1 ms fires at once: a longer wait (`never`) has none
      if (!approver.keepsTime && req.timeoutMs <= 2 ** 31 - 1) timer = setTimeout(() => resolve('timeout'), req.timeoutMs);
      if (signal) {
        onAbort = () => resolve('aborted');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    let answer: ApprovalAnswer | 'timeout' | 'aborted';
    try {
      answer = await Promise.race([Promise.resolve().then(() => approver(req, ac.signal)), stop]);
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
    if (answer === 'timeout' || (typeof answer === 'object' && answer.outcome === 'expired')) {
      ac.abort();
      throw new ToolError('approval_required', `Nobody answered the approval request for ${req.title} within ${waited(req.timeoutMs)}, so it counts as rejected. Ask the user, or do without it.`, {
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

/** An ask's wait in words: `90s`, `30m`. */
function waited(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 120 && s % 60 === 0 ? `${s / 60}m` : `${s}s`;
}

/** The refusal of a call the envelope denies. */
function denied(p: Planned, d: Decision): ToolError {
  return new ToolError('envelope_denied', `${qualified(p.toolset.name, p.tool)} was denied by the session envelope: ${d.sentence}. Do without it, or ask the user to change the envelope.`, {
    rule: d.rule,
    envelope: d.envelope,
    matched: d.matched,
  });
}

// nanoid loads node:crypto (~5 ms of a cold start); only a call that asks needs an id
const approvalId = async (): Promise<string> => (await import('nanoid')).nanoid();
