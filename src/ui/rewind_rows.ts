// The rewind picker's rows: first the prompts to go back to (newest first, each with what it
// changed and how long ago), then for the one chosen what going back does: each file's diff from
// what is there now, the files kept because someone else changed them (and how to overwrite
// them), those that cannot be restored, and how much of the conversation goes.
import type { RewindView } from '../client/state.ts';
import type { RewindMeta } from '../core/protocol_names.ts';
import { ago } from './session_picker_rows.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { plainRow, textWidth, truncate, truncateRow, wrapText, type Row } from './text_layout.ts';

function rule(label: string, width: number): Row {
  return [{ text: `──${label}${'─'.repeat(Math.max(0, width - textWidth(label) - 2))}`, color: 'accent', bold: true }];
}

type Prompts = Extract<RewindView, { step: 'pick' }>['prompts'];

function changes(p: Prompts[number]): string {
  if (p.files.length === 0) return 'no file changes';
  const n = (c: string) => p.files.filter((f) => f.change === c).length;
  return [n('modified') && `${n('modified')} changed`, n('created') && `${n('created')} created`, n('deleted') && `${n('deleted')} deleted`].filter(Boolean).join(', ');
}

/** The prompts, newest first; `selected` counts from the newest. */
export function rewindPickRows(prompts: Prompts, selected: number, width: number, maxLines: number, now = Date.now()): Row[] {
  const newest = [...prompts].reverse();
  const rows: Row[] = [rule(` go back to before a prompt (${prompts.length}) `, width)];
  const room = Math.max(1, maxLines - 3);
  const start = Math.max(0, Math.min(selected - Math.floor(room / 2), newest.length - room));
  for (const [k, p] of newest.slice(start, start + room).entries()) {
    const sel = start + k === selected;
    const tail = `  ${changes(p)} · ${ago(new Date(p.at).toISOString(), now)}${p.conversation ? '' : ' · files only (compacted since)'}`;
    const text = truncate(forTerminal(p.text) || '(empty)', Math.max(10, width - 8 - textWidth(tail)));
    rows.push(truncateRow([{ text: sel ? '› ' : '  ', color: 'accent', bold: true }, { text: `${String(p.n).padStart(3)} `, color: 'muted' }, { text, inverse: sel, bold: sel }, { text: tail, color: 'muted' }], width));
  }
  if (newest.length > room) rows.push(plainRow(`  ${selected + 1} of ${newest.length}`, { dim: true }));
  rows.push(plainRow('  Enter: files and conversation · c: conversation only · f: files only · Esc: close', { dim: true }));
  return rows;
}

function diffLineRow(line: string, width: number): Row {
  const color = line.startsWith('+') && !line.startsWith('+++') ? 'added' : line.startsWith('-') && !line.startsWith('---') ? 'removed' : line.startsWith('@@') ? 'hunk' : 'muted';
  return truncateRow([{ text: '    ' }, { text: forTerminal(line), color }], width);
}

const ACTION: Record<RewindMeta['files'][number]['action'], string> = { restore: 'restore', delete: 'delete', recreate: 'recreate' };

/** What going back does, before it is done. */
export function rewindPreviewRows(plan: RewindMeta, text: string | undefined, width: number, maxLines: number, busy = false): Row[] {
  const what = plan.restore === 'both' ? 'files and conversation' : plan.restore === 'files' ? 'files only' : 'conversation only';
  const rows: Row[] = [rule(` going back to before “${truncate(forTerminal(text ?? `prompt ${plan.n}`), 40)}” (${what}) `, width)];
  const body: Row[] = [];
  if (plan.conversation) {
    body.push(plan.conversation.cannot ? plainRow(`  ! the conversation stays: ${plan.conversation.cannot}`, { color: 'warn' }) : plainRow(`  the conversation goes back ${plan.conversation.prompts} prompt${plan.conversation.prompts === 1 ? '' : 's'}; the prompt comes back to the composer`));
  }
  if (plan.restore !== 'conversation' && plan.files.length === 0) body.push(plainRow('  no file to restore: they are as they were'));
  const changed = plan.files.filter((f) => f.changedSince && !f.cannot);
  for (const f of plan.files) {
    if (f.cannot) {
      body.push(...wrapText(`✗ ${f.path}: cannot be restored (${f.cannot})`, width - 2).map((l) => plainRow(`  ${l}`, { color: 'error' })));
      continue;
    }
    const counts = f.added !== undefined ? [{ text: `  +${f.added} −${f.removed ?? 0}`, color: 'muted' }] : [];
    const head = f.changedSince ? [{ text: '  ! ', color: 'warn', bold: true }, { text: `${ACTION[f.action]} ${f.path}`, bold: true }, ...counts, { text: `  ${f.changedSince}: kept unless you press o`, color: 'warn' }] : [{ text: '  ', color: 'muted' }, { text: `${ACTION[f.action]} ${f.path}`, bold: true }, ...counts];
    body.push(truncateRow(head, width));
    if (f.alwaysAsk) body.push(...wrapText(`! always asked: ${f.alwaysAsk}`, width - 4).map((l) => plainRow(`    ${l}`, { color: 'warn' })));
    for (const l of f.diff.split('\n')) if (!/^(?:---|\+\+\+) /.test(l)) body.push(diffLineRow(l, width));
  }
  const room = Math.max(2, maxLines - 2);
  if (body.length > room) rows.push(...body.slice(0, room - 1), plainRow(`  … ${body.length - room + 1} more lines`, { dim: true }));
  else rows.push(...body);
  rows.push(plainRow(busy ? '  going back…' : `  y: go back${changed.length ? ` (keeping ${changed.length} changed since) · o: go back and overwrite them too` : ''} · Esc: choose another`, { dim: true }));
  return rows;
}
