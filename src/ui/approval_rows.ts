// The approval that has the keys: the call, what it will do (each command step as its quoted
// argv, whole; the diff with the file's line numbers), and the agent's options with the key each
// one answers to. The body scrolls inside the room the modal has, with its position shown, and
// the options stay on screen under it (on one line when the room is small). Keys follow the
// option's ACP kind, not its label.
import type { PermissionOption, ToolCallContent } from '@agentclientprotocol/sdk';
import type { PendingPermission, TerminalView } from '../client/state.ts';
import { displayArgv } from '../core/argv_display.ts';
import { META_DECISION, META_STEPS, OPTION_REJECT_EXPLAIN } from '../core/protocol_names.ts';
import { showControls } from '../core/terminal_text.ts';
import { plainRow, textWidth, truncate, truncateRow, wrapLine, type Row } from './text_layout.ts';
import { bodyRows, headerRow } from './tool_call_rows.ts';

export type OptionKey = 'y' | 'a' | 'n';

/** Which option each letter picks: the first of its kind (n falls back to reject_always). */
export function optionForKey(options: PermissionOption[], k: OptionKey): PermissionOption | undefined {
  const kinds: Record<OptionKey, PermissionOption['kind'][]> = { y: ['allow_once'], a: ['allow_always'], n: ['reject_once', 'reject_always'] };
  for (const kind of kinds[k]) {
    const hit = options.find((o) => o.kind === kind);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * The answer for `r` (reject, then the typed reason goes to the agent as the next prompt): the
 * built-in agent's `reject_explain`, which ends its turn after the call so the reason is read
 * next rather than after whatever the model does instead; another agent's plain reject.
 */
export function reasonOption(options: PermissionOption[]): PermissionOption | undefined {
  return options.find((o) => o.optionId === OPTION_REJECT_EXPLAIN && (o.kind === 'reject_once' || o.kind === 'reject_always')) ?? optionForKey(options, 'n');
}

function lettersFor(options: PermissionOption[], opt: PermissionOption): string[] {
  const letters: string[] = (['y', 'a', 'n'] as OptionKey[]).filter((k) => optionForKey(options, k) === opt).map((k) => (k === 'n' ? 'n/Esc' : k));
  // r is named on the option it answers when that is not the plain reject (n) already listed
  if (opt !== optionForKey(options, 'n') && reasonOption(options) === opt) letters.push('r');
  return letters;
}

/** The steps the agent says the command runs (cxl sends each as its quoted argv), else the call's own command. */
export function commandSteps(p: PendingPermission): string[] {
  const steps = p.meta?.[META_STEPS];
  if (Array.isArray(steps) && steps.length > 0 && steps.every((x) => typeof x === 'string')) return steps as string[];
  const raw = p.call.rawInput as { command?: unknown; args?: unknown } | undefined;
  if (!raw || typeof raw.command !== 'string') return [];
  // the argv form as one line that reads back as that argv: a newline in an argument is `\n`
  return Array.isArray(raw.args) ? [displayArgv([raw.command, ...raw.args.map(String)])] : [raw.command];
}

/**
 * When the request rejects itself (epoch ms): only an envelope that sets a timeout gives one
 * (cxl's agent sends it as `expiresAt` in the decision's _meta); otherwise it waits for the person.
 */
export function approvalDeadline(p: PendingPermission): number | undefined {
  const d = p.meta?.[META_DECISION] as { expiresAt?: unknown } | undefined;
  if (typeof d?.expiresAt !== 'string') return undefined;
  const t = Date.parse(d.expiresAt);
  return Number.isFinite(t) ? t : undefined;
}

/** `4:05`, `0:09`, `1:02:03`: the time left, to the second, rounded up so 0:00 is never shown early. */
export function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** `$ step` rows: every character shown (controls as marks), wrapped, never cut. */
function commandRows(steps: string[], width: number): Row[] {
  return steps.flatMap((step) =>
    showControls(step)
      .split('\n')
      .flatMap((line, li) => wrapLine(line, Math.max(8, width - 6)).map((part, pi) => [{ text: li === 0 && pi === 0 ? '    $ ' : '      ' }, { text: part, color: 'code' }] as Row)),
  );
}

/** The "Will run:" text cxl sends for other clients says what the steps rows already say. */
function withoutStepsText(content: ToolCallContent[], steps: string[]): ToolCallContent[] {
  const same = `Will run:\n${steps.map((x) => `  ${x}`).join('\n')}`;
  return content.filter((c) => !(c.type === 'content' && c.content.type === 'text' && c.content.text === same));
}

export interface ApprovalRowsOptions {
  cwd: string;
  width: number;
  index: number;
  total: number;
  /** Rows the whole modal may take. */
  maxLines: number;
  terminals: TerminalView[];
  reason?: string;
  /** The first body row shown (clamped to what there is). */
  scroll?: number;
  /** false while the keys are held (just shown, or typing still arriving): the options say so. */
  armed?: boolean;
  /** What was typed into the prompt meanwhile (the composer is under the modal). */
  draft?: string;
  /** Shown full screen (f): the indicator says how to go back. */
  full?: boolean;
  /** Date.now() of this frame, for the countdown of a request that rejects itself */
  now?: number;
}

export function optionRows(options: PermissionOption[], width: number, dim = false): Row[] {
  return options.map((o, i) => {
    const letters = lettersFor(options, o);
    const color = o.kind.startsWith('allow') ? 'ok' : 'error';
    return truncateRow(
      [
        { text: `  ${i + 1}. `, color: 'key', bold: true, dim },
        { text: o.name, color, dim },
        ...(letters.length ? [{ text: `  (${letters.join(', ')})`, color: 'muted' }] : []),
      ],
      width,
    );
  });
}

/** The options on as few rows as fit (`1 y Allow once · 2 a Allow for…`), for a small room. */
function compactOptionRows(options: PermissionOption[], width: number, dim: boolean): Row[] {
  const items = options.map((o, i) => {
    const letters = lettersFor(options, o);
    return `${i + 1}${letters.length ? ` ${letters.join(',')}` : ''} ${truncate(o.name, 24)}`;
  });
  const rows: Row[] = [];
  let cur = '  ';
  for (const it of items) {
    if (cur.trim() !== '' && textWidth(`${cur} · ${it}`) > width) {
      rows.push([{ text: cur, color: 'key', dim }]);
      cur = '  ';
    }
    cur = cur.trim() === '' ? `  ${it}` : `${cur} · ${it}`;
  }
  rows.push([{ text: cur, color: 'key', dim }]);
  return rows;
}

// Laid-out bodies per call snapshot and width: a long diff is laid out once, each frame slices it.
const bodies = new WeakMap<PendingPermission, { width: number; rows: Row[] }>();

/** Everything the modal can scroll through: the command's steps, the diffs, the call's text. */
export function approvalBody(p: PendingPermission, o: Pick<ApprovalRowsOptions, 'cwd' | 'width' | 'terminals'>): Row[] {
  const hit = bodies.get(p);
  if (hit && hit.width === o.width) return hit.rows;
  const steps = commandSteps(p);
  const call = steps.length ? { ...p.call, content: withoutStepsText(p.call.content, steps) } : p.call;
  const rows = [...commandRows(steps, o.width), ...bodyRows(call, { cwd: o.cwd, width: o.width, expanded: true, terminals: o.terminals, outputLines: 6 })];
  if (o.terminals.length === 0) bodies.set(p, { width: o.width, rows });
  return rows;
}

/** How the modal splits its room: the body's window, and how far it can scroll. */
export interface ApprovalLayout {
  rows: Row[];
  /** body rows shown at once */
  window: number;
  /** body rows in all */
  total: number;
  /** the first body row shown */
  scroll: number;
}

function indicatorRow(from: number, to: number, total: number, width: number, full: boolean): Row {
  const where = ` lines ${from}–${to} of ${total} `;
  const keys = full ? ' ↑↓ PgUp PgDn Space scroll · f or Esc back ' : ' ↑↓ PgUp PgDn Space scroll · f full screen ';
  const text = textWidth(`──${where}·${keys}`) <= width ? `──${where}·${keys}` : textWidth(`──${where}· f full `) <= width ? `──${where}· ↑↓ · f ` : `──${where}`;
  return [{ text: `${text}${'─'.repeat(Math.max(0, width - textWidth(text)))}`, color: 'accent' }];
}

export function approvalLayout(p: PendingPermission, o: ApprovalRowsOptions): ApprovalLayout {
  const label = ` approval${o.total > 1 ? ` ${o.index + 1} of ${o.total}` : ''} `;
  const top: Row = [{ text: `──${label}${'─'.repeat(Math.max(0, o.width - textWidth(label) - 2))}`, color: 'warn', bold: true }];
  const head = headerRow(p.call, { cwd: o.cwd, width: o.width, expanded: true, terminals: o.terminals, awaiting: true });
  const body = approvalBody(p, o);
  const held = o.armed === false && o.reason === undefined;
  const deadline = approvalDeadline(p);
  const notes: Row[] = [
    ...(deadline !== undefined ? [truncateRow([{ text: `  ⏳ rejects itself in ${countdown(deadline - (o.now ?? Date.now()))} unless answered (the envelope's timeout)`, color: 'warn' }], o.width)] : []),
    ...(held ? [truncateRow([{ text: '  ⏸ keys held a moment: typing goes to your prompt', color: 'warn' }], o.width)] : []),
    ...(o.draft && o.draft.trim() !== '' ? [truncateRow([{ text: '  your prompt: ', color: 'muted' }, { text: tailOf(o.draft.replace(/\s+/g, ' '), o.width - 16), dim: true }], o.width)] : []),
  ];
  const reasonRows: Row[] | undefined =
    o.reason !== undefined ? [plainRow('  Reason for the agent (Enter rejects, Esc goes back):', { bold: true }), [{ text: '  › ', color: 'accent' }, { text: o.reason }, { text: ' ', inverse: true }]] : undefined;
  const full = reasonRows ?? optionRows(p.options, o.width, held);
  const fixed = 2 + notes.length;
  // the options on one line when listing them would leave the body fewer than 4 rows
  const fitsFull = o.maxLines - fixed - full.length - (body.length > o.maxLines - fixed - full.length ? 1 : 0) >= Math.min(4, body.length);
  const tail = [...notes, ...(reasonRows ?? (fitsFull ? full : compactOptionRows(p.options, o.width, held)))];
  let room = Math.max(1, o.maxLines - 2 - tail.length);
  const scrolls = body.length > room;
  if (scrolls) room = Math.max(1, room - 1);
  const scroll = Math.max(0, Math.min(o.scroll ?? 0, body.length - room));
  const shown = body.slice(scroll, scroll + room);
  const indicator = scrolls ? [indicatorRow(scroll + 1, scroll + shown.length, body.length, o.width, o.full === true)] : [];
  const rows = [top, head, ...shown, ...indicator, ...tail].map((r) => truncateRow(r, o.width));
  return { rows, window: room, total: body.length, scroll };
}

export function approvalRows(p: PendingPermission, o: ApprovalRowsOptions): Row[] {
  return approvalLayout(p, o).rows;
}

/** The end of a text in `width` cells: the newest typing is what matters. */
function tailOf(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  const chars = [...text];
  let out = '';
  for (let i = chars.length - 1; i >= 0 && textWidth(`…${chars[i]}${out}`) <= width; i--) out = chars[i] + out;
  return `…${out}`;
}
