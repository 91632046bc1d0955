// Is the terminal light or dark? Asked once at start with OSC 11 (the background colour), followed
// by a device-attributes query every terminal answers, so a terminal that ignores OSC 11 costs one
// round trip, not a timeout. Without an answer: COLORFGBG, else dark.
import type { Buffer } from 'node:buffer';
import type { ThemeName } from './theme.ts';

export interface QueryStreams {
  stdin: { setRawMode?(on: boolean): unknown; on(ev: 'data', fn: (d: Buffer | string) => void): unknown; off(ev: 'data', fn: (d: Buffer | string) => void): unknown; resume(): unknown; pause(): unknown };
  stdout: { write(s: string): unknown };
}

const OSC11 = /\u001B\]11;rgba?:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})/i;
// the device attributes answer: ESC [ ? … c
const DA1 = /\u001B\[\?[\d;]*c/;

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

/** Ask the terminal; resolves with its background, or undefined when it does not say (within `ms`). */
export function queryBackground(io: QueryStreams, ms = 300): Promise<ThemeName | undefined> {
  return new Promise((resolve) => {
    let got = '';
    const done = (v: ThemeName | undefined) => {
      clearTimeout(timer);
      io.stdin.off('data', onData);
      io.stdin.pause();
      io.stdin.setRawMode?.(false);
      resolve(v);
    };
    const onData = (d: Buffer | string) => {
      got += d.toString();
      if (DA1.test(got)) done(backgroundFromAnswer(got));
    };
    const timer = setTimeout(() => done(backgroundFromAnswer(got)), ms);
    io.stdin.setRawMode?.(true);
    io.stdin.on('data', onData);
    io.stdin.resume();
    io.stdout.write('\u001B]11;?\u0007\u001B[c');
  });
}
