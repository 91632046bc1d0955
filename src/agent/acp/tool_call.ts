// One tool call of a prompt turn as the client sees it: announced (title, kind, locations, the
// input), checked, run through the gate with a permission request as its approver, its terminals
// shown as they open, and its result reported and kept for the replay (where a transcript stands
// in for the terminals, which are gone by then).
import type * as acp from '@agentclientprotocol/sdk';
import type { ToolError } from '../../core/errors.ts';
import { qualifiedName, type ToolSpec } from '../../core/tool.ts';
import { checkCall, runChecked, type CallOutcome } from '../loop/model_call.ts';
import { PermissionRequest } from './permission.ts';
import type { ApprovalAnswer } from '../../core/gate/gate.ts';
import { META_ASKED } from '../../core/protocol_names.ts';
import type { LiveSession } from './session.ts';
import { callView, cutNote, diffContent, locationsAt, textContent } from './tool_report.ts';
import type { ToolOutput } from '../tools/contract.ts';

/** What a call needs of the turn it runs in. */
export interface CallTurn {
  readonly session: LiveSession;
  readonly client: acp.AgentContext;
  readonly signal: AbortSignal;
  send(update: acp.SessionUpdate): Promise<void>;
  /** what the turn said so far goes into the replay, before the call that follows it */
  keepSaid(): void;
  log(msg: string): void;
}

const RAW_OUTPUT_MAX = 64 * 1024;

const EXPLAIN = JSON.stringify({ code: 'rejected', error: 'The user rejected this call and will say why in their next message. Stop here and wait for it.' });

/** The call as every update about it names it. */
interface Shown {
  toolCallId: string;
  /** the tool's programmatic name (`local_fs.read_file`, `local_shell`, `server.tool`), which clients' permission rules match */
  name: string;
  title: string;
  kind: acp.ToolKind;
  locations: acp.ToolCallLocation[];
  rawInput: Record<string, unknown>;
}

/** The call's updates: announced, its terminals as they open, its final state (kept for the replay too). */
class ReportedCall {
  readonly terminals: acp.ToolCallContent[] = [];

  constructor(
    private readonly turn: CallTurn,
    /** updated as the call goes (a change moves its location to the first changed line) */
    readonly shown: Shown,
  ) {}

  announce(): Promise<void> {
    const { toolCallId, name, title, kind, locations, rawInput } = this.shown;
    return this.turn.send({ sessionUpdate: 'tool_call', toolCallId, name, title, kind, status: 'pending', locations, rawInput });
  }

  running(): Promise<void> {
    return this.turn.send({ sessionUpdate: 'tool_call_update', toolCallId: this.shown.toolCallId, status: 'in_progress' });
  }

  readonly onTerminal = async (terminalId: string): Promise<void> => {
    this.terminals.push({ type: 'terminal', terminalId });
    await this.turn.send({ sessionUpdate: 'tool_call_update', toolCallId: this.shown.toolCallId, content: [...this.terminals] });
  };

  /** The person was asked about the call: its replay shows it as the live screen did after the answer (collapsed). */
  asked = false;

  /** The replay has no terminals (they are gone): `replayContent` stands in for them. */
  final(status: 'completed' | 'failed', content: acp.ToolCallContent[], rawOutput?: unknown, replayContent: acp.ToolCallContent[] = content.filter((c) => c.type !== 'terminal')): Promise<void> {
    const { toolCallId, name, title, kind, locations, rawInput } = this.shown;
    this.turn.keepSaid();
    this.turn.session.stored.replay.push({ sessionUpdate: 'tool_call', toolCallId, name, title, kind, status, locations, rawInput, content: replayContent, ...(this.asked ? { _meta: { [META_ASKED]: true } } : {}) });
    return this.turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status, content, locations, ...(rawOutput !== undefined ? { rawOutput: rawOutput as Record<string, unknown> } : {}) });
  }

  async failed(e: ToolError, content: acp.ToolCallContent[]): Promise<void> {
    await this.final('failed', content, e.toJSON());
  }

  /**
   * The result: the terminals, the diff (the one approved, else the one the tool reports, so a
   * change allowed unasked shows what changed too), the text the model reads. A change moves the
   * call's location to its first changed line.
   */
  async completed({ result, forModel, display }: ToolOutput, shown: { diff?: acp.ToolCallContent[]; locations?: acp.ToolCallLocation[] }, cwd: string): Promise<void> {
    const content: acp.ToolCallContent[] = [...this.terminals];
    const d = display.diff;
    if (shown.diff) content.push(...shown.diff);
    else if (d) {
      const note = cutNote(d);
      content.push(diffContent(cwd, d), ...(note ? [note] : []));
    }
    const locations = shown.locations ?? (d ? locationsAt(cwd, this.shown.locations, d) : undefined);
    if (locations) this.shown.locations = locations;
    content.push(textContent(forModel));
    // rawOutput repeats the result for clients that want structure: only objects, and only small ones
    // (a 10 MB file is already in the text content, capped)
    const raw = typeof result === 'object' && result !== null && forModel.length <= RAW_OUTPUT_MAX ? result : undefined;
    const transcript = this.terminals.length ? display.transcript : undefined;
    await this.final('completed', content, raw, transcript === undefined ? undefined : [...content.filter((c) => c.type === 'diff'), textContent(transcript)]);
  }
}

/** A tool as clients' rules name it: qualified by its toolset unless the toolset is the tool. */
function toolName(spec: ToolSpec): string {
  return spec.toolset === spec.name ? spec.name : qualifiedName(spec);
}

/** The id a client sees: the model's own (made safe), else `direct`, numbered within the session. */
function toolCallId(modelCallId: string | undefined, n: number): string {
  return `${modelCallId ? modelCallId.replace(/[^A-Za-z0-9_-]/g, '') || 'call' : 'direct'}-${n}`;
}

/**
 * One reported tool call: announce, check, gate (maybe ask), run, report the result. Never throws
 * for the tool's sake. `direct`: the person typed it (a direct command), the model did not ask for
 * it. `approved`: typing it was its approval too (/mission, as a `!` line's), so the gate's ask is
 * answered yes; what the envelope denies stays denied (the gate asks an approver only where it
 * would ask).
 */
export async function runToolCall(turn: CallTurn, name: string, rawArgs: string | Record<string, unknown>, modelCallId?: string, direct = false, approved = false): Promise<CallOutcome> {
  const s = turn.session;
  const id = toolCallId(modelCallId, ++s.nextCall);
  const checked = checkCall(s.tools.specs(), name, rawArgs);
  const { spec, args } = checked;
  const { title, kind, locations } = callView(s.tools, spec, name, args);
  const shownName = spec ? toolName(spec) : name;
  const call = new ReportedCall(turn, { toolCallId: id, name: shownName, title, kind, locations, rawInput: checked.rawInput });
  await call.announce();
  if (checked.error) {
    await call.failed(checked.error, [textContent(checked.error.message)]);
    return { forModel: JSON.stringify(checked.error.toJSON()), reads: [] };
  }
  await call.running();
  const permission = new PermissionRequest({ client: turn.client, sessionId: s.stored.sessionId, toolCallId: id, name: shownName, title, kind, locations, args, cwd: s.stored.cwd, signal: turn.signal });
  const approve = approved
    ? async (): Promise<ApprovalAnswer> => ({ outcome: 'allow_once' })
    : (...a: Parameters<PermissionRequest['approve']>) => ((call.asked = true), permission.approve(...a));
  const r = await runChecked(s.tools, checked.spec, args, { signal: turn.signal, approve, onTerminal: call.onTerminal, ...(direct ? { direct: true as const } : {}) }, 'Cancelled by the user.', async (out) => {
    await call.completed(out, { diff: permission.diffShown, locations: permission.locationsShown }, s.stored.cwd);
    return out.forModel;
  });
  if (r.ok) return { forModel: r.value, reads: r.reads };
  if (r.crash !== undefined) turn.log(`tool ${name} crashed: ${r.crash}`);
  await call.failed(r.error, [...call.terminals, textContent(`${r.error.code}: ${r.error.message}`)]);
  if (permission.explain) return { forModel: EXPLAIN, stop: true, reads: r.reads };
  return { forModel: JSON.stringify(r.error.toJSON()), reads: r.reads };
}
