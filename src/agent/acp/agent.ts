// The ACP agent's protocol handlers over @agentclientprotocol/sdk 2.4.0's builder API: every
// stable v1 agent method, each answered by the room that owns it (sessions by
// session_manager.ts, a prompt by prompt.ts) and nothing else happens here; the unstable
// session/fork and session/set_model are registered too. A method not registered (a newer one)
// is answered -32601 by the SDK, with the method named. Tools come from a per-session SessionTools (built
// by the caller), the model from a Provider; both are injected so tests run the real thing.
import * as acp from '@agentclientprotocol/sdk';
import { META_SHELL_RUN, METHOD_CHECKPOINTS, METHOD_REWIND, METHOD_REWIND_PREVIEW, METHOD_SHELL_RUN, type RewindMeta } from '../../core/protocol_names.ts';
import { parseFork, parseRewind, parseSessionOnly, parseSetModel, parseShellRun } from './params.ts';
import { noLoginMethods } from './errors.ts';
import { refuseUnreadable, runPrompt } from './prompt.ts';
import type { AgentOptions } from './session.ts';
import { SessionManager } from './session_manager.ts';

export type { AgentOptions, SessionMode, ToolContext } from './session.ts';

/** ACP's unstable method names, which the stable SDK entry point does not list. */
const METHOD_SET_MODEL = 'session/set_model';
const METHOD_FORK = 'session/fork';

/** The agent, and how to stop it: every turn cancelled, every session saved (see cli/acp.ts). */
export type Agent = acp.AgentApp & { shutdown(o?: { graceMs?: number }): Promise<void> };

/**
 * One connection of a standing host (`cxl serve`): the host's one set of live sessions, shared by
 * every connection (a session loaded on another connection moves there; one writer per log), and
 * what the host says of each session a connection opens. The client's capabilities stay this
 * connection's own.
 */
export interface HostConnection {
  sessions: SessionManager;
  /** the folder a session asked for `cwd` is rooted at (a client elsewhere names its own folders) */
  cwd(asked: string): string;
  /** a session this connection made, loaded, resumed or forked is open on it now */
  opened(sessionId: string): void;
  /** what initialize says of the host, in `agentCapabilities._meta` */
  meta?: Record<string, unknown>;
}

/** The agent's live sessions, for a host that shares them among its connections. */
export function hostSessions(o: AgentOptions): SessionManager {
  return new SessionManager(o);
}

/** What cxl says it can do: load, list, resume, close, delete and fork sessions, embedded context in prompts, MCP over HTTP. */
function initialized(version: string): acp.InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { embeddedContext: true },
      mcpCapabilities: { http: true },
      // fork is unstable in ACP: offered to the clients that look for it
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {}, additionalDirectories: {} } as acp.SessionCapabilities,
      // nothing to forget (no login), but a client may ask: logout is answered
      auth: { logout: {} },
      // the person's own shell lines are kept with the session (_cxl/shell_run)
      _meta: { [META_SHELL_RUN]: true },
    },
    agentInfo: { name: 'cxl', title: 'cxl', version },
    authMethods: [],
  };
}

/** A rewind plan or result as the client gets it (a plain object: the SDK serialises what it is given). */
function rewindMeta(r: RewindMeta): RewindMeta {
  return { ...r };
}

export function createAgent(o: AgentOptions, host?: HostConnection): Agent {
  const sessions = host?.sessions ?? new SessionManager(o);
  // this connection's client, as it said on initialize
  let caps: acp.ClientCapabilities = {};
  const cwd = (asked: string) => (host ? host.cwd(asked) : asked);
  const opened = <T>(id: string, answer: T): T => {
    host?.opened(id);
    return answer;
  };
  const app = acp
    .agent({ name: o.name ?? 'cxl' })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      caps = params.clientCapabilities ?? {};
      if (!host) sessions.caps = caps;
      setTimeout(() => sessions.warm(), 0); // after the answer is written
      const answer = initialized(o.version);
      if (host?.meta) answer.agentCapabilities = { ...answer.agentCapabilities, _meta: { ...answer.agentCapabilities?._meta, ...host.meta } };
      return answer;
    })
    // no login: any method id is unknown; logout has nothing to forget
    .onRequest(acp.methods.agent.authenticate, ({ params }) => {
      throw noLoginMethods(params.methodId);
    })
    .onRequest(acp.methods.agent.logout, () => ({}))
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      const answer = await sessions.create(client, { ...params, cwd: cwd(params.cwd) }, caps);
      return opened(answer.sessionId, answer);
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => opened(params.sessionId, await sessions.load(client, { ...params, cwd: cwd(params.cwd) }, caps)))
    .onRequest(acp.methods.agent.session.resume, async ({ params, client }) => opened(params.sessionId, await sessions.resume(client, { ...params, ...(params.cwd ? { cwd: cwd(params.cwd) } : {}) }, caps)))
    .onRequest(acp.methods.agent.session.list, ({ params }) => sessions.list(params.cwd ? { ...params, cwd: cwd(params.cwd) } : params))
    .onRequest(METHOD_FORK, parseFork, async ({ params, client }) => {
      const answer = await sessions.fork(client, { ...params, cwd: cwd(params.cwd) }, caps);
      return opened(answer.sessionId, answer);
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      await sessions.close(params.sessionId);
      return {};
    })
    .onRequest(acp.methods.agent.session.delete, async ({ params }) => {
      await sessions.delete(params.sessionId);
      return {};
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      await sessions.get(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => ({
      configOptions: await sessions.get(params.sessionId).setConfigOption(params.configId, params.value),
    }))
    // the unstable session/set_model, for clients that follow the older `models` field
    .onRequest(METHOD_SET_MODEL, parseSetModel, async ({ params }) => {
      await sessions.get(params.sessionId).setModel(params.modelId);
      return {};
    })
    // checkpoints: cxl's own methods (its client's /rewind, /undo)
    .onRequest(METHOD_CHECKPOINTS, parseSessionOnly, ({ params }) => sessions.get(params.sessionId).checkpointList())
    .onRequest(METHOD_REWIND_PREVIEW, parseRewind, async ({ params }) => rewindMeta(await sessions.get(params.sessionId).rewindPlan(params.n, params.restore)))
    .onRequest(METHOD_REWIND, parseRewind, async ({ params }) => rewindMeta(await sessions.get(params.sessionId).rewind(params.n, params.restore, params.overwrite)))
    // the person's own `!line`, run by the client: kept with the session, read with the next prompt
    .onRequest(METHOD_SHELL_RUN, parseShellRun, async ({ params }) => {
      await sessions.get(params.sessionId).recordShellRun(params.run, params.context);
      return {};
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
      const s = sessions.get(params.sessionId);
      refuseUnreadable(params.prompt);
      const running = runPrompt(o, s, client, params.prompt, signal);
      s.running = running;
      return { stopReason: await running };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => sessions.cancel(params.sessionId));
  return Object.assign(app, { shutdown: (so: { graceMs?: number } = {}) => sessions.shutdown(so.graceMs) });
}
