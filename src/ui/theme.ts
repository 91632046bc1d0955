// Colour names used by the components, resolved to terminal colours unless NO_COLOR is set.
// Nothing relies on colour alone: every state also has a glyph or a +/- sign.
import process from 'node:process';

const PALETTE: Record<string, string> = {
  added: 'green',
  removed: 'red',
  hunk: 'cyan',
  gutter: 'gray',
  accent: 'cyan',
  user: 'blue',
  ok: 'green',
  error: 'red',
  warn: 'yellow',
  running: 'yellow',
  muted: 'gray',
  key: 'magenta',
  code: 'yellow',
};

export function colorEnabled(): boolean {
  const v = process.env.NO_COLOR;
  return v === undefined || v === '';
}

/** The terminal colour for a theme name, or undefined when colour is off or the name unknown. */
export function themeColor(name: string | undefined): string | undefined {
  if (!name || !colorEnabled()) return undefined;
  return PALETTE[name];
}
