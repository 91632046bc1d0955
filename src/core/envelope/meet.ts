// The meet of two decisions on one call (a mission unit's own envelope and its ceiling's,
// ceiling.ts): the stricter of the two, in the order allow > approve > deny. decide.ts takes it
// for an envelope that carries a ceiling.
import type { Decision, Grant } from './spec.ts';

const RANK: Record<Grant, number> = { deny: 0, approve: 1, allow: 2 };

/** Whether `a` lets a call through further than `b` (allow > approve > deny). */
export function morePermissive(a: Grant, b: Grant): boolean {
  return RANK[a] > RANK[b];
}

/** A prefix-allowlist allow runs read-only: an allow by any other rule runs with writes. */
export const readOnlyAllow = (d: Decision) => d.action === 'allow' && d.rule === 'shell.prefix_allowlist';

/**
 * The meet of a unit's own decision and its ceiling's on the same call: the stricter one. Of two
 * equal actions the one that binds more is kept: an allow that runs read-only, an ask of the
 * always-ask tier (never remembered), an ask of a whole call rather than of its paths only.
 */
export function meetDecisions(own: Decision, ceiling: Decision): Decision {
  if (morePermissive(own.action, ceiling.action)) return capped(own, ceiling);
  if (own.action !== ceiling.action) return own;
  if (own.action === 'allow' && readOnlyAllow(ceiling) && !readOnlyAllow(own)) return capped(own, ceiling);
  if (own.action === 'approve') {
    if (ceiling.rule === 'always_ask' && own.rule !== 'always_ask') return capped(own, ceiling);
    if (own.pathOnly && !ceiling.pathOnly) return capped(own, ceiling);
  }
  return own;
}

/** The ceiling's decision, saying it is the ceiling's and what the unit's own envelope would have done. */
function capped(own: Decision, ceiling: Decision): Decision {
  return {
    ...ceiling,
    envelope: own.envelope,
    ceiling: ceiling.envelope,
    sentence: `${ceiling.sentence}; the ceiling of this unit (the envelope of the session that fired it) decides, where its own envelope ${own.envelope} would ${own.action === 'approve' ? 'ask' : own.action}`,
  };
}

