// The trust prompt: this folder's own configuration is held back until trusted. What trusting it
// would change is in the scrollback just above (a diff of the effective configuration); the
// prompt names the files and the two answers.
import type { TrustOffer } from '../client/trust/trust_offer.ts';
import { clipHead, plainRow, truncate, wrapText, type Row } from './text_layout.ts';

export function trustRows(offer: TrustOffer, width: number, maxLines: number): Row[] {
  const title = '── trust this folder? ';
  const rows: Row[] = [plainRow(truncate(title + '─'.repeat(Math.max(0, width - title.length)), width), { color: 'warn', bold: true })];
  const why = offer.changed
    ? `Its configuration changed since you trusted it (${offer.files.join(', ')}): the change is shown above and is not applied until you trust it again.`
    : `${offer.dir} has its own configuration (${offer.files.join(', ')}). It is not applied: no MCP server of it starts, no {{env:…}} of it is filled. What trusting it would change is shown above.`;
  for (const l of wrapText(why, width - 2)) rows.push(plainRow(`  ${l}`));
  rows.push([{ text: '  t ', color: 'key', bold: true }, { text: 'trust it: a new session applies it (recorded in ~/.contenox, asked again if it changes)' }]);
  rows.push([{ text: '  n ', color: 'key', bold: true }, { text: 'not now: your own configuration decides (/trust asks again)' }]);
  return clipHead(rows, maxLines);
}
