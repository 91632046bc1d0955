// The protocol errors the agent answers a request with, in one place so each says the same
// thing whichever handler raises it, and says what to do instead.
import * as acp from '@agentclientprotocol/sdk';

export function sessionNotFound(sessionId: string): acp.RequestError {
  return acp.RequestError.sessionNotFound(sessionId);
}

export function relativeCwd(cwd: string): acp.RequestError {
  return acp.RequestError.invalidParams({ cwd }, 'cwd must be an absolute path');
}

export function unknownMode(modeId: string, modes: ReadonlyArray<{ id: string }>): acp.RequestError {
  return acp.RequestError.invalidParams({ modeId }, `unknown mode \`${modeId}\`; modes: ${modes.map((m) => m.id).join(', ')}`);
}

/** A session its tools could not be built for (a broken project config): the client shows the message. */
export function sessionRefused(cwd: string, message: string): acp.RequestError {
  return acp.RequestError.invalidParams({ cwd }, message);
}
