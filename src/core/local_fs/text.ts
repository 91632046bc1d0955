// Byte-level text helpers: binary detection, line slicing on Buffers (so invalid UTF-8 and CRLF
// survive untouched), and display helpers shared by the tools.
import { countNewlines as countNewlineBytes } from './byte_scan.ts';

/** Bytes sampled for binary detection. */
export const BINARY_SAMPLE = 512;

/** Count of bytes in `b` that are not part of a valid UTF-8 sequence (a cut tail counts valid). */
export function invalidUtf8Bytes(b: Uint8Array): number {
  let bad = 0;
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) (need = 1), (min = 0x80);
    else if (c >= 0xe0 && c <= 0xef) (need = 2), (min = 0x800);
    else if (c >= 0xf0 && c <= 0xf4) (need = 3), (min = 0x10000);
    else {
      bad++;
      i++;
      continue;
    }
    if (i + need >= n) {
      // sequence cut by the end of the sample: not evidence either way
      let ok = true;
      for (let j = i + 1; j < n; j++) if ((b[j] & 0xc0) !== 0x80) ok = false;
      if (ok) break;
    }
    let cp = c & (0xff >> (need + 2));
    let ok = true;
    for (let j = 1; j <= need; j++) {
      const cc = b[i + j];
      if (cc === undefined || (cc & 0xc0) !== 0x80) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (!ok || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      bad++;
      i++;
      continue;
    }
    i += need + 1;
  }
  return bad;
}

/** Binary (docs/local-fs.md, "The tools") = a NUL in the first 512 bytes, or more than 30% of them invalid UTF-8. */
export function isBinary(b: Uint8Array): boolean {
  const sample = b.length > BINARY_SAMPLE ? b.subarray(0, BINARY_SAMPLE) : b;
  if (sample.length === 0) return false;
  if (sample.indexOf(0) !== -1) return true;
  return invalidUtf8Bytes(sample) > sample.length * 0.3;
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** UTF-8 decode with replacement characters for invalid bytes. */
export const decode = (b: Uint8Array): string => decoder.decode(b);

/** Number of lines as `wc -l` counts them (newline characters). */
export const countNewlines = (b: Uint8Array): number => countNewlineBytes(b);

/** Number of lines a text has for display: a last line without newline counts. */
export function lineCount(b: Buffer): number {
  if (b.length === 0) return 0;
  return countNewlines(b) + (b[b.length - 1] === 10 ? 0 : 1);
}

/** Byte offset where 1-based line `line` starts (b.length when past the end). */
export function lineStart(b: Buffer, line: number): number {
  let off = 0;
  for (let l = 1; l < line; l++) {
    const nl = b.indexOf(10, off);
    if (nl === -1) return b.length;
    off = nl + 1;
  }
  return off;
}

/** Bytes of lines [start, end] (1-based, inclusive; end = Infinity for EOF), terminators kept. */
export function sliceLines(b: Buffer, start: number, end: number): { bytes: Buffer; from: number; to: number } {
  const from = lineStart(b, start);
  if (from >= b.length) return { bytes: b.subarray(b.length), from: b.length, to: b.length };
  let to = from;
  if (end === Infinity) to = b.length;
  else {
    for (let l = start; l <= end; l++) {
      const nl = b.indexOf(10, to);
      if (nl === -1) {
        to = b.length;
        break;
      }
      to = nl + 1;
    }
  }
  return { bytes: b.subarray(from, to), from, to };
}

/** Largest prefix of `b` not over `max` bytes that ends on a UTF-8 character boundary. */
export function utf8Prefix(b: Buffer, max: number): Buffer {
  if (b.length <= max) return b;
  let end = max;
  while (end > 0 && (b[end] & 0xc0) === 0x80) end--;
  return b.subarray(0, end);
}

/**
 * Head of `b` in whole lines within `max` bytes. `lines` is how many whole lines it holds;
 * when even the first line is over `max`, its cut head is returned with `lines` 0.
 */
export function headLines(b: Buffer, max: number): { bytes: Buffer; lines: number } {
  if (b.length <= max) return { bytes: b, lines: lineCount(b) };
  const nl = b.lastIndexOf(10, max - 1);
  if (nl === -1) return { bytes: utf8Prefix(b, max), lines: 0 };
  const head = b.subarray(0, nl + 1);
  return { bytes: head, lines: countNewlines(head) };
}

/** 1536 → "1.5 KiB". */
export function humanSize(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** Longest a matched line is shown by grep, in characters. */
export const MAX_SHOWN_LINE = 500;

/** A line's text for display: without a trailing `\r`, cut to MAX_SHOWN_LINE characters. */
export function displayText(s: string): string {
  const t = s.endsWith('\r') ? s.slice(0, -1) : s;
  return t.length > MAX_SHOWN_LINE ? `${t.slice(0, MAX_SHOWN_LINE)}… [line cut at ${MAX_SHOWN_LINE} of ${t.length} characters]` : t;
}

/** A line's bytes for display: without its terminator (`\n`, `\r\n`), as displayText. */
export function displayLine(b: Uint8Array): string {
  return displayText(decode(b.length > 0 && b[b.length - 1] === 10 ? b.subarray(0, -1) : b));
}
