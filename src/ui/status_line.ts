// One line under the composer: agent, model, mode, context use, sandbox, session, cwd.
import os from 'node:os';
import type { ClientState } from '../client/state.ts';
import { modeRisk, RISK_COLOR } from './mode_risk.ts';
import { rowWidth, truncate, truncateRow, type Row, type Span } from './text_layout.ts';

export function shortPath(p: string): string {
  const home = os.homedir();
  return home && (p === home || p.startsWith(`${home}/`)) ? `~${p.slice(home.length)}` : p;
}

/** A token count as people say it: 32k, 128k, 1.5M (binary sizes like 32768 count as 32k, 128000 as 128k). */
export function tokenCount(n: number): string {
  if (n < 1000) return String(n);
  const base = n % 1000 !== 0 && n % 1024 === 0 ? 1024 : 1000;
  if (n < base * base) return `${Math.round(n / base)}k`;
  return `${(n / (base * base)).toFixed(1).replace(/\.0$/, '')}M`;
}

/** `42% of 32k`: how full the session's context window is. */
export function usageText(used: number, size: number): string {
  return `${Math.min(999, Math.round((used / size) * 100))}% of ${tokenCount(size)}`;
}

/**
 * The mode as the status line names it: its display name when the agent gave one. An id the
 * agent reports but does not offer (none of its modes) is quoted and marked, so it does not read
 * as one of them.
 */
export function modeLabel(s: ClientState): string | undefined {
  const id = s.mode ?? s.envelope;
  if (id === undefined) return undefined;
  const offered = s.modes.find((m) => m.id === id);
  const name = offered ? offered.name : s.modes.length > 0 ? `“${id}” (not one it offers)` : id;
  // cxl's modes are its envelopes
  return `${s.agent.builtin ? 'envelope' : 'mode'} ${name}`;
}

/**
 * A session id short enough for the status line that still tells sessions apart: whole when it
 * is short; a UUID by its first and last characters (a UUIDv7 begins with its creation time, so
 * sessions opened the same minute share their first 8).
 */
export function shortSessionId(id: string): string {
  if (id.length <= 13) return id;
  const hex = id.replace(/-/g, '');
  if (/^[0-9a-f]{32}$/i.test(hex)) return `${hex.slice(0, 8)}…${hex.slice(-4)}`;
  return `${id.slice(0, 8)}…${id.slice(-4)}`;
}

export function statusRow(s: ClientState, width: number, home = shortPath): Row {
  const a = s.agent;
  const agentState: Span =
    a.status === 'exited'
      ? { text: a.signal ? ` (killed: ${a.signal})` : a.error ? ' (could not start)' : ` (exited ${a.exitCode ?? '?'})`, color: 'error', bold: true }
      : s.sessionError !== undefined && s.sessionId === undefined
        ? { text: ' (no session)', color: 'error', bold: true }
        : s.stalled
          ? { text: ` (no answer to ${s.stalled})`, color: 'warn', bold: true }
          : a.status === 'starting'
            ? { text: ' (starting)', color: 'warn' }
            : s.cancelling
              ? { text: s.cancelStale ? ' (cancelling… Ctrl+C stops waiting)' : ' (cancelling…)', color: 'warn' }
              : { text: s.running ? ' (working)' : '', color: 'running' };
  const before: string[] = [];
  const after: string[] = [];
  if (s.model && !s.modelProblem && !s.modelPick) before.push(`model ${s.model}`);
  const mode = modeLabel(s);
  if (s.usage) after.push(usageText(s.usage.used, s.usage.size));
  if (s.sandbox) after.push(`sandbox ${s.sandbox.state}`);
  // the person's MCP servers this agent could not be given (the notice says which and why)
  if (s.mcpSkipped.length) after.push(`${s.mcpSkipped.length} MCP server${s.mcpSkipped.length > 1 ? 's' : ''} not passed`);
  const sandboxAt = s.sandbox ? after.length - 1 - (s.mcpSkipped.length ? 1 : 0) : -1;
  const cwdAt = after.push(home(s.cwd)) - 1;
  // last: the id is for `cxl --resume ID`, and stays whole (the directory gives way first)
  after.push(s.loading ? 'resuming…' : s.sessionId ? `session ${shortSessionId(s.sessionId)}` : 'no session');
  const name = a.name ?? a.label;
  const head = truncate(name, Math.max(8, Math.floor(width / 3)));
  // the mode in the colour of how much it lets the agent do unasked
  const risk = modeRisk(s.modes.find((m) => m.id === (s.mode ?? s.envelope)) ?? { id: s.mode ?? s.envelope ?? '', name: '' });
  let terse = false;
  // narrow: `model ` and `envelope ` go before the id is cut (what they name reads without them)
  const word = (t: string) => (terse ? t.replace(/^(model|envelope|mode) /, '') : t);
  const modeSpans = (): Span[] => (mode ? [{ text: ' · ', color: 'muted' }, { text: word(mode), color: RISK_COLOR[risk], bold: risk === 'high' }] : []);
  const row = (): Row => [
    { text: head, color: 'accent', bold: true },
    agentState,
    ...(before.length ? [{ text: ` · ${before.map(word).join(' · ')}`, color: 'muted' }] : []),
    // the fix is in the notice above; the status line keeps saying it until a model answers
    ...(s.modelProblem && !s.modelPick ? [{ text: ' · ', color: 'muted' }, { text: terse ? 'no model' : 'no model: see above', color: 'warn', bold: true }] : []),
    // the server answered with models: one is to be picked
    ...(s.modelPick ? [{ text: ' · ', color: 'muted' }, { text: terse ? 'pick a model' : 'model: pick one (/model)', color: 'warn', bold: true }] : []),
    ...modeSpans(),
    { text: ` · ${after.filter((x) => x !== '').join(' · ')}`, color: 'muted' },
  ];
  // too long: the session id at the end stays whole as long as anything else can give way. The
  // directory gives up its start at a `/` (its end names it), then goes (it is where cxl was
  // started); then the sandbox's word
  const fit = () => {
    const over = rowWidth(row()) - width;
    if (over > 0 && after[cwdAt] !== '') after[cwdAt] = elideStart(home(s.cwd), over);
    return rowWidth(row()) <= width;
  };
  if (!fit()) after[cwdAt] = '';
  if (!fit() && sandboxAt >= 0) after[sandboxAt] = '';
  if (!fit()) terse = true;
  return truncateRow(row(), width);
}

/**
 * `p` shortened by at least `by` columns from its start, at a directory boundary (`…/src/app`,
 * never `…rc/app`), never below its last component.
 */
export function elideStart(p: string, by: number): string {
  if (by <= 0) return p;
  const last = p.lastIndexOf('/');
  if (last <= 0) return p;
  // the longest tail starting at a `/` that is `by` + 1 (the `…`) shorter than the whole
  for (let i = p.indexOf('/', 1); i !== -1 && i <= last; i = p.indexOf('/', i + 1)) {
    if (p.length - i + 1 <= p.length - by) return `…${p.slice(i)}`;
  }
  return `…${p.slice(last)}`;
}
