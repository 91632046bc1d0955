// Turns the terminal's input into what the screen acts on: named keys, typed text, pastes, and
// the terminal's own reports. Ink splits what it reads into runs of text and escape sequences and
// hands each over raw; text and Enter (or Backspace, Tab) that arrive in one read (a fast typist
// over ssh, a terminal driver that batches) come as one run: outside a paste each of those keys
// must still act. Between the bracketed-paste markers everything is text. A terminal's answer that
// comes late (the background colour asked at start) or a sequence cut between two reads is
// joined up here and never becomes typed text (escape_sequence.ts says where a sequence ends).
import { isBare, scanEscape, shortened, type SequenceKind } from './escape_sequence.ts';
import { controlKey, escapeKey, textKey, type ParsedKey } from './key_parse.ts';

export { NO_KEY } from './key_parse.ts';

/**
 * A key, a paste, or something the terminal reports: focus gained or lost, or a whole string
 * (`ESC ]11;rgb:…` and the like: an answer that came after its query stopped waiting). No report
 * is ever a key or typed text.
 */
export type InputEvent = ({ kind: 'key' } & ParsedKey) | { kind: 'paste'; text: string } | { kind: 'focus'; focused: boolean } | { kind: 'report'; text: string };

const ESC = '\u001B';
const PASTE_START = '\u001B[200~';
const PASTE_END = '\u001B[201~';
const FOCUS_IN = '\u001B[I';
const FOCUS_OUT = '\u001B[O';

/** A paste whose end marker never comes (a broken terminal) ends after this much quiet. */
export const PASTE_TIMEOUT_MS = 3000;
/**
 * A lone ESC (or Alt+[, Alt+]: the start of a longer sequence) is that key once this long has
 * passed with nothing after it. Ink already waits for the rest of a sequence within one turn of
 * the event loop; a reply cut between two reads (over ssh) may take longer. Short enough that Esc
 * still feels at once.
 */
export const ESC_TIMEOUT_MS = 50;
/** A sequence that has begun (`ESC [?64;`, `ESC ]11;rgb:…`) and is not done this long after its ESC is dropped. */
export const REPORT_TIMEOUT_MS = 500;

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

export class InputDecoder {
  /** The start of an escape sequence still waiting for the rest of it. */
  #held = '';
  #heldAt = 0;
  /** The paste so far: only appended to, never searched whole (a long paste comes in thousands of pieces). */
  #paste: string | undefined;
  /** Its last few characters: where an end marker cut between pieces begins. */
  #pasteTail = '';
  #lastAt = 0;

  /** Inside a bracketed paste (its end marker not seen yet). */
  get pasting(): boolean {
    return this.#paste !== undefined;
  }

  /**
   * The next piece of input as Ink hands it over (a run of text, one escape sequence, or part of
   * one): the keys, pastes and reports it completes, in order. Ink's pieces are joined again, so
   * where a read ended does not matter.
   */
  feed(raw: string, now = Date.now()): InputEvent[] {
    const out = this.expire(now);
    this.#lastAt = now;
    const s = this.#held + raw;
    const since = this.#held === '' ? now : this.#heldAt;
    this.#held = '';
    let i = 0;
    while (i < s.length) {
      if (this.#paste !== undefined) {
        const rest = this.#pasted(s.slice(i), out);
        if (rest === undefined) return out;
        i = s.length - rest.length;
        continue;
      }
      const esc = s.indexOf(ESC, i);
      if (esc === -1) {
        out.push(...splitTyped(s.slice(i)));
        break;
      }
      if (esc > i) out.push(...splitTyped(s.slice(i, esc)));
      const scan = scanEscape(s, esc);
      if (scan === 'pending') {
        this.#held = shortened(s.slice(esc));
        // a sequence still held from before keeps its start
        this.#heldAt = esc === 0 ? since : now;
        break;
      }
      out.push(...this.#sequence(s.slice(esc, scan.end), scan.kind));
      i = scan.end;
    }
    return out;
  }

  /**
   * When what is held must be decided (a sequence's rest, a paste's end marker, overdue): a lone
   * ESC is Esc after ESC_TIMEOUT_MS, a report cut short is dropped after REPORT_TIMEOUT_MS, a paste
   * ends after PASTE_TIMEOUT_MS of quiet. Undefined when nothing is held.
   */
  deadline(): number | undefined {
    if (this.#paste !== undefined) return this.#lastAt + PASTE_TIMEOUT_MS;
    if (this.#held === '') return undefined;
    return this.#heldAt + (isBare(this.#held) ? ESC_TIMEOUT_MS : REPORT_TIMEOUT_MS);
  }

  /** What is held past its deadline, decided: the key it is alone (Esc, Alt+]), the paste, or nothing. */
  expire(now = Date.now()): InputEvent[] {
    const due = this.deadline();
    if (due === undefined || now < due) return [];
    if (this.#paste !== undefined) return this.flush();
    const held = this.#held;
    this.#held = '';
    return isBare(held) ? keysOf(held) : [];
  }

  /** End an open paste now (its end marker is overdue). */
  flush(): InputEvent[] {
    if (this.#paste === undefined) return [];
    const text = this.#paste;
    this.#paste = undefined;
    return text === '' ? [] : [{ kind: 'paste', text }];
  }

  /** Text inside a paste: undefined while the end marker is still to come, else what follows it. */
  #pasted(text: string, out: InputEvent[]): string | undefined {
    const before = this.#paste ?? '';
    const window = this.#pasteTail + text;
    const at = window.indexOf(PASTE_END);
    if (at === -1) {
      this.#paste = before + text;
      this.#pasteTail = window.slice(-(PASTE_END.length - 1));
      return undefined;
    }
    // where the marker begins in `text`: before it (negative) when it began in an earlier piece
    const cut = at - this.#pasteTail.length;
    this.#paste = undefined;
    out.push({ kind: 'paste', text: cut < 0 ? before.slice(0, before.length + cut) : before + text.slice(0, cut) });
    return text.slice(cut + PASTE_END.length);
  }

  #sequence(seq: string, kind: SequenceKind): InputEvent[] {
    if (kind === 'string') return [{ kind: 'report', text: seq }];
    if (kind === 'broken') return [];
    if (seq === PASTE_START) {
      this.#paste = '';
      this.#pasteTail = '';
      return [];
    }
    // the terminal's focus reports (DECSET 1004)
    if (seq === FOCUS_IN || seq === FOCUS_OUT) return [{ kind: 'focus', focused: seq === FOCUS_IN }];
    return keysOf(seq);
  }
}

/** One whole escape sequence: its key, or none (a CSI report, a mouse event, a key no binding names). */
function keysOf(seq: string): InputEvent[] {
  const k = escapeKey(seq);
  return k ? [{ kind: 'key', ...k }] : [];
}

// eslint-disable-next-line no-control-regex
const PASTE_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
// eslint-disable-next-line no-control-regex
const PASTE_ESCAPES = /\u001B\[[0-?]*[ -/]*[@-~]|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|\u001B[@-Z\\-_]/g;

/** Pasted text as prompt text: line ends as `\n`, escape sequences and control characters gone. */
export function cleanPaste(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(PASTE_ESCAPES, '').replace(PASTE_CONTROLS, '');
}
