// Colour names used by the rows, resolved to terminal colours by the theme in force: a palette for
// dark backgrounds and one for light ones (picked from the terminal's answer to OSC 11, the
// `theme` config key, or /theme), and none at all under NO_COLOR. Nothing relies on colour alone:
// every state also has a glyph or a +/- sign.
import process from 'node:process';

export type ThemeName = 'dark' | 'light';

const DARK: Record<string, string> = {
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
  link: 'blueBright',
  heading: 'cyanBright',
  quote: 'gray',
  risk_low: 'green',
  risk_mid: 'yellow',
  risk_high: 'redBright',
  syn_keyword: 'magenta',
  syn_string: 'green',
  syn_number: 'yellow',
  syn_comment: 'gray',
  syn_title: 'blueBright',
  syn_type: 'cyan',
  syn_attr: 'redBright',
  syn_meta: 'gray',
};

// Dark enough to read on white: no plain yellow or cyan, which vanish there.
const LIGHT: Record<string, string> = {
  added: '#116329',
  removed: '#a40e26',
  hunk: '#0550ae',
  gutter: '#6e7781',
  accent: '#0550ae',
  user: '#0969da',
  ok: '#116329',
  error: '#cf222e',
  warn: '#9a6700',
  running: '#9a6700',
  muted: '#6e7781',
  key: '#8250df',
  code: '#953800',
  link: '#0969da',
  heading: '#0550ae',
  quote: '#57606a',
  risk_low: '#116329',
  risk_mid: '#9a6700',
  risk_high: '#cf222e',
  syn_keyword: '#cf222e',
  syn_string: '#0a3069',
  syn_number: '#0550ae',
  syn_comment: '#6e7781',
  syn_title: '#8250df',
  syn_type: '#953800',
  syn_attr: '#116329',
  syn_meta: '#57606a',
};

const PALETTES: Record<ThemeName, Record<string, string>> = { dark: DARK, light: LIGHT };

let current: ThemeName = 'dark';
/** The person picked the theme in this session (/theme): the terminal's late answer no longer decides it. */
let chosen = false;

export function setTheme(name: ThemeName): void {
  current = name;
  chosen = false;
}

/** The theme the person asked for (/theme dark): kept over what the terminal says later. */
export function chooseTheme(name: ThemeName): void {
  current = name;
  chosen = true;
}

/** The terminal's own word on its background, taken unless the person chose a theme since the start. */
export function themeFromTerminal(name: ThemeName): boolean {
  if (chosen || name === current) return false;
  current = name;
  return true;
}

export function themeName(): ThemeName {
  return current;
}

export function colorEnabled(): boolean {
  const v = process.env.NO_COLOR;
  return v === undefined || v === '';
}

/** OSC 8 hyperlinks: where escapes for colour are wanted at all (not NO_COLOR, FORCE_COLOR=0 or a dumb terminal). */
export function hyperlinksEnabled(): boolean {
  return colorEnabled() && process.env.FORCE_COLOR !== '0' && process.env.TERM !== 'dumb';
}

/** The terminal colour for a colour name, or undefined when colour is off or the name unknown. */
export function themeColor(name: string | undefined, theme: ThemeName = current): string | undefined {
  if (!name || !colorEnabled()) return undefined;
  return PALETTES[theme][name];
}

/** `dark`, `light` or `auto` (ask the terminal) as written in config or after /theme; undefined otherwise. */
export function parseThemeSetting(v: string | undefined): ThemeName | 'auto' | undefined {
  const s = v?.trim().toLowerCase();
  return s === 'dark' || s === 'light' || s === 'auto' ? s : undefined;
}
