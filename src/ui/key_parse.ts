// The terminal's bytes for one key, named as the binding table names keys. Ink's own key object
// reports Backspace (DEL) and Delete (`ESC [3~`) alike and has no name for Ctrl+←, Alt+B or
// Ctrl+_, so the screen reads the raw sequences (input.ts joins up the pieces Ink splits its input
// into) and names them here.
import type { Key } from 'ink';

export const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** One key: its name in the table (undefined: plain text), the text it types, and Ink's flags for it. */
export interface ParsedKey {
  name: string | undefined;
  input: string;
  key: Key;
}

// CSI … ~ numbers and CSI letters (xterm, rxvt, tmux, the Linux console).
const TILDE: Record<string, string> = { '1': 'home', '7': 'home', '4': 'end', '8': 'end', '3': 'delete', '2': 'insert', '5': 'pageup', '6': 'pagedown' };
const LETTER: Record<string, string> = { A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end', Z: 'shift+tab' };
// CSI u (kitty, and xterm's modifyOtherKeys) code points with names of their own.
const CODEPOINT: Record<number, string> = { 13: 'return', 9: 'tab', 127: 'backspace', 8: 'backspace', 27: 'escape', 32: 'space' };

/** `ctrl+`, `shift+`, `meta+` (Alt) for an xterm modifier parameter (1 + bits). */
function modifiers(param: string | undefined): string {
  const m = Math.max(0, Number(param ?? '1') - 1);
  return `${m & 4 ? 'ctrl+' : ''}${m & 1 ? 'shift+' : ''}${m & 2 || m & 8 ? 'meta+' : ''}`;
}

function flags(name: string): Key {
  const base = name.replace(/^(?:ctrl\+|shift\+|meta\+)+/, '');
  return {
    ...NO_KEY,
    ctrl: name.includes('ctrl+'),
    shift: name.includes('shift+'),
    meta: name.includes('meta+'),
    upArrow: base === 'up',
    downArrow: base === 'down',
    leftArrow: base === 'left',
    rightArrow: base === 'right',
    pageUp: base === 'pageup',
    pageDown: base === 'pagedown',
    home: base === 'home',
    end: base === 'end',
    return: base === 'return',
    escape: base === 'escape',
    tab: base === 'tab',
    backspace: base === 'backspace',
    delete: base === 'delete',
  };
}

function named(name: string, input = ''): ParsedKey {
  return { name, input, key: flags(name) };
}

/** A control character alone: Enter, Ctrl+J, Tab, Backspace, Ctrl+letter, Ctrl+_. */
export function controlKey(ch: string): ParsedKey | undefined {
  switch (ch) {
    case '\r':
      return named('return');
    case '\n':
      return { name: 'ctrl+j', input: '\n', key: NO_KEY };
    case '\t':
      return named('tab');
    case '\u007F':
    case '\b':
      return named('backspace');
    case '\u001F':
      // Ctrl+_ (and Ctrl+/ on most terminals)
      return named('ctrl+_', '_');
    case '\u0000':
      return named('ctrl+space');
    default: {
      const code = ch.charCodeAt(0);
      if (code >= 1 && code <= 26) {
        const letter = String.fromCharCode(code + 96);
        return { name: `ctrl+${letter}`, input: letter, key: { ...NO_KEY, ctrl: true } };
      }
      return undefined;
    }
  }
}

/** A single printable key: a digit, a space, a character. */
function printable(ch: string): ParsedKey {
  if (ch === ' ') return { name: 'space', input: ' ', key: NO_KEY };
  if (ch >= '1' && ch <= '9') return { name: 'digit', input: ch, key: NO_KEY };
  return { name: ch, input: ch, key: /[A-Z]/.test(ch) ? { ...NO_KEY, shift: true } : NO_KEY };
}

/**
 * One whole escape sequence (`ESC [1;5D`, `ESC b`, `ESC ESC`): its name, or
 * undefined for one no binding could name (a terminal report such as a cursor position, a mouse event).
 */
export function escapeKey(seq: string): ParsedKey | undefined {
  if (seq === '\u001B' || seq === '\u001B\u001B') return named('escape');
  const csi = /^\u001B\u001B?[[O](\d*)(?:;(\d+))?(?::\d+)?([~A-Za-z])$/.exec(seq);
  if (csi) {
    const [, num, mod, fin] = csi;
    if (fin === 'u') {
      const cp = Number(num);
      const base = CODEPOINT[cp] ?? (cp > 32 && cp < 0x110000 ? String.fromCodePoint(cp).toLowerCase() : undefined);
      if (!base) return undefined;
      const mods = modifiers(mod);
      if (mods === '' && base.length === 1) return printable(base);
      if (mods === 'shift+' && base.length === 1) return printable(base.toUpperCase());
      return named(`${mods}${base}`, base.length === 1 ? base : '');
    }
    const base = fin === '~' ? TILDE[num] : LETTER[fin] ?? (/[a-e]/.test(fin) ? LETTER[fin.toUpperCase()] : undefined);
    if (!base) return undefined;
    // rxvt: ESC [a is Shift+↑, ESC Oa Ctrl+↑; a doubled ESC is Alt
    const rxvt = /[a-e]$/.test(fin) ? (seq[1] === 'O' || seq[2] === 'O' ? 'ctrl+' : 'shift+') : '';
    const alt = seq.startsWith('\u001B\u001B') ? 'meta+' : '';
    if (base === 'shift+tab') return named('shift+tab');
    return named(`${modifiers(mod)}${rxvt}${alt}${base}`.replace(/(meta\+)(.*)meta\+/, '$1$2'));
  }
  // ESC and one character: Alt held with that key
  const rest = seq.slice(1);
  if ([...rest].length !== 1) return undefined;
  const inner = controlKey(rest);
  if (inner) return { name: inner.name?.startsWith('ctrl+') ? `ctrl+meta+${inner.name.slice(5)}` : `meta+${inner.name}`, input: inner.input, key: { ...inner.key, meta: true } };
  return { name: `meta+${rest.toLowerCase() === rest ? rest : `shift+${rest.toLowerCase()}`}`, input: rest, key: { ...NO_KEY, meta: true, shift: rest !== rest.toLowerCase() } };
}

/** A run of plain text with no escape in it: one key when it is one character, else typed text. */
export function textKey(text: string): ParsedKey {
  if ([...text].length === 1) return printable(text);
  return { name: undefined, input: text, key: NO_KEY };
}
