// One prompt turn of a live session: the prompt recorded (for the replay and the session's
// title), then a direct command (no model), the answer that no model is configured, or the
// shared model-call step with each call reported through tool_call.ts; at the end the turn's
// notices go out, what it said is kept for the replay, and the session is saved.
import * as acp from '@agentclientprotocol/sdk';
import { modelCall, toolDefinitions } from '../loop/model_call.ts';
import type { StopReason } from '../loop/turn.ts';
import { howToConfigure } from '../providers/select.ts';
import { SERVER_MODEL } from '../providers/openai.ts';
import type { Provider, ProviderError } from '../providers/types.ts';
import { modelName } from '../tools/tool_names.ts';
import os from 'node:os';
import { describeMemory } from '../../config/memory.ts';
import { expandCommand, matchCommand } from '../../config/commands.ts';
import { META_SHELL_CONTEXT } from '../../core/protocol_names.ts';
import { shellContextText } from '../../core/shell_context.ts';
import { DIRECT_HELP, INIT_PROMPT, parseDirect, type DirectCommand } from './direct.ts';
import { promptShown, Transcript, TURN_CANCELLED } from './replay.ts';
import { TurnHeld } from '../sessions/turn_lease.ts';
import { untilAborted } from '../../core/abortable.ts';
import { turnElsewhere } from './errors.ts';
import { parsePlan, PLAN_TOOL, PLAN_TOOL_NAME } from '../loop/plan_tool.ts';
import type { AgentOptions, LiveSession } from './session.ts';
import type { LoadedCommands } from '../../config/commands.ts';
import process from 'node:process';
import { runToolCall, type CallTurn } from './tool_call.ts';
import { unreadableBlock } from './errors.ts';

export type TurnOptions = Pick<AgentOptions, 'provider' | 'providerProblem' | 'systemPrompt' | 'memory' | 'maxTurns' | 'log' | 'fleet' | 'modesFor'>;

/**
 * What goes to the model instead of the prompt as typed: `/init`'s request, a custom command's
 * text with its arguments filled in; undefined: the prompt itself (or a direct command).
 */
function modelText(direct: DirectCommand | undefined, text: string, commands: LoadedCommands): string | undefined {
  if (direct?.kind === 'init') return INIT_PROMPT;
  if (direct) return undefined;
  const hit = matchCommand(text, commands.commands);
  return hit ? expandCommand(hit.command, hit.args) : undefined;
}

/** A text block of commands the person ran in their own shell and their output (cxl's client marks it). */
function isShellContext(b: acp.ContentBlock): boolean {
  return b.type === 'text' && b._meta?.[META_SHELL_CONTEXT] !== undefined && b._meta?.[META_SHELL_CONTEXT] !== null;
}

/** The person's shell output sent with the prompt, as the model reads it before the prompt ('' when none). */
function shellContext(blocks: acp.ContentBlock[]): string {
  return blocks.flatMap((b) => (b.type === 'text' && isShellContext(b) ? [b.text] : [])).join('\n');
}

/**
 * What the model reads of the prompt: the text, links, and attached files' content. The output
 * of commands the person ran in their own shell is not part of it (shellContext), so a command
 * typed after it is still read as one.
 */
function promptText(blocks: acp.ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    if (isShellContext(b)) continue;
    if (b.type === 'text') parts.push(b.text);
    else if (b.type === 'resource_link') parts.push(`[${b.name}](${b.uri})`);
    else if (b.type === 'resource') {
      const r = b.resource as { uri: string; text?: string };
      if (typeof r.text === 'string') parts.push(`<file uri="${r.uri}">\n${r.text}\n</file>`);
      else parts.push(`[binary resource ${r.uri}]`);
    }
  }
  return parts.join('\n');
}

/** Image and audio blocks are refused with the reason: the providers here are sent text, and nothing is dropped unsaid. */
export function refuseUnreadable(blocks: acp.ContentBlock[]): void {
  for (const b of blocks) if (b.type === 'image' || b.type === 'audio') throw unreadableBlock(b.type, b.mimeType);
}

/** The prompt as the model reads it: the person's shell output first, when they sent some. */
function withContext(context: string, text: string): string {
  return context ? `${context}\n\n${text}` : text;
}

/** The turn's output: what the agent says and thinks goes to the client and, joined in runs, to the replay. */
class PromptTurn implements CallTurn {
  /** everything said this turn, so a closing message can start on a line of its own */
  said = '';
  readonly #sessionId: string;
  readonly #transcript: Transcript;

  constructor(
    readonly session: LiveSession,
    readonly client: acp.AgentContext,
    readonly signal: AbortSignal,
    readonly log: (msg: string) => void,
  ) {
    this.#sessionId = session.stored.sessionId;
    this.#transcript = new Transcript(session.stored);
  }

  send(update: acp.SessionUpdate): Promise<void> {
    return this.client.notify(acp.methods.client.session.update, { sessionId: this.#sessionId, update });
  }

  readonly say = async (text: string): Promise<void> => {
    this.said += text;
    this.#transcript.remember('agent_message_chunk', text);
    await this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  };

  readonly think = async (text: string): Promise<void> => {
    this.#transcript.remember('agent_thought_chunk', text);
    await this.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } });
  };

  keepSaid(): void {
    this.#transcript.keep();
  }

  /** update_plan: the plan goes to the client (and into the replay); the model reads a receipt. */
  async updatePlan(raw: string): Promise<string> {
    const plan = parsePlan(raw);
    if ('error' in plan) return JSON.stringify({ code: 'bad_args', error: plan.error });
    const update: acp.SessionUpdate = { sessionUpdate: 'plan', entries: plan };
    this.keepSaid(); // the text before it goes into the replay first
    this.session.stored.replay.push(update);
    await this.send(update);
    return `Plan updated: ${plan.filter((e) => e.status === 'completed').length} of ${plan.length} done.`;
  }

  /** The turn ends the way it stands now: cancelled, or done. */
  ended(): StopReason {
    return this.signal.aborted ? 'cancelled' : 'end_turn';
  }
}

/**
 * The system prompt leads the history, even when direct commands came first, and is the one of
 * now: a memory file (AGENTS.md) changed since the last prompt is read again (one log line).
 */
function leadWithSystemPrompt(o: TurnOptions, s: LiveSession): void {
  const content = o.systemPrompt(s.stored.cwd);
  const first = s.stored.history[0];
  if (first?.role !== 'system') s.stored.history.unshift({ role: 'system', content });
  else if (first.content !== content) s.log.spliceHistory(0, 1, { role: 'system', content });
}

/** `/compact`: not part of the conversation, so the model never sees the command itself. */
async function compactNow(o: TurnOptions, turn: PromptTurn): Promise<StopReason> {
  const s = turn.session;
  leadWithSystemPrompt(o, s);
  const r = await s.context.compact(s.stored.history, toolDefinitions(s.tools), 'manual', turn.signal);
  if (!r) await turn.say('Nothing to compact: no old tool results and no earlier part to summarise.\n');
  return turn.ended();
}

/** A direct command: help, a usage error, or one tool call the user made; the model sees what they did. */
async function runDirect(o: TurnOptions, turn: PromptTurn, direct: DirectCommand, text: string, context: string): Promise<StopReason> {
  if (direct.kind === 'compact') return compactNow(o, turn);
  const s = turn.session;
  if (direct.kind === 'memory') {
    // read now, as the next prompt will: what /memory shows is what the model gets
    const m = o.memory?.(s.stored.cwd);
    await turn.say(`${m ? describeMemory(m.memory, s.stored.cwd, process.env.HOME || os.homedir(), m.names) : 'This agent reads no memory files.'}\n`);
    return turn.ended();
  }
  s.stored.history.push({ role: 'user', content: withContext(context, text) });
  await s.persist(); // the prompt is on disk before anything runs
  if (direct.kind === 'help') await turn.say(`${DIRECT_HELP}\n\nTools: ${s.tools.specs().map(modelName).join(', ')}\n`);
  else if (direct.kind === 'error') await turn.say(`${direct.message}\n`);
  else if (direct.kind === 'mission' && (!o.fleet || !direct.words.length)) await turn.say(`${missionHelp(o, s.stored.cwd, s.stored.mode)}\n`);
  else if (direct.kind === 'shell' || direct.kind === 'tool' || direct.kind === 'mission') {
    const r =
      direct.kind === 'shell'
        ? await runToolCall(turn, 'local_shell', { command: direct.command }, undefined, true)
        : direct.kind === 'mission'
          ? await runToolCall(turn, 'mission_start', missionArgs(o, direct), undefined, true, true)
          : await runToolCall(turn, direct.name, direct.args, undefined, true);
    // the model sees what the user did, so a later prompt can refer to it
    s.stored.history.push({ role: 'assistant', content: `(direct command result) ${r.forModel.slice(0, 8000)}`, ...(r.reads.length ? { reads: r.reads } : {}) });
  }
  return turn.ended();
}

/** /mission as a mission_start call that returns at once: the unit's rows and asks come back through the relay. */
function missionArgs(o: TurnOptions, d: Extract<DirectCommand, { kind: 'mission' }>): Record<string, unknown> {
  const { agent, intent } = o.fleet!.splitAgent(d.words);
  return { intent, ...(agent ? { agent } : {}), ...(d.envelope ? { envelope: d.envelope } : {}), wait: false };
}

/** Bare /mission (or a session that cannot fire one): the grammar, the agents and the envelopes. */
function missionHelp(o: TurnOptions, cwd: string, mode: string): string {
  if (!o.fleet) return 'Mission units cannot be started from this session (this agent was started without a way to run them). Use `cxl mission fire [agent] "<intent>" --wait` in a terminal.';
  const f = o.fleet.o;
  const envelopes = o.modesFor(cwd).modes.map((m) => m.id);
  return [
    'Usage: /mission [--envelope E] [agent] <intent>',
    'Fires an unattended unit here: it plans, works and finishes with a verdict; its plan and reports arrive as rows, its approvals come to you (and wait in `cxl approvals list` once this session is gone).',
    `Agents: ${f.agents.join(', ')} (default: run). Envelope: --envelope, else ${f.defaultEnvelope ? `default_mission_envelope (${f.defaultEnvelope}), no wider than this session's (${mode})` : `this session's (${mode})`}. An envelope you name with --envelope is yours to grant, even a wider one; one this session's model names is at most this session's.`,
    `Envelopes: ${envelopes.join(', ')}. This session's missions.fire decides whether it may fire at all.`,
  ].join('\n');
}

/** The prompt to the model, its answer streamed, its calls run and reported, a failure or the turn limit said. */
async function askModel(o: TurnOptions, provider: Provider, turn: PromptTurn, text: string): Promise<StopReason> {
  const s = turn.session;
  leadWithSystemPrompt(o, s);
  s.stored.history.push({ role: 'user', content: text });
  await s.persist(); // the prompt is on disk before the model is asked
  const res = await modelCall({
    provider,
    history: s.stored.history,
    tools: s.tools,
    extraTools: [PLAN_TOOL],
    context: s.context,
    maxTurns: o.maxTurns,
    signal: turn.signal,
    onText: turn.say,
    onThought: turn.think,
    onNotice: (t) => void s.notice(t).catch(() => {}),
    checkpoint: (c) => s.persist(c),
    // the plan is the client's to show, not a call on this machine
    runCall: async (call) => (call.name === PLAN_TOOL_NAME ? { forModel: await turn.updatePlan(call.arguments), reads: [] } : runToolCall(turn, call.name, call.arguments, call.id)),
  });
  if (res.error !== undefined) await turn.say(`${turn.said && !turn.said.endsWith('\n') ? '\n' : ''}${modelFailure(s, res.error, res.failure)}\n`);
  else if (res.stopReason === 'max_turn_requests') await turn.say(`\n(Stopped after ${o.maxTurns} model requests in one turn. Send another prompt to continue.)\n`);
  return res.stopReason;
}

/**
 * A failed model request in words. When the session's opening check already told the client why
 * no model answers (a notice with the advice), the turn says so in one line rather than print the
 * advice again.
 */
function modelFailure(s: LiveSession, error: string, failure: ProviderError | undefined): string {
  if (!failure || !s.modelSaid) return error;
  if (failure.models?.length) {
    const which = s.provider?.model === SERVER_MODEL ? 'No model is chosen' : `The server has no model \`${s.provider?.model}\``;
    return `${which}: pick one with /model (${failure.models.slice(0, 8).join(', ')}${failure.models.length > 8 ? ', …' : ''}), then send the prompt again.`;
  }
  if (failure.kind === 'unreachable' || failure.kind === 'model_not_found') return `The model did not answer: ${failure.message} The notice when the session opened says how to set one up.`;
  return error;
}

/** The session is named after its first prompt; the client hears the title as `session_info_update`. */
async function nameSession(s: LiveSession, turn: PromptTurn, shown: string): Promise<void> {
  if (s.stored.title) return;
  s.stored.title = shown.replace(/\s+/g, ' ').trim().slice(0, 80);
  if (s.stored.title) await turn.send({ sessionUpdate: 'session_info_update', title: s.stored.title, updatedAt: new Date().toISOString() });
}

/**
 * Runs one prompt on the session, cancelling the turn it replaces; answers with the turn's stop
 * reason. `request` is the prompt request's own signal: a `$/cancel_request` for it cancels the
 * turn as `session/cancel` does.
 */
export async function runPrompt(o: TurnOptions, s: LiveSession, client: acp.AgentContext, blocks: acp.ContentBlock[], request?: AbortSignal): Promise<StopReason> {
  // the turn's cancel exists from the start: a cancel while the lease is awaited (another
  // process's write of it) or other processes' turns are read is honoured, not lost
  const ctrl = new AbortController();
  s.turn?.abort();
  s.turn = ctrl;
  const onCancelRequest = () => ctrl.abort();
  if (request?.aborted) ctrl.abort();
  request?.addEventListener('abort', onCancelRequest, { once: true });
  try {
    // one process runs a turn of a session at a time; a data dir that cannot hold the lease does not stop the turn
    let leased = false;
    const taking = s.lease.take();
    try {
      await untilAborted(taking, ctrl.signal);
      leased = true;
    } catch (err) {
      if (ctrl.signal.aborted) {
        // cancelled before its turn began: nothing of it is kept; a lease that comes later is given back
        taking.then(() => s.lease.release(), () => {});
        return 'cancelled';
      }
      if (err instanceof TurnHeld) throw turnElsewhere(err.message);
      o.log(`turn lease of session ${s.stored.sessionId} not taken: ${String(err)}`);
    }
    try {
      // what other processes added to the session since (their turns): the model sees every turn
      await s.log.refresh();
      return await runTurn(o, s, client, blocks, ctrl);
    } finally {
      if (leased) await s.lease.release();
    }
  } finally {
    request?.removeEventListener('abort', onCancelRequest);
    if (s.turn === ctrl) s.turn = undefined;
  }
}

async function runTurn(o: TurnOptions, s: LiveSession, client: acp.AgentContext, blocks: acp.ContentBlock[], ctrl: AbortController): Promise<StopReason> {
  const turn = new PromptTurn(s, client, ctrl.signal, o.log);
  const text = promptText(blocks);
  // the person's `!line` output: as the client sent it, else (a client that no longer has it: the
  // session resumed in a new UI) as the session kept it
  const shell = s.takeShell();
  const context = shellContext(blocks) || (shell.pending.length ? shellContextText(shell.pending) : '');
  const shown = promptShown(blocks.filter((b) => !isShellContext(b)));
  const direct = parseDirect(text);
  // every prompt that is part of the conversation is a place to go back to
  if (direct?.kind !== 'memory' && direct?.kind !== 'compact') s.checkpoints?.begin({ text: shown, history: s.stored.history.length, replay: s.stored.replay.length });
  // a resumed session shows the person's shell output where it was, as cxl's client showed it live
  // (a client that kept each run with the session has its rows in the replay already)
  if (context && shell.recorded === 0 && shell.pending.length === 0) s.stored.replay.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: context, _meta: { [META_SHELL_CONTEXT]: true } } });
  s.stored.replay.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: shown } });
  try {
    await nameSession(s, turn, shown);
    const model = modelText(direct, text, await s.refreshCommands());
    if (direct && model === undefined) return await runDirect(o, turn, direct, text, context);
    if (s.provider) return await askModel(o, s.provider, turn, withContext(context, model ?? text));
    s.stored.history.push({ role: 'user', content: withContext(context, model ?? text) });
    await turn.say(`${howToConfigure(undefined, o.providerProblem ?? 'no model provider is configured.')}\n`);
    return 'end_turn';
  } finally {
    // notices sent during the turn (an MCP server died) belong to it: all go out before the answer
    await s.notices.settled();
    turn.keepSaid();
    // a resumed session shows where a turn was cut short, as the live one did
    if (ctrl.signal.aborted) s.stored.replay.push(TURN_CANCELLED);
    if (s.turn === ctrl) s.turn = undefined;
    s.checkpoints?.end();
    // the turn is over: a tool call it left unanswered gets a `cancelled` result as it is saved
    await s.persist({ durable: true, endOfTurn: true });
  }
}
