// Turns Ink's input events into what the screen acts on: keys, typed text, and pastes. Ink hands
// over one event per text run or escape sequence of a read, so text and Enter (or Backspace, Tab)
// that arrive in one read (a fast typist over ssh, a terminal driver that batches) come as one
// string: outside a paste each of those keys must still act. Between the bracketed-paste markers
// everything is text.
import type { Key } from 'ink';

export type InputEvent = { kind: 'key'; input: string; key: Key } | { kind: 'paste'; text: string };

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

const RETURN: Key = { ...NO_KEY, return: true };

// Ink strips the ESC of an escape sequence before handing it over.
const PASTE_START = '[200~';
const PASTE_END = '[201~';

/** A paste whose end marker never comes (a broken terminal) ends after this much quiet. */
export const PASTE_TIMEOUT_MS = 3000;

/** The key a single control character is, as Ink reports it when it arrives alone. */
function controlKey(ch: string): InputEvent | undefined {
  switch (ch) {
    case '\r':
      return { kind: 'key', input: '', key: RETURN };
    case '\n':
      return { kind: 'key', input: '\n', key: NO_KEY };
    case '\t':
      return { kind: 'key', input: '', key: { ...NO_KEY, tab: true } };
    case '\u007F':
      return { kind: 'key', input: '', key: { ...NO_KEY, delete: true } };
    case '\b':
      return { kind: 'key', input: '', key: { ...NO_KEY, backspace: true } };
    default: {
      const code = ch.charCodeAt(0);
      // Ctrl+A … Ctrl+Z (less the ones above); the rest (NUL, Ctrl+\ …) mean nothing here
      if (code >= 1 && code <= 26) return { kind: 'key', input: String.fromCharCode(code + 96), key: { ...NO_KEY, ctrl: true } };
      return undefined;
    }
  }
}

// eslint-disable-next-line no-control-regex
const CONTROL = /\r\n|[\u0000-\u001F\u007F]/g;

/**
 * Split one event's text into typed text and the keys inside it, as if the bytes had been read
 * one at a time: `\r` (or `\r\n`) is Enter, a lone `\n` Ctrl+J (a new line), DEL Backspace,
 * `\t` Tab, other control characters Ctrl+letter.
 */
export function splitTyped(input: string): InputEvent[] {
  const out: InputEvent[] = [];
  let last = 0;
  CONTROL.lastIndex = 0;
  for (let m = CONTROL.exec(input); m; m = CONTROL.exec(input)) {
    if (m.index > last) out.push({ kind: 'key', input: input.slice(last, m.index), key: NO_KEY });
    const k = controlKey(m[0] === '\r\n' ? '\r' : m[0]);
    if (k) out.push(k);
    last = m.index + m[0].length;
  }
  if (last < input.length) out.push({ kind: 'key', input: input.slice(last), key: NO_KEY });
  return out;
}

export class InputDecoder {
  #paste: string | undefined;
  #lastAt = 0;

  /** Inside a bracketed paste (its end marker not seen yet). */
  get pasting(): boolean {
    return this.#paste !== undefined;
  }

  feed(input: string, key: Key, now = Date.now()): InputEvent[] {
    const out: InputEvent[] = [];
    // A paste left open too long is over: what it held is a paste, what comes now is keys.
    if (this.#paste !== undefined && now - this.#lastAt > PASTE_TIMEOUT_MS) out.push(...this.flush());
    this.#lastAt = now;
    if (this.#paste === undefined) {
      const at = input.indexOf(PASTE_START);
      if (at === -1 || !(at === 0 || key.meta)) {
        // eslint-disable-next-line no-control-regex
        if (input.length > 1 && /[\u0000-\u001F\u007F]/.test(input) && !key.meta && !key.ctrl) out.push(...splitTyped(input));
        else out.push({ kind: 'key', input, key });
        return out;
      }
      this.#paste = '';
      input = input.slice(at + PASTE_START.length);
      if (input === '') return out;
    }
    const end = input.indexOf(PASTE_END);
    if (end === -1) {
      this.#paste += key.return ? '\n' : key.tab ? '\t' : input;
      return out;
    }
    const text = this.#paste + input.slice(0, end);
    this.#paste = undefined;
    out.push({ kind: 'paste', text });
    const rest = input.slice(end + PASTE_END.length);
    if (rest !== '') out.push(...this.feed(rest, NO_KEY, now));
    return out;
  }

  /** End an open paste now (its end marker is overdue). */
  flush(): InputEvent[] {
    if (this.#paste === undefined) return [];
    const text = this.#paste;
    this.#paste = undefined;
    return text === '' ? [] : [{ kind: 'paste', text }];
  }
}

// eslint-disable-next-line no-control-regex
const PASTE_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
// eslint-disable-next-line no-control-regex
const PASTE_ESCAPES = /\u001B\[[0-?]*[ -/]*[@-~]|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|\u001B[@-Z\\-_]/g;

/** Pasted text as prompt text: line ends as `\n`, escape sequences and control characters gone. */
export function cleanPaste(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(PASTE_ESCAPES, '').replace(PASTE_CONTROLS, '');
}
