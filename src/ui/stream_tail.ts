// What the live region needs to know of a message still being streamed, kept up to date as it
// grows: where its lines start and which code fences it opened, scanned once per character
// rather than once per frame. With it the tail on screen is laid out from the tail alone: a
// frame's cost does not grow with the answer's length.

// a fence line, as markdown reads one (indented or not); its info word follows the backticks
const FENCE = /^\s*```(.*)$/gm;

/** A text that only grows, scanned up to its last complete line. */
export class TailScan {
  private text = '';
  /** where the text proper starts (leading blank lines and spaces are not part of it) */
  private start = -1;
  /** the scan covers [start, scanned): whole lines */
  private scanned = 0;
  /** positions of the newlines scanned */
  private readonly newlines: number[] = [];
  /** fence lines scanned: where each ends, and its info */
  private readonly fenceEnds: number[] = [];
  private readonly fenceInfo: string[] = [];

  /** Takes `text` (the same text grown, or a new one), scanning only what is new. */
  update(text: string): void {
    if (!this.grownFrom(text)) this.reset();
    this.text = text;
    if (this.start < 0) {
      const m = /\S/.exec(text);
      if (!m) return;
      this.start = m.index;
      this.scanned = m.index;
    }
    const end = text.lastIndexOf('\n');
    if (end < this.scanned) return;
    const lines = text.slice(this.scanned, end + 1);
    for (let i = lines.indexOf('\n'); i !== -1; i = lines.indexOf('\n', i + 1)) this.newlines.push(this.scanned + i);
    for (const m of lines.matchAll(FENCE)) {
      this.fenceEnds.push(this.scanned + m.index + m[0].length);
      this.fenceInfo.push(m[1]);
    }
    this.scanned = end + 1;
  }

  /** The text seen last has `text` as its continuation (checked on its last scanned line, not all of it). */
  private grownFrom(text: string): boolean {
    if (text.length < this.text.length) return false;
    const from = Math.max(0, this.scanned - 256);
    return text.startsWith(this.text.slice(from, this.scanned), from);
  }

  private reset(): void {
    this.text = '';
    this.start = -1;
    this.scanned = 0;
    this.newlines.length = 0;
    this.fenceEnds.length = 0;
    this.fenceInfo.length = 0;
  }

  /**
   * The trimmed text's last `maxLines` lines: their source, how many lines come before them, and
   * the info of a code fence those left open (undefined when none is).
   */
  tail(maxLines: number): { source: string; omitted: number; openFence?: string } {
    if (this.start < 0) return { source: '', omitted: 0 };
    const text = this.text;
    const end = text.trimEnd().length;
    let at = end;
    let n = 0;
    while (n < maxLines && at > this.start) {
      at = text.lastIndexOf('\n', at - 1);
      if (at < this.start) break;
      n++;
    }
    if (at <= this.start) return { source: text.slice(this.start, end), omitted: 0 };
    const omitted = countBelow(this.newlines, at, this.start) + 1;
    const fences = countAtMost(this.fenceEnds, at);
    return { source: text.slice(at + 1, end), omitted, ...(fences % 2 === 1 ? { openFence: this.fenceInfo[fences - 1] } : {}) };
  }
}

/** How many of the sorted `xs` are in [from, x). */
function countBelow(xs: number[], x: number, from: number): number {
  return lowerBound(xs, x) - lowerBound(xs, from);
}

/** How many of the sorted `xs` are <= x. */
function countAtMost(xs: number[], x: number): number {
  return lowerBound(xs, x + 1);
}

/** The first index whose value is >= x. */
function lowerBound(xs: number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
