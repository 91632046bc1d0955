// The ACP agent: sessions, prompts, tool-call reporting, approvals and cancellation over
// @agentclientprotocol/sdk 2.4.0's builder API. Tools come from a per-session SessionTools
// (built by the caller), the model from a Provider; both are injected so tests run the real thing.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { isToolError, toToolError, ToolError } from '../../core/errors.ts';
import { describeCompaction, type CompactionRecord, type ContextHooks, type SessionContext } from '../context/session_context.ts';
import { AVAILABLE_COMMANDS, DIRECT_HELP, parseDirect } from './direct.ts';
import { howToConfigure } from '../providers/select.ts';
import type { ModelToolCall, Provider } from '../providers/types.ts';
import type { SessionLog, StoredSession } from '../sessions/store.ts';
import { SessionStore } from '../sessions/store.ts';
import { persistenceMeta, reportSaves, type Notify } from './save_notices.ts';
import { callLocations, callTitle, resultForModel, textContent } from './tool_report.ts';
import { modelName, resolveTool } from '../tools/tool_names.ts';
import { describeAllow } from '../../core/gate/session_allows.ts';
import type { ApprovalAnswer, ApprovalRequest, SessionTools } from '../tools/contract.ts';
import { parsePlan, PLAN_TOOL, PLAN_TOOL_NAME } from '../loop/plan_tool.ts';
import { modelProblem } from '../providers/reachability.ts';
import { runTurn, type StopReason } from '../loop/turn.ts';

export interface SessionMode {
  id: string;
  name: string;
  description?: string;
}

/** What a session's tools are built from. `client` is how they reach the ACP client. */
export interface ToolContext {
  sessionId: string;
  cwd: string;
  mode: string;
  client: acp.AgentContext;
  capabilities: acp.ClientCapabilities;
  mcpServers: acp.McpServer[];
  ledger?: unknown;
  /** the session-scoped allows restored from the store */
  allows?: unknown;
  /**
   * report something to the user in the session (an MCP server died, a config warning, a failed
   * save): an ACP `notice` when the client shows them, else an agent message
   */
  notice: Notify;
}

export interface AgentOptions {
  name?: string;
  version: string;
  store: SessionStore;
  /** the envelopes a session rooted at `cwd` can use (its project config counts), and the one it starts in */
  modesFor(cwd: string): { modes: SessionMode[]; current: string };
  /** null when no provider could be configured; prompts then answer with how to set one up */
  provider: Provider | null;
  providerProblem?: string;
  buildTools(ctx: ToolContext): Promise<SessionTools>;
  systemPrompt(cwd: string): string;
  maxTurns: number;
  /** a session's context budget: window, usage, compaction */
  newContext(hooks: ContextHooks): SessionContext;
  log(msg: string): void;
}

interface LiveSession {
  stored: StoredSession;
  /** the session's log on disk (stored is its session) */
  log: SessionLog;
  tools: SessionTools;
  turn?: AbortController;
  /** the prompt running now, so a shutdown can wait for it to wind down */
  running?: Promise<unknown>;
  nextCall: number;
  /** notices being sent; a turn awaits them before it answers */
  inflight: Set<Promise<void>>;
  context: SessionContext;
  notice: Notify;
  /** sends what was said before the client knew the session; call after session/new or load answered */
  flush(): void;
}

const RAW_OUTPUT_MAX = 64 * 1024;

/** The sandbox the session's commands run in, on session/new and session/load. */
function sandboxMeta(live: LiveSession): { _meta?: Record<string, unknown> } {
  const s = live.tools.sandbox?.();
  return s ? { _meta: { 'cxl/sandbox': s } } : {};
}

function nowIso(): string {
  return new Date().toISOString();
}

function promptText(blocks: acp.ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
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

/**
 * The prompt as its sender wrote it, for the replay and the title: the text, and a link for each
 * attached resource the text does not already mention (`@path`); never a file's content.
 */
/**
 * The end of a turn the user cancelled, kept in the replay: cxl's client shows its `⊘ cancelled`
 * marker on resume (other clients ignore the _meta of a session_info_update).
 */
const TURN_CANCELLED: acp.SessionUpdate = { sessionUpdate: 'session_info_update', _meta: { 'cxl/turnEnded': 'cancelled' } };

/** A file URI as the path it names (`m%C3%B3dulo.py` is `módulo.py`); the URI itself when it is none. */
function uriPath(uri: string): string {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : decodeURI(uri);
  } catch {
    return uri;
  }
}

function promptShown(blocks: acp.ContentBlock[]): string {
  const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  // `@src/app.ts?`: the path without the punctuation that follows it; `@"a b.txt"` quoted
  const mentions = [...text.matchAll(/(?:^|[\s(])@(?:"([^"\n]+)"|(\S+))/g)].map((m) => m[1] ?? m[2].replace(/[.,;:!?)\]'"]+$/, ''));
  const links: string[] = [];
  for (const b of blocks) {
    if (b.type === 'text') continue;
    const uri = b.type === 'resource_link' ? b.uri : b.type === 'resource' ? (b.resource as { uri: string }).uri : undefined;
    if (uri === undefined) links.push(`[${b.type}]`);
    else if (!mentions.some((m) => uriPath(uri).endsWith(`/${m}`))) links.push(`[${b.type === 'resource_link' ? b.name : uri.slice(uri.lastIndexOf('/') + 1)}](${uri})`);
  }
  return [text, ...links].filter(Boolean).join('\n');
}

/** A command's result as a person reads it: the replay of a call whose terminal is gone. */
function commandTranscript(result: unknown): string | undefined {
  const r = result as { stdout?: unknown; stderr?: unknown; exit_code?: unknown; signal?: unknown; truncated?: unknown } | null;
  if (!r || typeof r !== 'object' || typeof r.stdout !== 'string' || typeof r.stderr !== 'string' || !('exit_code' in r)) return undefined;
  const out = [r.stdout, r.stderr].filter((x) => x !== '').map((x) => x.replace(/\n$/, '')).join('\n');
  const end = typeof r.signal === 'string' ? `killed by ${r.signal}` : `exit ${String(r.exit_code)}`;
  return [out, r.truncated ? '(output cut)' : '', `(${end})`].filter(Boolean).join('\n');
}

function errorResult(err: ToolError): string {
  return JSON.stringify(err.toJSON());
}

/** A compaction as ACP's compaction_update, with the token counts in _meta. */
function compactionUpdate(r: CompactionRecord, status: 'in_progress' | 'completed' | 'failed' | 'cancelled'): acp.SessionUpdate & Record<string, unknown> {
  return {
    sessionUpdate: 'compaction_update',
    compactionId: r.compactionId,
    status,
    ...(status === 'completed' ? { summary: [{ type: 'text' as const, text: r.summary ?? describeCompaction(r) }] } : {}),
    ...(status === 'failed' ? { error: r.summaryDropped ?? describeCompaction(r) } : {}),
    _meta: { 'cxl/tokensBefore': r.tokensBefore, 'cxl/tokensAfter': r.tokensAfter, 'cxl/description': describeCompaction(r) },
  };
}

/** A stored update as this client can take it: compaction_update only where advertised. */
function replayable(update: Record<string, unknown>, caps: acp.ClientCapabilities): acp.SessionUpdate {
  if (update.sessionUpdate === 'compaction_update' && !caps.session?.compaction) {
    const text = String((update._meta as Record<string, unknown> | undefined)?.['cxl/description'] ?? 'Context compacted.');
    return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${text}\n` } };
  }
  return update as acp.SessionUpdate;
}

/** The agent, and how to stop it: every turn cancelled, every session saved (see cli/acp.ts). */
export type Agent = acp.AgentApp & { shutdown(o?: { graceMs?: number }): Promise<void> };

export function createAgent(o: AgentOptions): Agent {
  const sessions = new Map<string, LiveSession>();
  let caps: acp.ClientCapabilities = {};

  const modeState = (cwd: string, current: string): acp.SessionModeState => ({
    currentModeId: current,
    availableModes: o.modesFor(cwd).modes.map((m) => ({ id: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) })),
  });

  // The model, as the standard `model` config option, so a client can show its real name.
  const modelOptions = (): acp.SessionConfigOption[] | undefined =>
    o.provider ? [{ type: 'select', id: 'model', name: 'Model', category: 'model', currentValue: o.provider.model, options: [{ value: o.provider.model, name: o.provider.model }] }] : undefined;

  /** Appends what changed to the session's log (see session_store.ts); failures become notices. */
  async function persist(s: LiveSession, c: { durable?: boolean; endOfTurn?: boolean } = { durable: true }): Promise<void> {
    s.stored.updatedAt = nowIso();
    try {
      s.stored.allows = s.tools.saveAllows();
      // the whole ledger once, then what changed (a save must not cost the number of files read)
      const changes = s.tools.ledgerChanges();
      if (s.stored.ledger === undefined) s.stored.ledger = s.tools.saveLedger();
      else for (const [p, e] of changes) s.log.noteLedger(p, e);
    } catch (err) {
      o.log(`cannot serialise the ledger: ${String(err)}`);
    }
    await s.log.checkpoint(c);
    if (s.log.problem) o.log(`cannot save session ${s.stored.sessionId}: ${s.log.problem.message}`);
  }

  async function open(client: acp.AgentContext, stored: StoredSession, mcpServers: acp.McpServer[], makeLog: () => Promise<SessionLog>): Promise<LiveSession> {
    const sessionId = stored.sessionId;
    const pendingNotices: Array<Parameters<Notify>> = [];
    let ready = false;
    // tool call ids continue after the replayed ones, so a reloaded session never reuses one
    const replayedCalls = stored.replay.filter((u) => u.sessionUpdate === 'tool_call').length;
    const live: LiveSession = { stored, log: undefined as unknown as SessionLog, tools: undefined as unknown as SessionTools, nextCall: replayedCalls, inflight: new Set(), flush: () => {}, context: undefined as unknown as SessionContext, notice: async () => {} };
    // ACP notices only for a client that shows them; otherwise an agent message says it
    const asNotice = !!caps.session?.notices;
    const notice: Notify = (text, n = {}) => {
      // before session/new has answered, the client does not know the session yet
      if (!ready) {
        pendingNotices.push([text, n]);
        return Promise.resolve();
      }
      const [first, ...rest] = text.split('\n');
      const update: acp.SessionUpdate = asNotice
        ? { sessionUpdate: 'notice', severity: n.severity ?? 'warning', title: n.title ?? first, ...(n.title ? { description: text } : rest.length ? { description: rest.join('\n') } : {}) }
        : { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${text}\n` } };
      const p = client.notify(acp.methods.client.session.update, { sessionId, update }).finally(() => live.inflight.delete(p));
      live.inflight.add(p);
      return p;
    };
    live.tools = await o.buildTools({ sessionId, cwd: stored.cwd, mode: stored.mode, client, capabilities: caps, mcpServers, ledger: stored.ledger, allows: stored.allows, notice });
    live.notice = notice;
    live.context = o.newContext(contextHooks(client, live));
    try {
      live.log = await makeLog();
    } catch (err) {
      await live.tools.close();
      throw err;
    }
    reportSaves(live.log, notice);
    if (live.log.problem) live.log.onProblem?.(live.log.problem);
    sessions.set(sessionId, live);
    const flushNotices = async () => {
      ready = true;
      // the direct commands, as slash commands the client can offer
      await client.notify(acp.methods.client.session.update, { sessionId, update: { sessionUpdate: 'available_commands_update', availableCommands: AVAILABLE_COMMANDS } });
      const early = pendingNotices.splice(0);
      // notices are live events; only the fallback messages belong to the replayed history
      if (early.length && !asNotice) live.stored.replay.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${early.map(([t]) => t).join('\n')}\n` } });
      for (const n of early) await notice(...n);
      void checkModel(client, live).catch((e) => o.log(String(e)));
    };
    // a timer set as the handler returns fires after the SDK has queued the response
    live.flush = () => void setTimeout(() => void flushNotices().catch((e) => o.log(String(e))), 0);
    return live;
  }

  /**
   * In the background as a session opens: is a model there? The client hears the model's real name
   * (read from the server when only OPENAI_BASE_URL is set), or, when none answers, why and what to
   * do: a notice, and `_meta["cxl/model"]` for its status line.
   */
  async function checkModel(client: acp.AgentContext, live: LiveSession): Promise<void> {
    if (!o.provider) return;
    const sessionId = live.stored.sessionId;
    const send = (update: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId, update });
    const problem = await modelProblem(o.provider, process.env.OPENAI_API_KEY);
    if (problem === undefined) {
      const options = modelOptions();
      if (options) await send({ sessionUpdate: 'config_option_update', configOptions: options });
      return;
    }
    // the title says what; the text under it, how to fix it (howToConfigure's first line is the title's)
    await live.notice(howToConfigure(o.provider, problem).split('\n').slice(2).join('\n'), { severity: 'warning', title: `No model is reachable: ${problem}` });
    await send({ sessionUpdate: 'session_info_update', _meta: { 'cxl/model': { reachable: false, problem } } });
  }

  /** Usage and compactions reach the client as ACP updates; compactions are saved with the session. */
  function contextHooks(client: acp.AgentContext, live: LiveSession): ContextHooks {
    const sessionId = live.stored.sessionId;
    const send = (update: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId, update });
    return {
      forget: (paths) => live.tools.forgetReads(paths),
      onUsage: (u) => send({ sessionUpdate: 'usage_update', used: u.used, size: u.size }),
      onWarning: (text) => live.notice(text),
      onCompaction: async (phase, r) => {
        if (phase === 'completed') {
          // compaction changed history entries in place: the log rewrites rather than appends
          live.log.historyRewritten();
          const saved = (live.stored.extras?.compactions as CompactionRecord[] | undefined) ?? [];
          live.log.put('compactions', [...saved, r]);
          live.stored.replay.push(compactionUpdate(r, 'completed'));
        }
        if (caps.session?.compaction) await send(compactionUpdate(r, phase === 'started' ? 'in_progress' : phase));
        else if (phase === 'completed' || phase === 'failed') await live.notice(describeCompaction(r));
      },
    };
  }

  function lookup(id: string): LiveSession {
    const s = sessions.get(id);
    if (!s) throw acp.RequestError.sessionNotFound(id);
    return s;
  }

  async function prompt(s: LiveSession, client: acp.AgentContext, blocks: acp.ContentBlock[]): Promise<StopReason> {
    const sessionId = s.stored.sessionId;
    const ctrl = new AbortController();
    s.turn?.abort();
    s.turn = ctrl;
    const signal = ctrl.signal;
    let agentText = '';
    // thoughts and text since the last tool call, runs of one kind joined: the replay keeps them
    // and the calls in the order they came
    const unsaved: Array<{ kind: 'agent_message_chunk' | 'agent_thought_chunk'; text: string }> = [];
    const remember = (kind: (typeof unsaved)[number]['kind'], text: string) => {
      const last = unsaved.at(-1);
      if (last?.kind === kind) last.text += text;
      else unsaved.push({ kind, text });
    };
    const send = (update: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId, update });
    const say = async (text: string) => {
      agentText += text;
      remember('agent_message_chunk', text);
      await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
    };
    const think = async (text: string) => {
      remember('agent_thought_chunk', text);
      await send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } });
    };
    const keepSaid = () => {
      for (const u of unsaved.splice(0)) s.stored.replay.push({ sessionUpdate: u.kind, content: { type: 'text', text: u.text } });
    };
    /** update_plan: the plan goes to the client (and into the replay); the model reads a receipt. */
    const updatePlan = async (raw: string): Promise<string> => {
      const plan = parsePlan(raw);
      if ('error' in plan) return JSON.stringify({ code: 'bad_args', error: plan.error });
      const update: acp.SessionUpdate = { sessionUpdate: 'plan', entries: plan };
      keepSaid(); // the text before it goes into the replay first
      s.stored.replay.push(update);
      await send(update);
      return `Plan updated: ${plan.filter((e) => e.status === 'completed').length} of ${plan.length} done.`;
    };
    const text = promptText(blocks);
    const shown = promptShown(blocks);
    s.stored.replay.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: shown } });
    if (!s.stored.title) s.stored.title = shown.replace(/\s+/g, ' ').trim().slice(0, 80);

    // One reported tool call: announce, gate (maybe ask), run, report the result.
    const runCall = async (name: string, rawArgs: string | Record<string, unknown>, modelCallId?: string): Promise<{ forModel: string; stop?: boolean; reads: string[] }> => {
      // the files whose content this result shows the model (a write_file's content is in its call)
      const reads: string[] = [];
      const toolCallId = `${modelCallId ? modelCallId.replace(/[^A-Za-z0-9_-]/g, '') || 'call' : 'direct'}-${++s.nextCall}`;
      const specs = s.tools.specs();
      const spec = resolveTool(specs, name);
      let args: Record<string, unknown> = {};
      let argError: ToolError | undefined;
      if (typeof rawArgs === 'string') {
        try {
          const parsed: unknown = rawArgs.trim() ? JSON.parse(rawArgs) : {};
          if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) argError = new ToolError('bad_args', `The arguments of ${name} must be a JSON object; got ${rawArgs.slice(0, 100)}. Call it again with an object.`);
          else args = parsed as Record<string, unknown>;
        } catch (err) {
          argError = new ToolError('bad_args', `The arguments of ${name} are not valid JSON (${err instanceof Error ? err.message : String(err)}). Call it again with a JSON object.`);
        }
      } else args = rawArgs;
      const rawInput = typeof rawArgs === 'string' && argError ? { raw: rawArgs } : args;
      const title = callTitle(spec, name, args);
      const kind = spec?.kind ?? 'other';
      const locations = callLocations(spec, args, s.stored.cwd);
      await send({ sessionUpdate: 'tool_call', toolCallId, title, kind, status: 'pending', locations, rawInput });
      // the replay has no terminals (they are gone): `replayContent` stands in for them
      const final = (status: 'completed' | 'failed', content: acp.ToolCallContent[], rawOutput?: unknown, replayContent: acp.ToolCallContent[] = content.filter((c) => c.type !== 'terminal')) => {
        keepSaid();
        s.stored.replay.push({ sessionUpdate: 'tool_call', toolCallId, title, kind, status, locations, rawInput, content: replayContent });
        return send({ sessionUpdate: 'tool_call_update', toolCallId, status, content, ...(rawOutput !== undefined ? { rawOutput: rawOutput as Record<string, unknown> } : {}) });
      };
      if (!spec || argError) {
        const err = argError ?? new ToolError('unknown_tool', `There is no tool \`${name}\`. Available: ${specs.map(modelName).join(', ')}.`);
        await final('failed', [textContent(err.message)], err.toJSON());
        return { forModel: errorResult(err), reads };
      }
      await send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
      const terminals: acp.ToolCallContent[] = [];
      let diffShown: acp.ToolCallContent | undefined;
      let explain = false;
      const approve = async (req: ApprovalRequest, askSignal: AbortSignal): Promise<ApprovalAnswer> => {
        const content: acp.ToolCallContent[] = [];
        const d = req.diff;
        if (d && d.diff !== null && d.newText !== undefined) {
          diffShown = { type: 'diff', path: path.resolve(s.stored.cwd, d.path), oldText: d.isNew ? null : (d.oldText ?? ''), newText: d.newText };
          content.push(diffShown);
        } else if (d && d.reason) content.push(textContent(`(no diff: ${d.reason})`));
        if (req.fileMode) content.push(textContent(`The file is executable (mode ${req.fileMode}); allowing keeps that mode.`));
        // the programs a line runs, when that says more than the line itself (the title has it)
        const line = typeof req.args.command === 'string' ? req.args.command.trim() : undefined;
        if (req.steps?.length && !(req.steps.length === 1 && req.steps[0] === line)) content.push(textContent(`Will run:\n${req.steps.map((x) => `  ${x}`).join('\n')}`));
        if (req.detail?.length) content.push(textContent(req.detail.join('\n')));
        if (!d && !req.steps?.length && !req.detail?.length) content.push(textContent(JSON.stringify(req.args, null, 2)));
        const scope = req.sessionScope.map(describeAllow).join(', ');
        const options: acp.PermissionOption[] = [
          { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
          ...(req.sessionScope.length ? [{ optionId: 'allow_session', name: `Allow for this session (${scope})`, kind: 'allow_always' as const }] : []),
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
          { optionId: 'reject_explain', name: 'Reject and tell the agent why', kind: 'reject_once' },
        ];
        const both = AbortSignal.any([signal, askSignal]);
        let res: acp.RequestPermissionResponse;
        try {
          res = await client.request(
            acp.methods.client.session.requestPermission,
            {
              sessionId,
              toolCall: {
                toolCallId,
                title,
                kind,
                status: 'pending',
                content,
                locations,
                rawInput: args,
                _meta: { cxl: { rule: req.decision.rule, reason: req.decision.sentence, envelope: req.decision.envelope, ...(scope ? { scope } : {}) } },
              },
              options,
            },
            { cancellationSignal: both },
          );
        } catch (err) {
          if (both.aborted) return { outcome: 'cancelled' };
          throw err;
        }
        if (signal.aborted || res.outcome.outcome === 'cancelled') return { outcome: 'cancelled' };
        const id = res.outcome.optionId;
        if (id === 'allow_session') return { outcome: 'allow_session' };
        if (id === 'allow_once') return { outcome: 'allow_once' };
        if (id === 'reject_explain') {
          explain = true;
          return { outcome: 'reject', reason: 'the user will say why in their next message' };
        }
        return { outcome: 'reject' };
      };
      const onTerminal = async (terminalId: string) => {
        terminals.push({ type: 'terminal', terminalId });
        await send({ sessionUpdate: 'tool_call_update', toolCallId, content: [...terminals] });
      };
      try {
        const onLedger = (p: string, how: 'read' | 'write') => {
          if ((how === 'read' || spec.name === 'write_file') && !reads.includes(p)) reads.push(p);
        };
        const result = await s.tools.call(spec, args, { signal, approve, onTerminal, onLedger });
        const forModel = resultForModel(result);
        const content: acp.ToolCallContent[] = [...terminals];
        if (diffShown) content.push(diffShown);
        const d = (result as { diff?: { path: string; oldText: string | null; newText: string } } | null)?.diff;
        if (!diffShown && d && typeof d.newText === 'string') content.push({ type: 'diff', path: path.resolve(s.stored.cwd, d.path), oldText: d.oldText, newText: d.newText });
        content.push(textContent(forModel));
        // rawOutput repeats the result for clients that want structure: only objects, and only small ones
        // (a 10 MB file is already in the text content, capped)
        const raw = typeof result === 'object' && result !== null && forModel.length <= RAW_OUTPUT_MAX ? result : undefined;
        const transcript = terminals.length ? commandTranscript(result) : undefined;
        await final('completed', content, raw, transcript === undefined ? undefined : [...content.filter((c) => c.type === 'diff'), textContent(transcript)]);
        return { forModel, reads };
      } catch (err) {
        const te = signal.aborted ? new ToolError('cancelled', 'Cancelled by the user.') : toToolError(err);
        if (!isToolError(err) && !signal.aborted) o.log(`tool ${name} crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        await final('failed', [...terminals, textContent(`${te.code}: ${te.message}`)], te.toJSON());
        if (explain) return { forModel: JSON.stringify({ code: 'rejected', error: 'The user rejected this call and will say why in their next message. Stop here and wait for it.' }), stop: true, reads };
        return { forModel: errorResult(te), reads };
      }
    };

    try {
      const direct = parseDirect(text);
      if (direct) {
        s.stored.history.push({ role: 'user', content: text });
        if (direct.kind === 'compact') {
          // not part of the conversation: the model never sees the command itself
          s.stored.history.pop();
          if (s.stored.history[0]?.role !== 'system') s.stored.history.unshift({ role: 'system', content: o.systemPrompt(s.stored.cwd) });
          const tools = s.tools.specs().map((t) => ({ name: modelName(t), description: t.description, parameters: t.inputSchema }));
          const r = await s.context.compact(s.stored.history, tools, 'manual', signal);
          if (!r) await say('Nothing to compact: no old tool results and no earlier part to summarise.\n');
          return signal.aborted ? 'cancelled' : 'end_turn';
        }
        await persist(s); // the prompt is on disk before anything runs
        if (direct.kind === 'help') await say(`${DIRECT_HELP}\n\nTools: ${s.tools.specs().map(modelName).join(', ')}\n`);
        else if (direct.kind === 'error') await say(`${direct.message}\n`);
        else {
          const r = direct.kind === 'shell' ? await runCall('local_shell', { command: direct.command }) : await runCall(direct.name, direct.args);
          // the model sees what the user did, so a later prompt can refer to it
          s.stored.history.push({ role: 'assistant', content: `(direct command result) ${r.forModel.slice(0, 8000)}`, ...(r.reads.length ? { reads: r.reads } : {}) });
        }
        return signal.aborted ? 'cancelled' : 'end_turn';
      }
      if (!o.provider) {
        s.stored.history.push({ role: 'user', content: text });
        await say(`${howToConfigure(undefined, o.providerProblem ?? 'no model provider is configured.')}\n`);
        return 'end_turn';
      }
      // the system prompt leads the history even when direct commands came first
      if (s.stored.history[0]?.role !== 'system') s.stored.history.unshift({ role: 'system', content: o.systemPrompt(s.stored.cwd) });
      s.stored.history.push({ role: 'user', content: text });
      await persist(s); // the prompt is on disk before the model is asked
      let stopAfterTool = false;
      const res = await runTurn({
        provider: o.provider,
        history: s.stored.history,
        tools: () => [...s.tools.specs().map((t) => ({ name: modelName(t), description: t.description, parameters: t.inputSchema })), PLAN_TOOL],
        maxTurns: o.maxTurns,
        signal,
        onText: say,
        onThought: think,
        checkpoint: (c) => persist(s, c),
        runTool: async (call: ModelToolCall) => {
          // the plan is the client's to show, not a call on this machine
          if (call.name === PLAN_TOOL_NAME) return updatePlan(call.arguments);
          if (stopAfterTool) return JSON.stringify({ code: 'rejected', error: 'Not run: the user rejected an earlier call of this turn.' });
          const r = await runCall(call.name, call.arguments, call.id);
          if (r.stop) stopAfterTool = true;
          return { content: r.forModel, reads: r.reads };
        },
        context: s.context,
        onNotice: (t) => void s.notice(t).catch(() => {}),
        shouldStop: () => stopAfterTool,
      });
      if (res.error) {
        const e = res.error;
        const msg = e.kind === 'unreachable' || e.kind === 'model_not_found' ? howToConfigure(o.provider, e.message) : e.message;
        await say(`${agentText && !agentText.endsWith('\n') ? '\n' : ''}${msg}\n`);
      } else if (res.stopReason === 'max_turn_requests') {
        await say(`\n(Stopped after ${o.maxTurns} model requests in one turn. Send another prompt to continue.)\n`);
      }
      return res.stopReason;
    } finally {
      // notices sent during the turn (an MCP server died) belong to it: all go out before the answer
      await Promise.allSettled([...s.inflight]);
      keepSaid();
      // a resumed session shows where a turn was cut short, as the live one did
      if (ctrl.signal.aborted) s.stored.replay.push(TURN_CANCELLED);
      if (s.turn === ctrl) s.turn = undefined;
      // the turn is over: a tool call it left unanswered gets a `cancelled` result as it is saved
      await persist(s, { durable: true, endOfTurn: true });
    }
  }

  /**
   * Every running turn cancelled (its model request aborted, its commands killed through the
   * client while it is there), then every session saved and closed. Turns get `graceMs` to wind
   * down; one that has not by then is saved as it stands, its unanswered calls marked cancelled.
   */
  async function shutdown(so: { graceMs?: number } = {}): Promise<void> {
    const all = [...sessions.values()];
    for (const s of all) s.turn?.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((r) => (timer = setTimeout(r, so.graceMs ?? 1000)));
    await Promise.race([Promise.allSettled(all.map((s) => s.running)), grace]);
    clearTimeout(timer);
    for (const s of all) {
      await persist(s, { durable: true, endOfTurn: true });
      await s.log.close({ endOfTurn: true, discardIfUnused: true });
    }
  }

  const app = acp
    .agent({ name: o.name ?? 'cxl' })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      caps = params.clientCapabilities ?? {};
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { embeddedContext: true },
          mcpCapabilities: { http: true },
          sessionCapabilities: { list: {} },
        },
        agentInfo: { name: 'cxl', title: 'cxl', version: o.version },
        authMethods: [],
      };
    })
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      if (!path.isAbsolute(params.cwd)) throw acp.RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path');
      const cwd = path.resolve(params.cwd);
      const stored: StoredSession = {
        version: 1,
        sessionId: randomUUID(),
        cwd,
        createdAt: nowIso(),
        updatedAt: nowIso(),
        mode: o.modesFor(cwd).current,
        history: [],
        replay: [],
        allows: [],
      };
      let live: LiveSession;
      try {
        // the log is started once the tools are built: a session refused here leaves nothing on disk
        live = await open(client, stored, params.mcpServers ?? [], () => o.store.create(stored));
      } catch (err) {
        // a broken project config: the client shows the message
        if (isToolError(err)) throw acp.RequestError.invalidParams({ cwd }, err.message);
        throw err;
      }
      live.flush();
      // a session that could not be saved works, but cannot be loaded later: the answer says so
      return { sessionId: stored.sessionId, modes: modeState(stored.cwd, stored.mode), configOptions: modelOptions(), _meta: { ...sandboxMeta(live)._meta, ...persistenceMeta(live.log) } };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      const old = sessions.get(params.sessionId);
      if (old) {
        old.turn?.abort();
        await old.tools.close();
      }
      // unanswered tool calls answered, compacted when it holds superseded lines (an open log of it closed first)
      const log = await o.store.open(params.sessionId);
      if (!log) throw acp.RequestError.sessionNotFound(params.sessionId);
      const stored = log.session;
      if (params.cwd && path.isAbsolute(params.cwd)) stored.cwd = path.resolve(params.cwd);
      // the whole history is replayed before the response
      for (const update of stored.replay) {
        await client.notify(acp.methods.client.session.update, { sessionId: stored.sessionId, update: replayable(update, caps) });
      }
      const known = o.modesFor(stored.cwd);
      if (!known.modes.some((m) => m.id === stored.mode)) stored.mode = known.current;
      let live: LiveSession;
      try {
        live = await open(client, stored, params.mcpServers ?? [], async () => log);
      } catch (err) {
        await log.close();
        throw err;
      }
      live.flush();
      return { modes: modeState(stored.cwd, stored.mode), configOptions: modelOptions(), _meta: { ...sandboxMeta(live)._meta, ...persistenceMeta(live.log) } };
    })
    .onRequest(acp.methods.agent.session.list, async ({ params }) => {
      const list = await o.store.list(params.cwd ?? undefined);
      return { sessions: list.map((s) => ({ sessionId: s.sessionId, cwd: s.cwd, title: s.title ?? null, updatedAt: s.updatedAt })) };
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      const s = lookup(params.sessionId);
      const { modes } = o.modesFor(s.stored.cwd);
      if (!modes.some((m) => m.id === params.modeId)) {
        throw acp.RequestError.invalidParams({ modeId: params.modeId }, `unknown mode \`${params.modeId}\`; modes: ${modes.map((m) => m.id).join(', ')}`);
      }
      if (s.stored.mode !== params.modeId) {
        s.stored.mode = params.modeId;
        s.tools.setMode(params.modeId);
        await persist(s);
      }
      return {};
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const s = lookup(params.sessionId);
      const running = prompt(s, client, params.prompt);
      s.running = running;
      const stopReason = await running;
      return { stopReason };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    });
  return Object.assign(app, { shutdown });
}
