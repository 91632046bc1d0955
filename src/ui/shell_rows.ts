// The person's own shell line (`!line`) as rows: `$ line` in the user's colour, its output under a
// rule (the last lines while it runs, more once it is done), how it ended, and where its output
// goes: to the agent with the next prompt, or (no sandbox hid the credentials) nowhere.
import type { ShellRunView } from '../client/state.ts';
import { SPINNER } from './tool_call_rows.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { plainRow, truncateRow, wrapLine, wrapText, type Row } from './text_layout.ts';

function outputRows(text: string, width: number, max: number): Row[] {
  const lines = forTerminal(text.replace(/\n$/, ''))
    .split('\n')
    .map((l) => l.replace(/\r$/, ''));
  if (lines.length === 1 && lines[0] === '') return [];
  const kept = lines.slice(-max);
  const rows: Row[] = [];
  if (lines.length > kept.length) rows.push(plainRow(`  … ${lines.length - kept.length} earlier line${lines.length - kept.length === 1 ? '' : 's'}`, { dim: true }));
  for (const l of kept) for (const part of wrapLine(l, Math.max(8, width - 4))) rows.push([{ text: '  │ ', color: 'muted' }, { text: part }]);
  return rows;
}

function head(command: string, width: number, glyph: Row[number]): Row {
  const first = forTerminal(command).split('\n')[0];
  return truncateRow([glyph, { text: '$ ', color: 'user', bold: true }, { text: first, color: 'user', bold: true }, ...(command.includes('\n') ? [{ text: ' …', color: 'muted' }] : [])], width);
}

/** Where the run went, in one line (no sandbox: why its output stays here). */
function endRow(run: ShellRunView, width: number): Row[] {
  const how = run.failed ? `the sandbox could not start it: ${run.failed}` : run.signal ? `killed by ${run.signal}` : `exit ${run.exitCode ?? '?'}`;
  const color = run.failed || (run.exitCode !== 0 && !run.signal) ? 'error' : 'muted';
  const where = run.failed
    ? ''
    : run.handed
      ? ' · the agent gets this output with your next prompt'
      : ` · ran without a sandbox (${run.sandbox.reason ?? run.sandbox.state}), so its output stays here: the agent does not get it`;
  return wrapText(`└ ${how}${where}`, width - 2).map((l, i) => [{ text: i === 0 ? '  ' : '    ' }, { text: l, color: i === 0 ? color : 'muted' }]);
}

/** A line still running: its last output lines. */
export function runningShellRows(run: ShellRunView, width: number, frame: number, maxLines = 8): Row[] {
  return [head(run.command, width, { text: `${SPINNER[frame % SPINNER.length]} `, color: 'running', bold: true }), ...outputRows(run.output, width, maxLines)];
}

/** A finished line, for history. */
export function shellRows(run: ShellRunView, width: number): Row[] {
  const ok = !run.failed && run.exitCode === 0;
  return [
    head(run.command, width, { text: ok ? '✓ ' : '✗ ', color: ok ? 'ok' : 'error', bold: true }),
    ...(run.truncated ? [plainRow('  … earlier output dropped (1 MiB kept)', { dim: true })] : []),
    ...outputRows(run.output, width, 40),
    ...endRow(run, width),
  ];
}

/** A resumed session's shell output, as the agent got it with the prompt after it. */
export function sentShellRows(text: string, width: number): Row[] {
  return [plainRow('  your shell, sent with the next prompt:', { color: 'muted' }), ...outputRows(text, width, 40)];
}
