// Is the terminal light or dark? Asked once at start with OSC 11 (the background colour), followed
// by a device-attributes query every terminal answers, so a terminal that ignores OSC 11 costs one
// round trip, not a timeout. Without an answer: COLORFGBG, else dark.
import type { Buffer } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import type { ThemeName } from './theme.ts';

export interface QueryStreams {
  stdin: {
    setRawMode?(on: boolean): unknown;
    on(ev: 'readable', fn: () => void): unknown;
    off(ev: 'readable', fn: () => void): unknown;
    read(): Buffer | string | null;
    unshift(chunk: Buffer | string): unknown;
    unref?(): unknown;
  };
  stdout: { write(s: string): unknown };
}

const OSC11 = /\u001B\]11;rgba?:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})/i;
// the device attributes answer: ESC [ ? … c
const DA1 = /\u001B\[\?[\d;]*c/;
// the answers as they arrive, to be cut out of what else was read (keys typed meanwhile)
const ANSWERS = /\u001B\]11;[^\u0007\u001B]*(?:\u0007|\u001B\\)|\u001B\[\?[\d;]*c/g;

/** `dark` or `light` from an OSC 11 answer (`rgb:RRRR/GGGG/BBBB`), by its relative luminance. */
export function backgroundFromAnswer(answer: string): ThemeName | undefined {
  const m = OSC11.exec(answer);
  if (!m) return undefined;
  const [r, g, b] = m.slice(1, 4).map((h) => parseInt(h, 16) / (16 ** h.length - 1));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 ? 'light' : 'dark';
}

/** `COLORFGBG=15;0` (rxvt, Konsole): a background of 7 or 9-15 is light. */
export function backgroundFromEnv(env: Record<string, string | undefined>): ThemeName | undefined {
  const bg = Number(env.COLORFGBG?.split(';').pop());
  if (!Number.isInteger(bg)) return undefined;
  return bg === 7 || (bg >= 9 && bg <= 15) ? 'light' : 'dark';
}

/**
 * Ask the terminal; resolves with its background, or undefined when it does not say (within `ms`).
 * Stdin is read as Ink reads it (`readable` and `read()`), never paused or resumed, and left in raw
 * mode for the screen that takes it next: under Deno, a stdin paused and toggled out of raw mode
 * here sometimes never delivered the first keys to Ink's listener (issue 44), and in cooked mode the
 * terminal echoed keys typed before the first frame over it. Keys typed while the answer is awaited
 * are put back on stdin, so the screen reads them first. Whoever takes stdin next owns raw mode
 * (the UI turns it off when it cannot load).
 */
export function queryBackground(io: QueryStreams, ms = 300): Promise<ThemeName | undefined> {
  return new Promise((resolve) => {
    let got = '';
    // a key of several bytes may come split over two reads
    const utf8 = new StringDecoder('utf8');
    const done = () => {
      clearTimeout(timer);
      io.stdin.off('readable', onReadable);
      // still read, but not holding the process open should the UI end before the screen takes
      // stdin (Ink refs it when it does)
      io.stdin.unref?.();
      got += utf8.end();
      const theme = backgroundFromAnswer(got);
      const typed = got.replace(ANSWERS, '');
      if (typed !== '') io.stdin.unshift(typed);
      resolve(theme);
    };
    const onReadable = () => {
      let chunk;
      while ((chunk = io.stdin.read()) !== null) got += typeof chunk === 'string' ? chunk : utf8.write(chunk);
      if (DA1.test(got)) done();
    };
    const timer = setTimeout(done, ms);
    io.stdin.setRawMode?.(true);
    io.stdin.on('readable', onReadable);
    io.stdout.write('\u001B]11;?\u0007\u001B[c');
  });
}
