// Agent text as markdown, parsed by `marked` (GFM) and laid out as rows: headings, emphasis,
// strikethrough, quotes, nested and task lists, tables laid out to the width, links (an OSC 8
// hyperlink whose target is shown after any text that is not the target: link_target.ts), rules, and code fences highlighted by language
// (highlight.ts) with no gutter. Two layouts: `soft` for history, where a word wider than the
// screen (a URL, a long command) and every code line are left whole for the terminal to wrap, so a
// copy from the scrollback is the text; and the live region's, where every row fits the width
// (Ink counts rows to redraw them).
// marked is loaded after the first frame, not at start (its rules cost ~8 ms under Deno, ~12 ms
// under Node, of a frame that shows no answer yet): until it is in, text is laid out plain, and
// whoever prints for good (history) waits for `markdownReady()`.
import type { Token, Tokens } from 'marked';
import { highlightCode } from './highlight.ts';
import { lateModule } from './late_module.ts';
import { linkTarget } from './link_target.ts';
import { TailScan } from './stream_tail.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { textWidth, type Row, type Span } from './text_layout.ts';

export type Style = Omit<Span, 'text'>;

const marked = lateModule(() => import('marked').then(({ Lexer }) => (src: string, options: { gfm: boolean; breaks: boolean }): Token[] => Lexer.lex(src, options)));

/** Start loading marked (once); resolves when it is in. */
export const loadMarkdown = marked.load;
export const markdownReady = marked.ready;
/** Called once marked is in (to draw again what was laid out plain). */
export const onMarkdownReady = marked.onReady;

export interface MarkdownOptions {
  /** Leave long words and code lines whole (history); otherwise break them to the width. */
  soft?: boolean;
}

interface Ctx {
  width: number;
  base: Style;
  soft: boolean;
}

// ---- inline ----------------------------------------------------------------------------------

function inlineSpans(tokens: readonly Token[] | undefined, style: Style): Span[] {
  const out: Span[] = [];
  for (const t of tokens ?? []) {
    switch (t.type) {
      case 'strong':
        out.push(...inlineSpans((t as Tokens.Strong).tokens, { ...style, bold: true }));
        break;
      case 'em':
        out.push(...inlineSpans((t as Tokens.Em).tokens, { ...style, italic: true }));
        break;
      case 'del':
        out.push(...inlineSpans((t as Tokens.Del).tokens, { ...style, strike: true }));
        break;
      case 'codespan':
        out.push({ ...style, text: (t as Tokens.Codespan).text, color: 'code' });
        break;
      case 'link': {
        const l = t as Tokens.Link;
        const label = inlineSpans(l.tokens, { ...style, color: 'link', underline: true });
        // the target is shown where the text does not say it (and stays readable where the
        // terminal has no hyperlinks, copying with the text)
        const shown = linkTarget(label.map((s) => s.text).join(''), l.href);
        out.push(...label.map((s) => (shown.link ? { ...s, link: shown.link } : s)));
        if (shown.note) out.push({ ...style, text: shown.note, color: 'muted', ...(shown.link ? { link: shown.link } : {}) });
        break;
      }
      case 'image': {
        const i = t as Tokens.Image;
        const shown = linkTarget(i.text || i.href, i.href);
        out.push({ ...style, text: `[image: ${i.text || i.href}]${shown.note ?? ''}`, color: 'muted', ...(shown.link ? { link: shown.link } : {}) });
        break;
      }
      case 'br':
        out.push({ ...style, text: '\n' });
        break;
      case 'text':
      case 'escape': {
        const x = t as Tokens.Text;
        if (x.tokens && x.tokens.length > 0) out.push(...inlineSpans(x.tokens, style));
        else out.push({ ...style, text: x.text.replace(/\n/g, ' ') });
        break;
      }
      default:
        if ('text' in t && typeof t.text === 'string') out.push({ ...style, text: t.text });
    }
  }
  return out;
}

// ---- wrapping styled text --------------------------------------------------------------------

interface Piece {
  span: Span;
  space: boolean;
}

/** Spans cut into words and runs of space, each piece keeping its style. */
function pieces(spans: Span[]): Piece[][] {
  // a "word" is a run of non-space pieces, possibly across spans (**bold**text)
  const words: Piece[][] = [];
  let cur: Piece[] = [];
  const flush = () => {
    if (cur.length) words.push(cur);
    cur = [];
  };
  for (const s of spans) {
    for (const part of forTerminal(s.text).split(/(\s+)/)) {
      if (part === '') continue;
      if (/^\s+$/.test(part)) {
        flush();
        // a line break is its own piece; other runs of space keep their width (indentation)
        for (const [i, run] of part.split('\n').entries()) {
          if (i > 0) words.push([{ span: { ...s, text: '\n' }, space: true }]);
          if (run !== '') words.push([{ span: { ...s, text: run }, space: true }]);
        }
      } else cur.push({ span: { ...s, text: part }, space: false });
    }
  }
  flush();
  return words;
}

const wordWidth = (w: Piece[]) => w.reduce((n, p) => n + textWidth(p.span.text), 0);

/** Break one word into pieces of at most `width` cells. */
function breakWord(word: Piece[], width: number): Piece[][] {
  const out: Piece[][] = [];
  let line: Piece[] = [];
  let w = 0;
  for (const p of word) {
    let text = '';
    for (const ch of p.span.text) {
      const cw = textWidth(ch);
      if (w + cw > width && w > 0) {
        if (text) line.push({ span: { ...p.span, text }, space: false });
        out.push(line);
        line = [];
        text = '';
        w = 0;
      }
      text += ch;
      w += cw;
    }
    if (text) line.push({ span: { ...p.span, text }, space: false });
  }
  if (line.length) out.push(line);
  return out;
}

/**
 * Lay styled spans out in rows of `width` cells: `first` before the first row, `indent` before the
 * others. A word wider than the room is left whole when `soft` (the terminal wraps it), else broken.
 */
export function wrapSpans(spans: Span[], width: number, first: Span[], indent: Span[], soft: boolean): Row[] {
  const rows: Row[] = [];
  const room = (i: number) => Math.max(1, width - textWidth((i === 0 ? first : indent).map((s) => s.text).join('')));
  let line: Piece[] = [];
  let w = 0;
  let pendingSpace: Piece | undefined;
  // at the start of a source line, space is indentation and is kept; after a wrap it is dropped
  let lineStart = true;
  const push = () => {
    rows.push([...(rows.length === 0 ? first : indent), ...merge(line.map((p) => p.span))]);
    line = [];
    w = 0;
    pendingSpace = undefined;
  };
  for (const word of pieces(spans)) {
    if (word[0].space) {
      if (word[0].span.text === '\n') {
        push();
        lineStart = true;
      } else if (line.length || lineStart) pendingSpace = word[0];
      continue;
    }
    lineStart = false;
    const ww = wordWidth(word);
    const sp = pendingSpace ? textWidth(pendingSpace.span.text) : 0;
    // soft: a word wider than any row stays on this one, so it copies joined to what precedes it
    if (w + sp + ww <= room(rows.length) || (soft && ww > room(rows.length) && line.length > 0)) {
      if (pendingSpace) line.push(pendingSpace);
      line.push(...word);
      w += sp + ww;
      pendingSpace = undefined;
      continue;
    }
    if (line.length) push();
    if (ww <= room(rows.length) || soft) {
      line.push(...word);
      w = ww;
      continue;
    }
    const parts = breakWord(word, room(rows.length));
    parts.forEach((part, i) => {
      line.push(...part);
      w = wordWidth(part);
      if (i < parts.length - 1) push();
    });
  }
  if (line.length || rows.length === 0) push();
  return rows;
}

/** Neighbouring spans of one style as one span (fewer Ink nodes per row). */
function merge(spans: Span[]): Span[] {
  const out: Span[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && sameStyle(last, s)) out[out.length - 1] = { ...last, text: last.text + s.text };
    else out.push({ ...s });
  }
  return out;
}

function sameStyle(a: Span, b: Span): boolean {
  return a.color === b.color && a.bold === b.bold && a.dim === b.dim && a.italic === b.italic && a.strike === b.strike && a.underline === b.underline && a.link === b.link && a.inverse === b.inverse;
}

// ---- blocks ----------------------------------------------------------------------------------

function codeRows(code: Tokens.Code, c: Ctx): Row[] {
  const lang = (code.lang ?? '').trim().split(/\s+/)[0] ?? '';
  const text = forTerminal(code.text);
  const lit = highlightCode(text, lang) ?? text.split('\n').map((l) => (l === '' ? [] : [{ text: l, color: 'code' }]));
  const rows: Row[] = [[{ text: `┌ ${lang || 'code'}`, color: 'muted' }]];
  for (const line of lit) {
    // no gutter: a line copied from the screen is the line of code
    if (c.soft) rows.push(line.length ? line : []);
    else rows.push(...wrapSpans(line, c.width, [], [], false));
  }
  rows.push([{ text: '└', color: 'muted' }]);
  return rows;
}

function headingRows(h: Tokens.Heading, c: Ctx): Row[] {
  const style: Style = { ...c.base, bold: true, ...(h.depth <= 2 ? { color: 'heading' } : {}), ...(h.depth === 1 ? { underline: true } : {}) };
  return wrapSpans(inlineSpans(h.tokens, style), c.width, [], [], c.soft);
}

function listRows(list: Tokens.List, c: Ctx): Row[] {
  const rows: Row[] = [];
  const start = typeof list.start === 'number' ? list.start : 1;
  list.items.forEach((item, i) => {
    const mark = list.ordered ? `${start + i}.` : '•';
    const box = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
    const lead = `${mark} ${box}`;
    const pad = ' '.repeat(textWidth(lead));
    const inner = blockRows(item.tokens.filter((t) => t.type !== 'checkbox'), { ...c, width: Math.max(8, c.width - textWidth(lead)) }, true);
    inner.forEach((r, j) => rows.push([{ ...c.base, text: j === 0 ? lead : pad, ...(j === 0 && item.task && item.checked ? { color: 'ok' } : {}) }, ...r]));
    if (item.loose && i < list.items.length - 1) rows.push([]);
  });
  return rows;
}

function quoteRows(q: Tokens.Blockquote, c: Ctx): Row[] {
  return blockRows(q.tokens, { ...c, width: Math.max(8, c.width - 2), base: { ...c.base, italic: true, color: 'quote' } }, false).map((r) => [{ text: '▌ ', color: 'muted' }, ...r]);
}

/** Column widths: each column's widest cell, the widest ones narrowed until the row fits. */
function columnWidths(natural: number[], room: number): number[] {
  const widths = natural.map((n) => Math.max(3, n));
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest] <= 6) break;
    widths[widest]--;
    total--;
  }
  return widths;
}

function tableRows(t: Tokens.Table, c: Ctx): Row[] {
  const cols = t.header.length;
  const cells = [t.header, ...t.rows].map((row) => row.map((cell, i) => inlineSpans(cell.tokens, i < cols && row === t.header ? { ...c.base, bold: true } : c.base)));
  const natural = Array.from({ length: cols }, (_, i) => Math.max(...cells.map((r) => textWidth((r[i] ?? []).map((s) => s.text).join('')))));
  const widths = columnWidths(natural, c.width - (cols - 1) * 3);
  const sep: Span = { text: ' │ ', color: 'muted' };
  const out: Row[] = [];
  cells.forEach((row, ri) => {
    const wrapped = widths.map((w, i) => wrapSpans(row[i] ?? [], w, [], [], false));
    const height = Math.max(...wrapped.map((w) => w.length));
    for (let line = 0; line < height; line++) {
      const r: Row = [];
      widths.forEach((w, i) => {
        const part = wrapped[i][line] ?? [];
        const room = Math.max(0, w - textWidth(part.map((s) => s.text).join('')));
        const right = t.align[i] === 'right';
        if (i > 0) r.push(sep);
        if (right && room) r.push({ text: ' '.repeat(room) });
        r.push(...part);
        if (!right && room && i < cols - 1) r.push({ text: ' '.repeat(room) });
      });
      out.push(r);
    }
    if (ri === 0) out.push([{ text: widths.map((w) => '─'.repeat(w)).join('─┼─'), color: 'muted' }]);
  });
  return out;
}

function blockRows(tokens: readonly Token[], c: Ctx, tight: boolean): Row[] {
  const rows: Row[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case 'space':
        if (!tight) rows.push([]);
        break;
      case 'paragraph':
        rows.push(...wrapSpans(inlineSpans((t as Tokens.Paragraph).tokens, c.base), c.width, [], [], c.soft));
        break;
      case 'text': {
        const x = t as Tokens.Text;
        rows.push(...wrapSpans(x.tokens ? inlineSpans(x.tokens, c.base) : [{ ...c.base, text: x.text }], c.width, [], [], c.soft));
        break;
      }
      case 'heading':
        rows.push(...headingRows(t as Tokens.Heading, c));
        break;
      case 'code':
        rows.push(...codeRows(t as Tokens.Code, c));
        break;
      case 'list':
        rows.push(...listRows(t as Tokens.List, c));
        break;
      case 'blockquote':
        rows.push(...quoteRows(t as Tokens.Blockquote, c));
        break;
      case 'table':
        rows.push(...tableRows(t as Tokens.Table, c));
        break;
      case 'hr':
        rows.push([{ text: '─'.repeat(Math.min(c.width, 40)), color: 'muted' }]);
        break;
      default:
        if ('text' in t && typeof t.text === 'string') rows.push(...wrapSpans([{ ...c.base, text: t.text.replace(/\n+$/, '') }], c.width, [], [], c.soft));
    }
  }
  return rows;
}

export function markdownRows(text: string, width: number, base: Style = {}, opts: MarkdownOptions = {}): Row[] {
  const lex = marked.get();
  if (!lex) {
    void loadMarkdown();
    return forTerminal(text)
      .split('\n')
      .flatMap((line) => wrapSpans(line === '' ? [] : [{ ...base, text: line }], Math.max(8, width), [], [], opts.soft ?? false));
  }
  // a line break in a paragraph is kept (`breaks`): agents write lines meant as lines
  const tokens = lex(forTerminal(text), { gfm: true, breaks: true });
  return blockRows(tokens, { width: Math.max(8, width), base, soft: opts.soft ?? false }, false);
}

/**
 * The last rows of a long message without laying out all of it: only the last `maxLines` source
 * lines of the trimmed text are parsed (a streamed answer is drawn again every frame). Returns how
 * many lines were left out; a code block they leave open is opened again (with its language)
 * before the tail. `scan`, kept by the caller for a message that grows, makes finding the tail
 * cost what was added since the last call, not the whole message (stream_tail.ts).
 */
export function markdownTail(text: string, width: number, maxLines: number, base: Style = {}, scan = new TailScan()): { rows: Row[]; omitted: number } {
  scan.update(text);
  const { source, omitted, openFence } = scan.tail(maxLines);
  if (omitted === 0) return { rows: markdownRows(source, width, base), omitted: 0 };
  const open = openFence === undefined ? '' : `\`\`\`${openFence}\n`;
  const rows = markdownRows(open + source, width, base);
  // the re-opened fence's header row was not on screen: leave it out
  return { rows: open ? rows.slice(1) : rows, omitted };
}
