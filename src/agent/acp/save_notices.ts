// What the user is told when a session cannot be saved: a notice on the session, once per kind of
// failure (and once when saving works again), and a flag on the session/new or session/load
// answer when the session will not be resumable. The session keeps working in memory meanwhile.
import { META_PERSISTENCE, type PersistenceMeta } from '../../core/protocol_names.ts';
import type { SaveProblem, SessionLog } from '../sessions/store.ts';

export type NoticeSeverity = 'info' | 'warning' | 'error';
export type Notify = (text: string, o?: { severity?: NoticeSeverity; title?: string }) => Promise<void>;

function problemNotice(p: SaveProblem, sessionId: string): { title: string; text: string } {
  if (p.kind === 'deleted') {
    return { title: 'This session was deleted', text: `Saving stopped: ${p.message}. Start a new session to keep what follows.` };
  }
  return {
    title: 'This session cannot be saved',
    text: `Session ${sessionId} cannot be saved: ${p.message}. It keeps working here, but what happens from now on will not survive this agent process unless saving recovers (each save retries).`,
  };
}

/** Sends the log's failures (and its recovery) to the user as notices on the session. */
export function reportSaves(log: SessionLog, notify: Notify): void {
  const id = log.session.sessionId;
  log.onProblem = (p) => {
    const n = problemNotice(p, id);
    void notify(n.text, { severity: 'error', title: n.title }).catch(() => {});
  };
  log.onRecovered = () => void notify(`Session ${id} is saved again.`, { severity: 'info', title: 'Saving works again' }).catch(() => {});
}

/** `_meta` for a session/new or session/load answer: whether the session can be resumed later. */
export function persistenceMeta(log: SessionLog): { [META_PERSISTENCE]: PersistenceMeta } {
  return { [META_PERSISTENCE]: log.saved ? { resumable: true } : { resumable: false, reason: log.problem?.message ?? 'the session could not be saved' } };
}
