// The line above the composer while a turn runs: a spinner and the time the turn has taken, so a
// model slow to answer (a local model reading a long prompt) does not look like a frozen screen.
import type { ClientState } from '../client/state.ts';
import type { Row } from './text_layout.ts';
import { SPINNER } from './tool_call_rows.ts';

/** A turn's time as a person reads it: 0s, 42s, 1m 05s, 1h 02m. */
export function elapsedText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** The working line, or undefined when no turn runs (or it is being cancelled: the status line says so). `now` 0: no clock. */
export function workingRow(s: ClientState, frame: number, now: number): Row | undefined {
  if (!s.running || s.cancelling) return undefined;
  const clock = now > 0 && s.runningSince !== undefined ? ` · ${elapsedText(now - s.runningSince)}` : '';
  return [
    { text: SPINNER[frame % SPINNER.length], color: 'running', bold: true },
    { text: ` working${clock}`, color: 'muted' },
  ];
}
