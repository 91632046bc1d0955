// The ACP agent's protocol handlers over @agentclientprotocol/sdk 2.4.0's builder API: every
// stable v1 agent method, each answered by the room that owns it (sessions by
// session_manager.ts, a prompt by prompt.ts) and nothing else happens here. A method not
// registered (an unstable one such as session/fork, or a newer one) is answered -32601 by the SDK,
// with the method named. Tools come from a per-session SessionTools (built
// by the caller), the model from a Provider; both are injected so tests run the real thing.
import * as acp from '@agentclientprotocol/sdk';
import { noLoginMethods } from './errors.ts';
import { runPrompt } from './prompt.ts';
import type { AgentOptions } from './session.ts';
import { SessionManager } from './session_manager.ts';

export type { AgentOptions, SessionMode, ToolContext } from './session.ts';

/** The agent, and how to stop it: every turn cancelled, every session saved (see cli/acp.ts). */
export type Agent = acp.AgentApp & { shutdown(o?: { graceMs?: number }): Promise<void> };

/** What cxl says it can do: load, list, resume, close and delete sessions, embedded context in prompts, MCP over HTTP. */
function initialized(version: string): acp.InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { embeddedContext: true },
      mcpCapabilities: { http: true },
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
    },
    agentInfo: { name: 'cxl', title: 'cxl', version },
    authMethods: [],
  };
}

export function createAgent(o: AgentOptions): Agent {
  const sessions = new SessionManager(o);
  const app = acp
    .agent({ name: o.name ?? 'cxl' })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      sessions.caps = params.clientCapabilities ?? {};
      return initialized(o.version);
    })
    // no login: any method id is unknown; logout has nothing to forget
    .onRequest(acp.methods.agent.authenticate, ({ params }) => {
      throw noLoginMethods(params.methodId);
    })
    .onRequest(acp.methods.agent.logout, () => ({}))
    .onRequest(acp.methods.agent.session.new, ({ params, client }) => sessions.create(client, params))
    .onRequest(acp.methods.agent.session.load, ({ params, client }) => sessions.load(client, params))
    .onRequest(acp.methods.agent.session.resume, ({ params, client }) => sessions.resume(client, params))
    .onRequest(acp.methods.agent.session.list, ({ params }) => sessions.list(params))
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
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
      const s = sessions.get(params.sessionId);
      const running = runPrompt(o, s, client, params.prompt, signal);
      s.running = running;
      return { stopReason: await running };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => sessions.cancel(params.sessionId));
  return Object.assign(app, { shutdown: (so: { graceMs?: number } = {}) => sessions.shutdown(so.graceMs) });
}
