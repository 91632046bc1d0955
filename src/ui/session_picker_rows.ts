// The session picker (/resume, `cxl --resume`): this directory's sessions, newest first, each
// with its title (the first prompt, for cxl), how long ago it was used and its id.
import type { SessionChoices } from '../client/state.ts';
import { isUnattended } from '../client/session/session_meta.ts';
import { shortSessionId } from './status_line.ts';
import { plainRow, textWidth, truncate, truncateRow, type Row } from './text_layout.ts';

/** `5m ago`, `3h ago`, `2d ago`, or the date for older ones. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  if (s < 86400 * 30) return `${Math.floor(s / 86400)}d ago`;
  return new Date(t).toISOString().slice(0, 10);
}

export function pickerRows(c: SessionChoices, selected: number, width: number, maxLines: number, now = Date.now()): Row[] {
  const label = ` resume a session (${c.sessions.length}) `;
  const rows: Row[] = [[{ text: `──${label}${'─'.repeat(Math.max(0, width - textWidth(label) - 2))}`, color: 'accent', bold: true }]];
  // the sessions come a person's first, then the unattended runs and units (pickerOrder): those
  // have a heading of their own, so a person's few are not lost among them
  const firstRun = c.sessions.findIndex(isUnattended);
  const room = Math.max(1, maxLines - 2 - (firstRun >= 0 ? 1 : 0));
  const start = Math.max(0, Math.min(selected - Math.floor(room / 2), c.sessions.length - room));
  const shown = c.sessions.slice(start, start + room).map((x) => {
    const when = ago(x.updatedAt, now);
    return { x, title: x.title?.replace(/\s+/g, ' ').trim() || '(no prompt yet)', tail: `  ${when ? `${when} · ` : ''}${shortSessionId(x.sessionId)}` };
  });
  // titles in one column, cut so the time and id always show
  const tailW = Math.max(0, ...shown.map((r) => textWidth(r.tail)));
  const titleW = Math.max(10, Math.min(Math.max(0, ...shown.map((r) => textWidth(r.title))), width - 2 - tailW));
  shown.forEach(({ title, tail }, k) => {
    if (start + k === firstRun) rows.push(plainRow(`  unattended runs and mission units (${c.sessions.length - firstRun})`, { color: 'muted', bold: true }));
    const sel = start + k === selected;
    const t = truncate(title, titleW);
    rows.push(
      truncateRow(
        [
          { text: sel ? '› ' : '  ', color: 'accent', bold: true },
          { text: t, inverse: sel, bold: sel },
          { text: `${' '.repeat(Math.max(0, titleW - textWidth(t)))}${tail}`, color: 'muted' },
        ],
        width,
      ),
    );
  });
  const hidden = c.sessions.length - Math.min(room, c.sessions.length);
  if (hidden > 0) rows.push(plainRow(`  ${selected + 1} of ${c.sessions.length}`, { dim: true }));
  if (c.startup) rows.push(plainRow('  Esc starts a new session instead', { dim: true }));
  return rows;
}
