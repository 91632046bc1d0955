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

export function unknownConfigOption(configId: string, ids: readonly string[]): acp.RequestError {
  return acp.RequestError.invalidParams({ configId }, `unknown config option \`${configId}\`; options: ${ids.join(', ')}`);
}

export function notASelectValue(configId: string, value: unknown): acp.RequestError {
  return acp.RequestError.invalidParams({ configId, value }, `config option \`${configId}\` takes one of its values (a string); got ${JSON.stringify(value)}`);
}

/** A model the server does not list; `listed` undefined when it could not be asked. */
export function unknownModel(model: string, listed: readonly string[] | undefined, endpoint: string): acp.RequestError {
  const why = listed ? `the server lists: ${listed.slice(0, 30).join(', ')}${listed.length > 30 ? `, … (${listed.length} in all)` : ''}` : `the model server (${endpoint}) did not list its models; start cxl acp with --model ${model} instead`;
  return acp.RequestError.invalidParams({ configId: 'model', value: model }, `no model \`${model}\`: ${why}`);
}

export function noModelProvider(problem: string | undefined): acp.RequestError {
  return acp.RequestError.invalidParams({ configId: 'model' }, `no model provider is configured${problem ? ` (${problem})` : ''}, so there is no model to choose`);
}

export function noCheckpoints(): acp.RequestError {
  return acp.RequestError.invalidParams(undefined, 'this session keeps no checkpoints (the agent was started without a data dir for them)');
}

/** Another process holds the session's turn lease (sessions/turn_lease.ts). */
export function turnElsewhere(why: string): acp.RequestError {
  return acp.RequestError.invalidRequest(undefined, `${why}: wait for that turn to end (or cancel it there), then send the prompt again; nothing was sent`);
}

export function turnRunning(): acp.RequestError {
  return acp.RequestError.invalidParams(undefined, 'a prompt turn is running: cancel it (session/cancel) before going back');
}

/** cxl has no login: the model provider is configured by flags, configuration or environment. */
export function noLoginMethods(methodId: string): acp.RequestError {
  return acp.RequestError.invalidParams({ methodId }, `cxl offers no login methods (authMethods is empty): the model provider is configured by --provider/--model, agents.toml or OPENAI_API_KEY/OLLAMA_HOST`);
}

/** An image or audio block: the providers cxl talks to are sent text, so it is refused, never dropped. */
export function unreadableBlock(type: string, mimeType: string | undefined): acp.RequestError {
  return acp.RequestError.invalidParams(
    { type, ...(mimeType ? { mimeType } : {}) },
    `this agent sends its models text only, so the prompt's ${type} block${mimeType ? ` (${mimeType})` : ''} cannot be read (promptCapabilities.${type} is not offered). Describe it in words, or attach a text file instead.`,
  );
}

/** additionalDirectories: one of them is refused (core/local_fs/extra_roots.ts says why). */
export function badAdditionalDirectory(dirs: readonly string[], why: string): acp.RequestError {
  return acp.RequestError.invalidParams({ additionalDirectories: dirs }, `${why} Give absolute paths to existing directories outside the credential stores, or start the session without them.`);
}

/** A session/list cursor this agent did not hand out. */
export function badCursor(cursor: string): acp.RequestError {
  return acp.RequestError.invalidParams({ cursor }, 'unknown session/list cursor: pass the nextCursor of the previous page as it was given, or none for the first page');
}
