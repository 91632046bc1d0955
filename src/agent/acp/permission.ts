// The permission request: the gate's approval request (a call the envelope says to ask about)
// as ACP session/request_permission (the call, its diff or the steps it runs, the envelope's
// decision, cxl's four options) and the option the user picked back as the gate's answer. One
// per tool call, handed to the gate as that call's approver.
import * as acp from '@agentclientprotocol/sdk';
import { describeAllow } from '../../core/gate/session_allows.ts';
import { META_DECISION, META_STEPS, OPTION_ALLOW_ONCE, OPTION_ALLOW_SESSION, OPTION_REJECT, OPTION_REJECT_EXPLAIN, type DecisionMeta, type StepsMeta } from '../../core/protocol_names.ts';
import type { ApprovalAnswer, ApprovalRequest } from '../tools/contract.ts';
import { cutNote, diffContent, locationsAt, textContent, type ChangeShown } from './tool_report.ts';

/** The call being asked about, as its tool_call update showed it. */
export interface AskedCall {
  client: acp.AgentContext;
  sessionId: string;
  toolCallId: string;
  /** the tool's programmatic name, as the tool_call carried it */
  name: string;
  title: string;
  kind: acp.ToolKind;
  locations: acp.ToolCallLocation[];
  args: Record<string, unknown>;
  /** the session root, which the diff's path is relative to */
  cwd: string;
  /** the turn's: a cancelled turn cancels the request */
  signal: AbortSignal;
}

/** The change an approval shows, as the call's report names it. */
function changeOf(req: ApprovalRequest): ChangeShown | undefined {
  const d = req.diff;
  if (!d || d.diff === null || d.newText === undefined) return undefined;
  return { path: d.path, oldText: d.isNew ? null : (d.oldText ?? ''), newText: d.newText, ...(d.startLine !== undefined ? { startLine: d.startLine } : {}), ...(d.cut ? { cut: true } : {}) };
}

/** What the request shows besides the call: the diff, the mode a write keeps, the steps, the details, else the arguments. */
function approvalContent(req: ApprovalRequest, cwd: string): { content: acp.ToolCallContent[]; diff?: acp.ToolCallContent[] } {
  const content: acp.ToolCallContent[] = [];
  const d = req.diff;
  const change = changeOf(req);
  let diff: acp.ToolCallContent[] | undefined;
  if (change) {
    const note = cutNote(change);
    diff = [diffContent(cwd, change), ...(note ? [note] : [])];
    content.push(...diff);
  } else if (d && d.reason) content.push(textContent(`(no diff: ${d.reason})`));
  if (req.fileMode) content.push(textContent(`The file is executable (mode ${req.fileMode}); allowing keeps that mode.`));
  // the programs a line runs, when that says more than the line itself (the title has it)
  const line = typeof req.args.command === 'string' ? req.args.command.trim() : undefined;
  if (req.steps?.length && !(req.steps.length === 1 && req.steps[0] === line)) content.push(textContent(`Will run:\n${req.steps.map((x) => `  ${x}`).join('\n')}`));
  if (req.detail?.length) content.push(textContent(req.detail.join('\n')));
  if (!d && !req.steps?.length && !req.detail?.length) content.push(textContent(JSON.stringify(req.args, null, 2)));
  return { content, ...(diff ? { diff } : {}) };
}

/** Allow once, allow for this session (only when there is a scope to remember), reject, reject and explain. */
function permissionOptions(req: ApprovalRequest, scope: string): acp.PermissionOption[] {
  return [
    { optionId: OPTION_ALLOW_ONCE, name: 'Allow once', kind: 'allow_once' },
    ...(req.sessionScope.length ? [{ optionId: OPTION_ALLOW_SESSION, name: `Allow for this session (${scope})`, kind: 'allow_always' as const }] : []),
    { optionId: OPTION_REJECT, name: 'Reject', kind: 'reject_once' },
    { optionId: OPTION_REJECT_EXPLAIN, name: 'Reject and tell the agent why', kind: 'reject_once' },
  ];
}

function decisionMeta(req: ApprovalRequest, scope: string): DecisionMeta {
  const expires = Number.isFinite(req.timeoutMs) ? { expiresAt: new Date(Date.now() + req.timeoutMs).toISOString() } : {};
  return { rule: req.decision.rule, reason: req.decision.sentence, envelope: req.decision.envelope, ...(scope ? { scope } : {}), ...expires };
}

/** Asks the client about one call; remembers what the answer means for the call's report. */
export class PermissionRequest {
  /** the diff the user was shown (and its note): the call's result shows the same one */
  diffShown?: acp.ToolCallContent[];
  /** the call's locations as the approval named them (the changed file at its first changed line) */
  locationsShown?: acp.ToolCallLocation[];
  /** the user rejected and will say why in the next prompt: the turn ends after this call */
  explain = false;

  constructor(private readonly call: AskedCall) {}

  /** The gate's approver for this call. */
  readonly approve = async (req: ApprovalRequest, askSignal: AbortSignal): Promise<ApprovalAnswer> => {
    const c = this.call;
    const { content, diff } = approvalContent(req, c.cwd);
    if (diff) this.diffShown = diff;
    const change = changeOf(req);
    const locations = change ? locationsAt(c.cwd, c.locations, change) : c.locations;
    if (change) this.locationsShown = locations;
    const steps: Record<string, StepsMeta> = req.steps?.length ? { [META_STEPS]: req.steps } : {};
    const scope = req.sessionScope.map(describeAllow).join(', ');
    const both = AbortSignal.any([c.signal, askSignal]);
    let res: acp.RequestPermissionResponse;
    try {
      res = await c.client.request(
        acp.methods.client.session.requestPermission,
        {
          sessionId: c.sessionId,
          toolCall: { toolCallId: c.toolCallId, name: c.name, title: c.title, kind: c.kind, status: 'pending', content, locations, rawInput: c.args, _meta: { [META_DECISION]: decisionMeta(req, scope), ...steps } },
          options: permissionOptions(req, scope),
        },
        { cancellationSignal: both },
      );
    } catch (err) {
      if (both.aborted) return { outcome: 'cancelled' };
      throw err;
    }
    if (c.signal.aborted || res.outcome.outcome === 'cancelled') return { outcome: 'cancelled' };
    return this.#answer(res.outcome.optionId);
  };

  #answer(optionId: string): ApprovalAnswer {
    if (optionId === OPTION_ALLOW_SESSION) return { outcome: 'allow_session' };
    if (optionId === OPTION_ALLOW_ONCE) return { outcome: 'allow_once' };
    if (optionId === OPTION_REJECT_EXPLAIN) {
      this.explain = true;
      return { outcome: 'reject', reason: 'the user will say why in their next message' };
    }
    return { outcome: 'reject' };
  }
}
