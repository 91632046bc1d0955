// Tells the client which direct commands `cxl acp` understands (ACP `available_commands_update`),
// so an editor or the cxl UI can list and complete them. Sent once the client knows the session:
// after session/new or session/load has answered.
import * as acp from '@agentclientprotocol/sdk';
import { DIRECT_COMMANDS } from './direct.ts';

export function availableCommands(): acp.AvailableCommand[] {
  return DIRECT_COMMANDS.map((c) => ({ name: c.name, description: c.description, ...(c.input ? { input: { hint: c.input.hint } } : {}) }));
}

/** Call as the session/new or session/load handler returns: a timer set then fires after the SDK queued the answer. */
export function advertiseCommands(client: acp.AgentContext, sessionId: string, log: (msg: string) => void): void {
  setTimeout(() => {
    client
      .notify(acp.methods.client.session.update, { sessionId, update: { sessionUpdate: 'available_commands_update', availableCommands: availableCommands() } })
      .catch((err) => log(`cannot advertise the direct commands: ${err instanceof Error ? err.message : String(err)}`));
  }, 0);
}
