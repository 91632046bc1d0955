// The login picker: what the agent said, then each login method it offers with its description,
// the environment variable an API-key method reads (and whether it is set), or the command a
// terminal method runs. Digits pick; the footer lists the keys.
import type { AuthMethodView, AuthOffer } from '../client/login/auth.ts';
import { varsNote } from '../client/login/auth.ts';
import { clipHead, plainRow, truncate, wrapText, type Row } from './text_layout.ts';

function methodLines(m: AuthMethodView): string[] {
  const out: string[] = [];
  if (m.description) out.push(m.description);
  const vars = varsNote(m);
  if (m.kind === 'env_var' && vars) out.push(`reads ${vars}`);
  if (m.kind === 'terminal' && m.command) out.push(`run in a terminal: ${m.command}  (then pick this to retry)`);
  return out;
}

export function authRows(offer: AuthOffer, agent: string, width: number, maxLines: number): Row[] {
  const title = `── log in to ${agent} `;
  const rows: Row[] = [plainRow(truncate(title + '─'.repeat(Math.max(0, width - title.length)), width), { color: 'warn', bold: true })];
  for (const l of wrapText(offer.reason, width - 2)) rows.push(plainRow(`  ${l}`, { dim: true }));
  offer.methods.slice(0, 9).forEach((m, i) => {
    const busy = offer.busy === m.id ? '  (working…)' : '';
    rows.push([{ text: `  ${i + 1}. `, color: 'key', bold: true }, { text: m.name, bold: true }, { text: busy, color: 'running' }]);
    for (const d of methodLines(m)) for (const l of wrapText(d, width - 7)) rows.push(plainRow(`     ${l}`, { color: 'muted' }));
  });
  if (offer.note) for (const l of wrapText(offer.note, width - 2)) rows.push(plainRow(`  ${l}`, { color: 'warn' }));
  return clipHead(rows, maxLines);
}
