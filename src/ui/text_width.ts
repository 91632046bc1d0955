// The width of a line in terminal columns, without Unicode segmentation, for the text the UI
// mostly draws: ASCII, SGR colour codes and the box-drawing, punctuation, arrow and braille
// characters of its own rows. string-width answers the same for these but its first non-ASCII
// call compiles a \p{RGI_Emoji} regular expression and starts an Intl.Segmenter (~90 ms under
// Node, ~60 ms under Deno) on the first frame's path. The build (scripts/build.mjs) makes the
// bundled string-width ask here first; anything else (emoji, CJK, combining marks, other escape
// sequences) gets `undefined` and is measured by string-width as before.
// test/ui/text_width.test.ts checks every character accepted here against both string-width
// versions the bundle holds.

/** Whether the code point is one column wide and a grapheme of its own whatever follows it (when what follows is accepted too). */
function narrowSingle(c: number): boolean {
  if (c >= 0xa0 && c <= 0x2ff) return c !== 0xad && c !== 0xa9 && c !== 0xae; // soft hyphen is invisible; © and ® can be emoji
  if (c >= 0x2010 && c <= 0x2027) return true; // dashes, quotes, bullets, ellipsis
  if (c >= 0x2030 && c <= 0x205e) return c !== 0x203c && c !== 0x2049; // ‼ and ⁉ can be emoji
  if (c >= 0x2190 && c <= 0x21ff) return !(c >= 0x2194 && c <= 0x2199) && c !== 0x21a9 && c !== 0x21aa; // arrows, less the emoji ones
  if (c >= 0x2500 && c <= 0x259f) return true; // box drawing, blocks
  if (c >= 0x2800 && c <= 0x28ff) return true; // braille (the spinner)
  return c === 0x2298 || c === 0x25c6 || c === 0x25cb || c === 0x25cf || c === 0x2713 || c === 0x2717; // ⊘ ◆ ○ ● ✓ ✗
}

/** The index of the `m` ending an SGR sequence whose parameters start at `i`, if it is one. */
function sgrEnd(s: string, i: number): number | undefined {
  let digits = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (++digits > 3) return undefined;
    } else if (c === 0x3b && digits > 0) digits = 0;
    else if (c === 0x6d && (digits > 0 || s.charCodeAt(i - 1) === 0x5b)) return i;
    else return undefined;
  }
  return undefined;
}

/** Columns `s` takes, or undefined when it holds anything this does not know (string-width decides then). */
export function narrowWidth(s: string): number | undefined {
  let width = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) width++;
    else if (c === 0x1b && s.charCodeAt(i + 1) === 0x5b) {
      // an SGR sequence (colours, bold) as chalk writes it: ESC [ numbers of 1-3 digits joined by ; then m, no width
      const end = sgrEnd(s, i + 2);
      if (end === undefined) return undefined;
      i = end;
    } else if (narrowSingle(c)) width++;
    else return undefined;
  }
  return width;
}
