// Turns the terminal's input into what the screen acts on: named keys, typed text, and pastes.
// Ink splits what it reads into runs of text and escape sequences and hands each over raw; text
// and Enter (or Backspace, Tab) that arrive in one read (a fast typist over ssh, a terminal driver
// that batches) come as one run: outside a paste each of those keys must still act. Between the
// bracketed-paste markers everything is text.
import { controlKey, escapeKey, textKey, type ParsedKey } from './key_parse.ts';

export { NO_KEY } from './key_parse.ts';

export type InputEvent = ({ kind: 'key' } & ParsedKey) | { kind: 'paste'; text: string };

const PASTE_START = '\u001B[200~';
const PASTE_END = '\u001B[201~';

/** A paste whose end marker never comes (a broken terminal) ends after this much quiet. */
export const PASTE_TIMEOUT_MS = 3000;

// eslint-disable-next-line no-control-regex
const CONTROL = /\r\n|[\u0000-\u001A\u001C-\u001F\u007F]/g;

/**
 * Split a run of text into typed text and the keys inside it, as if the bytes had been read
 * one at a time: `\r` (or `\r\n`) is Enter, a lone `\n` Ctrl+J (a new line), DEL Backspace,
 * `\t` Tab, other control characters Ctrl+letter.
 */
export function splitTyped(input: string): InputEvent[] {
  const out: InputEvent[] = [];
  let last = 0;
  CONTROL.lastIndex = 0;
  for (let m = CONTROL.exec(input); m; m = CONTROL.exec(input)) {
    if (m.index > last) out.push({ kind: 'key', ...textKey(input.slice(last, m.index)) });
    const k = controlKey(m[0] === '\r\n' ? '\r' : m[0]);
    if (k) out.push({ kind: 'key', ...k });
    last = m.index + m[0].length;
  }
  if (last < input.length) out.push({ kind: 'key', ...textKey(input.slice(last)) });
  return out;
}

/** One raw event outside a paste: an escape sequence is one key, anything else text and keys. */
function keysOf(raw: string): InputEvent[] {
  if (raw.startsWith('\u001B')) {
    const k = escapeKey(raw);
    return k ? [{ kind: 'key', ...k }] : [];
  }
  return splitTyped(raw);
}

export class InputDecoder {
  #paste: string | undefined;
  #lastAt = 0;

  /** Inside a bracketed paste (its end marker not seen yet). */
  get pasting(): boolean {
    return this.#paste !== undefined;
  }

  /** One raw event as Ink split it (a run of text, or one escape sequence). */
  feed(raw: string, now = Date.now()): InputEvent[] {
    const out: InputEvent[] = [];
    // A paste left open too long is over: what it held is a paste, what comes now is keys.
    if (this.#paste !== undefined && now - this.#lastAt > PASTE_TIMEOUT_MS) out.push(...this.flush());
    this.#lastAt = now;
    if (this.#paste === undefined) {
      const at = raw.indexOf(PASTE_START);
      if (at === -1) return [...out, ...keysOf(raw)];
      if (at > 0) out.push(...keysOf(raw.slice(0, at)));
      this.#paste = '';
      raw = raw.slice(at + PASTE_START.length);
      if (raw === '') return out;
    }
    const end = raw.indexOf(PASTE_END);
    if (end === -1) {
      this.#paste += raw;
      return out;
    }
    const text = this.#paste + raw.slice(0, end);
    this.#paste = undefined;
    out.push({ kind: 'paste', text });
    const rest = raw.slice(end + PASTE_END.length);
    if (rest !== '') out.push(...this.feed(rest, now));
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
