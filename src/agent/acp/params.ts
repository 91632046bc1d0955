// The params of the methods the stable SDK entry point does not validate for us (ACP's unstable
// ones, cxl's own extension methods): checked here, each failure an invalid-params error naming
// the field and what it should be.
import * as acp from '@agentclientprotocol/sdk';

type Obj = Record<string, unknown>;

function object(params: unknown): Obj {
  if (!params || typeof params !== 'object' || Array.isArray(params)) throw acp.RequestError.invalidParams(undefined, 'params must be an object');
  return params as Obj;
}

function str(o: Obj, key: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v === '') throw acp.RequestError.invalidParams({ [key]: v }, `\`${key}\` must be a non-empty string`);
  return v;
}

/** session/set_model (unstable): `{ sessionId, modelId }`. */
export function parseSetModel(params: unknown): { sessionId: string; modelId: string } {
  const o = object(params);
  return { sessionId: str(o, 'sessionId'), modelId: str(o, 'modelId') };
}
