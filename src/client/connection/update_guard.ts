// Between the agent's stdout and the SDK: a `session/update` whose kind the SDK's stable schema
// does not know (the unstable `plan_update`, anything newer) is taken out of the stream and
// handed to `onUnknown`, so the SDK never fails to parse it (it would print the error onto the
// terminal the UI draws on, and drop the update unseen). The list of kinds is checked against the
// SDK's own type by the compiler: an SDK that adds a kind does not build until it is listed here.
import type { AnyMessage, SessionUpdate } from '@agentclientprotocol/sdk';

type Kind = SessionUpdate['sessionUpdate'];

const STABLE_KINDS = [
  'user_message_chunk',
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
  'available_commands_update',
  'current_mode_update',
  'config_option_update',
  'session_info_update',
  'usage_update',
  'notice',
  'compaction_update',
  'compaction_summary_chunk',
] as const satisfies readonly Kind[];

// every kind of the SDK's type is in the list (this line fails to compile otherwise)
const everyKind: Exclude<Kind, (typeof STABLE_KINDS)[number]> extends never ? true : false = true;
void everyKind;

const KNOWN = new Set<string>(STABLE_KINDS);

/** An update the SDK would not parse: its session, its kind as sent, and the message. */
export interface UnknownUpdate {
  sessionId: string;
  kind: string;
  raw: unknown;
}

/** The kind of a session/update notification the SDK does not know, or undefined for everything else. */
export function unknownKind(m: AnyMessage): string | undefined {
  const msg = m as { method?: unknown; id?: unknown; params?: { update?: { sessionUpdate?: unknown } } };
  if (msg.method !== 'session/update' || 'id' in msg) return undefined;
  const kind = msg.params?.update?.sessionUpdate;
  if (typeof kind === 'string' && KNOWN.has(kind)) return undefined;
  return typeof kind === 'string' ? kind : '(no kind)';
}

/** Passes every message on except session/updates of an unknown kind, which go to `onUnknown`. */
export function updateGuard(onUnknown: (u: UnknownUpdate) => void): TransformStream<AnyMessage, AnyMessage> {
  return new TransformStream({
    transform(m, controller) {
      const kind = unknownKind(m);
      if (kind === undefined) return controller.enqueue(m);
      const sessionId = (m as { params?: { sessionId?: unknown } }).params?.sessionId;
      onUnknown({ sessionId: typeof sessionId === 'string' ? sessionId : '', kind, raw: m });
    },
  });
}
