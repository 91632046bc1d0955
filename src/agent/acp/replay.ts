// What a session shows again when it is loaded: the updates a turn records as it goes (the
// prompt as its sender wrote it, what was said and thought between the calls, each call's final
// state) and their replay to a client on session/load, in the form that client can take.
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { META_DESCRIPTION, META_TURN_ENDED } from '../../core/protocol_names.ts';
import type { StoredSession } from '../sessions/store.ts';

type Said = 'agent_message_chunk' | 'agent_thought_chunk';

/**
 * Thoughts and text since the last tool call, runs of one kind joined, so the replay keeps them
 * and the calls in the order they came.
 */
export class Transcript {
  #unsaved: Array<{ kind: Said; text: string }> = [];

  constructor(private readonly stored: StoredSession) {}

  remember(kind: Said, text: string): void {
    const last = this.#unsaved.at(-1);
    if (last?.kind === kind) last.text += text;
    else this.#unsaved.push({ kind, text });
  }

  /** What was said so far goes into the replay (before a call is recorded, and at the end of the turn). */
  keep(): void {
    for (const u of this.#unsaved.splice(0)) this.stored.replay.push({ sessionUpdate: u.kind, content: { type: 'text', text: u.text } });
  }
}

/**
 * The prompt as its sender wrote it, for the replay and the title: the text, and a link for each
 * attached resource the text does not already mention (`@path`); never a file's content.
 */
/**
 * The end of a turn the user cancelled, kept in the replay: cxl's client shows its `⊘ cancelled`
 * marker on resume (other clients ignore the _meta of a session_info_update).
 */
export const TURN_CANCELLED: acp.SessionUpdate = { sessionUpdate: 'session_info_update', _meta: { [META_TURN_ENDED]: 'cancelled' } };

/** A file URI as the path it names (`m%C3%B3dulo.py` is `módulo.py`); the URI itself when it is none. */
function uriPath(uri: string): string {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : decodeURI(uri);
  } catch {
    return uri;
  }
}

export function promptShown(blocks: acp.ContentBlock[]): string {
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

/** A stored update as this client can take it: compaction_update only where advertised. */
function replayable(update: Record<string, unknown>, caps: acp.ClientCapabilities): acp.SessionUpdate {
  if (update.sessionUpdate === 'compaction_update' && !caps.session?.compaction) {
    const text = String((update._meta as Record<string, unknown> | undefined)?.[META_DESCRIPTION] ?? 'Context compacted.');
    return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${text}\n` } };
  }
  return update as acp.SessionUpdate;
}

/** The whole stored history, sent before session/load answers. */
export async function replaySession(client: acp.AgentContext, stored: StoredSession, caps: acp.ClientCapabilities): Promise<void> {
  for (const update of stored.replay) await client.notify(acp.methods.client.session.update, { sessionId: stored.sessionId, update: replayable(update, caps) });
}
