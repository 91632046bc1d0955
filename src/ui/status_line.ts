// One line under the composer: agent, model, envelope, session, cwd.
import os from 'node:os';
import type { ClientState } from '../client/state.ts';
import { truncate, type Row, type Span } from './text_layout.ts';

export function shortPath(p: string): string {
  const home = os.homedir();
  return home && (p === home || p.startsWith(`${home}/`)) ? `~${p.slice(home.length)}` : p;
}

export function statusRow(s: ClientState, width: number, home = shortPath): Row {
  const a = s.agent;
  const agentState: Span =
    a.status === 'exited'
      ? { text: a.signal ? ` (killed: ${a.signal})` : ` (exited ${a.exitCode ?? '?'})`, color: 'error', bold: true }
      : s.sessionError !== undefined && s.sessionId === undefined
        ? { text: ' (no session)', color: 'error', bold: true }
        : s.stalled
          ? { text: ` (no answer to ${s.stalled})`, color: 'warn', bold: true }
          : a.status === 'starting'
            ? { text: ' (starting)', color: 'warn' }
            : s.cancelling
              ? { text: ' (cancelling…)', color: 'warn' }
              : { text: s.running ? ' (working)' : '', color: 'running' };
  const parts: string[] = [];
  parts.push(s.model ? `model ${s.model}` : 'model default');
  if (s.envelope) parts.push(`envelope ${s.envelope}`);
  if (s.mode && s.mode !== s.envelope) parts.push(`mode ${s.mode}`);
  parts.push(s.sessionId ? `session ${s.sessionId.slice(0, 8)}` : 'no session');
  const name = a.name ?? a.label;
  const head = truncate(name, Math.max(8, Math.floor(width / 3)));
  const rest = ` · ${parts.join(' · ')} · ${home(s.cwd)}`;
  const used = head.length + agentState.text.length;
  return [{ text: head, color: 'accent', bold: true }, agentState, { text: truncate(rest, Math.max(0, width - used)), color: 'muted' }];
}
