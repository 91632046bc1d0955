// The ACP agent's protocol handlers over @agentclientprotocol/sdk 2.4.0's builder API: each
// method is answered by the room that owns it (sessions by session_manager.ts, a prompt by
// prompt.ts) and nothing else happens here. Tools come from a per-session SessionTools (built
// by the caller), the model from a Provider; both are injected so tests run the real thing.
import * as acp from '@agentclientprotocol/sdk';
import { parseSetModel } from './params.ts';
import { runPrompt } from './prompt.ts';
import type { AgentOptions } from './session.ts';
import { SessionManager } from './session_manager.ts';

export type { AgentOptions, SessionMode, ToolContext } from './session.ts';

/** ACP's unstable method names, which the stable SDK entry point does not list. */
const METHOD_SET_MODEL = 'session/set_model';

/** The agent, and how to stop it: every turn cancelled, every session saved (see cli/acp.ts). */
export type Agent = acp.AgentApp & { shutdown(o?: { graceMs?: number }): Promise<void> };

/** What cxl says it can do: load and list sessions, embedded context in prompts, MCP over HTTP. */
function initialized(version: string): acp.InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { embeddedContext: true },
      mcpCapabilities: { http: true },
      sessionCapabilities: { list: {} },
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
    .onRequest(acp.methods.agent.session.new, ({ params, client }) => sessions.create(client, params))
    .onRequest(acp.methods.agent.session.load, ({ params, client }) => sessions.load(client, params))
    .onRequest(acp.methods.agent.session.list, ({ params }) => sessions.list(params))
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
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const s = sessions.get(params.sessionId);
      const running = runPrompt(o, s, client, params.prompt);
      s.running = running;
      return { stopReason: await running };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => sessions.cancel(params.sessionId));
  return Object.assign(app, { shutdown: (so: { graceMs?: number } = {}) => sessions.shutdown(so.graceMs) });
}
