// Answering an ask, the one way every responder does it (`cxl approvals respond`, the UI that
// fired the unit, the supervising model's mission_answer): the ask must exist, take this kind of
// answer and still be waiting; then its verdict is recorded exactly once (ask_store.ts), and a
// responder that lost the race is told which verdict stands.
import { ToolError } from '../../core/errors.ts';
import type { AskStore, Verdict, VerdictWord } from './ask_store.ts';

export interface AnswerInput {
  verdict: VerdictWord;
  /** a question's answer */
  answer?: string;
  /** why a permission was denied */
  reason?: string;
  by: Verdict['by'];
  via?: string;
}

function describe(v: Verdict): string {
  // not someone else's answer: a file nobody can read as one, which stands as a deny
  if (v.damaged) return `closed: its verdict file ${v.damaged} is damaged (not a verdict), so it stands as a deny and the unit reads it so. Nothing else can be recorded for it; if the unit should go on, fire it again`;
  const what = v.verdict === 'answer' ? `answered${v.answer ? ` "${v.answer.slice(0, 60)}"` : ''}` : v.verdict === 'approve' ? 'approved' : 'denied';
  const who = v.by === 'person' ? `by a person${v.via ? ` (${v.via})` : ''}` : v.by === 'agent' ? 'by the supervising agent' : v.by === 'expired' ? 'when it expired' : `(${v.by})`;
  return `${what} ${who} at ${v.at}`;
}

/** Records the answer to ask `id`, or throws what keeps it from being recorded. */
export function answerAsk(asks: AskStore, id: string, a: AnswerInput): Verdict {
  const ask = asks.get(id);
  if (!ask) throw new ToolError('not_found', `no ask "${id}" exists; \`cxl approvals list\` shows the pending ones.`);
  if (ask.kind === 'question' && a.verdict !== 'answer') {
    throw new ToolError('bad_args', `ask ${id} is a question ("${ask.summary}"): answer it with --answer "your words", not a yes/no verdict.`);
  }
  if (ask.kind === 'permission' && a.verdict === 'answer') {
    throw new ToolError('bad_args', `ask ${id} is a permission ask (${ask.toolset}.${ask.tool}): it takes --approve or --deny, not text.`);
  }
  const standing = asks.verdict(id);
  if (standing) throw new ToolError('conflict', `ask ${id} was already ${describe(standing)}; a verdict is recorded exactly once.`, { verdict: standing });
  if (ask.expiresAt && Date.parse(ask.expiresAt) <= Date.now()) {
    const r = asks.respond(id, { verdict: 'deny', by: 'expired' });
    throw new ToolError('conflict', `ask ${id} expired at ${ask.expiresAt}, before this answer; its on-timeout verdict (deny) applies.`, { verdict: r.verdict });
  }
  const r = asks.respond(id, { verdict: a.verdict, ...(a.answer !== undefined ? { answer: a.answer } : {}), ...(a.reason ? { reason: a.reason } : {}), by: a.by, ...(a.via ? { via: a.via } : {}) });
  if (!r.recorded) throw new ToolError('conflict', `ask ${id} was already ${describe(r.verdict)}; a verdict is recorded exactly once.`, { verdict: r.verdict });
  return r.verdict;
}
