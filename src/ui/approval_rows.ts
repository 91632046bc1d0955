// The approval that has the keys: the call, its diff expanded (or its command), and the agent's
// options with the key each one answers to. Keys follow the option's ACP kind, not its label.
import type { PermissionOption } from '@agentclientprotocol/sdk';
import type { PendingPermission, TerminalView } from '../client/state.ts';
import { OPTION_REJECT_EXPLAIN } from '../core/protocol_names.ts';
import { clipHead, plainRow, textWidth, truncateRow, wrapText, type Row } from './text_layout.ts';
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

function commandOf(p: PendingPermission): string | undefined {
  const raw = p.call.rawInput as { command?: unknown; args?: unknown } | undefined;
  if (raw && typeof raw.command === 'string') {
    return Array.isArray(raw.args) ? [raw.command, ...raw.args.map(String)].join(' ') : raw.command;
  }
  return undefined;
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
}

export function optionRows(options: PermissionOption[], width: number): Row[] {
  return options.map((o, i) => {
    const letters = lettersFor(options, o);
    const color = o.kind.startsWith('allow') ? 'ok' : 'error';
    return truncateRow(
      [
        { text: `  ${i + 1}. `, color: 'key', bold: true },
        { text: o.name, color },
        ...(letters.length ? [{ text: `  (${letters.join(', ')})`, color: 'muted' }] : []),
      ],
      width,
    );
  });
}

export function approvalRows(p: PendingPermission, o: ApprovalRowsOptions): Row[] {
  const label = ` approval${o.total > 1 ? ` ${o.index + 1} of ${o.total}` : ''} `;
  const top: Row = [{ text: `──${label}${'─'.repeat(Math.max(0, o.width - textWidth(label) - 2))}`, color: 'warn', bold: true }];
  const head = headerRow(p.call, { cwd: o.cwd, width: o.width, expanded: true, terminals: o.terminals, awaiting: true });
  const cmd = commandOf(p);
  const cmdRows: Row[] = cmd ? wrapText(`$ ${cmd}`, o.width - 4).map((l) => [{ text: '    ' }, { text: l, color: 'code' }]) : [];
  const tail: Row[] =
    o.reason !== undefined
      ? [plainRow('  Reason for the agent (Enter rejects, Esc goes back):', { bold: true }), [{ text: '  › ', color: 'accent' }, { text: o.reason }, { text: ' ', inverse: true }]]
      : optionRows(p.options, o.width);
  const budget = Math.max(1, o.maxLines - 2 - tail.length);
  const body = clipHead([...cmdRows, ...bodyRows(p.call, { cwd: o.cwd, width: o.width, expanded: true, terminals: o.terminals, outputLines: 6 })], budget, ' (the diff continues)');
  return [top, head, ...body, ...tail].map((r) => truncateRow(r, o.width));
}
