// Path globs compiled to one RegExp: `**` (any number of segments), `*` and `?` (within a
// segment), `{a,b}` alternatives (may nest and contain `/`), `[...]` classes. Used by the
// credential quarantine and by find_files, so both agree on what a glob means.

/** Expands `{a,b}` alternatives into plain globs: `**\/{x,y}*` → [`**\/x*`, `**\/y*`]. */
export function expandBraces(glob: string): string[] {
  let depth = 0;
  let start = -1;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth === 0) {
        const inner = glob.slice(start + 1, i);
        const parts: string[] = [];
        let d = 0;
        let last = 0;
        for (let j = 0; j < inner.length; j++) {
          const ch = inner[j];
          if (ch === '\\') j++;
          else if (ch === '{') d++;
          else if (ch === '}') d--;
          else if (ch === ',' && d === 0) {
            parts.push(inner.slice(last, j));
            last = j + 1;
          }
        }
        parts.push(inner.slice(last));
        if (parts.length < 2) continue; // `{x}` is literal, as in sh
        const head = glob.slice(0, start);
        const tail = glob.slice(i + 1);
        return parts.flatMap((p) => expandBraces(head + p + tail));
      }
    }
  }
  return [glob];
}

const escapeRe = (c: string) => c.replace(/[.+^${}()|[\]\\/*?]/g, '\\$&');

/**
 * RegExp source (no anchors) for one brace-free glob. A trailing `/**` also matches the
 * directory itself, so `**\/.ssh/**` refuses listing `.ssh` as well as reading inside it.
 */
export function globSource(glob: string): string {
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const atStart = i === 0 || glob[i - 1] === '/';
      const next = glob[i + 2];
      if (atStart && next === '/') {
        out += '(?:.*/)?';
        i += 3;
        continue;
      }
      if (atStart && next === undefined) {
        // `a/**` matches `a` and everything under it: drop the `/` we already emitted
        if (out.endsWith('\\/')) out = `${out.slice(0, -2)}(?:/.*)?`;
        else out += '.*';
        i += 2;
        continue;
      }
      out += '[^/]*';
      i += 2;
      continue;
    }
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        let body = glob.slice(i + 1, end);
        const neg = body.startsWith('!') || body.startsWith('^');
        if (neg) body = body.slice(1);
        out += `[${neg ? '^/' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
        i = end + 1;
        continue;
      }
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escapeRe(glob[i + 1]);
      i += 2;
      continue;
    } else out += escapeRe(c);
    i++;
  }
  return out;
}

/** One case-insensitive (by default) RegExp matching any of `globs` against a whole path. */
export function compileGlobs(globs: readonly string[], opts: { caseInsensitive?: boolean } = {}): RegExp {
  const sources = globs.flatMap(expandBraces).map(globSource);
  if (sources.length === 0) return /(?!)/;
  return new RegExp(`^(?:${sources.join('|')})$`, opts.caseInsensitive === false ? '' : 'i');
}

/**
 * A fast tester for many globs: each glob's longest literal run must occur in a matching path,
 * so a path holding none of them is rejected with a few substring checks before the RegExp.
 */
export function globTester(globs: readonly string[], opts: { caseInsensitive?: boolean } = {}): (p: string) => boolean {
  // built on the first path tested: the shipped matcher is a module-level value, and a cold
  // command that never classifies a path should not pay for compiling it
  let tester: ((p: string) => boolean) | undefined;
  return (p) => (tester ??= buildTester(globs, opts))(p);
}

function buildTester(globs: readonly string[], opts: { caseInsensitive?: boolean }): (p: string) => boolean {
  const ci = opts.caseInsensitive !== false;
  // the RegExp (the shipped quarantine is ~70 globs, 3 KB of pattern) is made when a path first
  // holds one of the literals: most cold commands classify only paths that hold none
  let re: RegExp | undefined;
  const test = (p: string) => (re ??= compileGlobs(globs, opts)).test(p);
  const literals: string[] = [];
  for (const g of globs.flatMap(expandBraces)) {
    if (/[\\]/.test(g)) return test; // escapes: no literal shortcut
    const pieces = g.split(/[*?[\]]/).map((s) => s.replace(/^\/+|\/+$/g, ''));
    const best = pieces.reduce((a, b) => (b.length > a.length ? b : a), '');
    if (best.length === 0) return test;
    literals.push(ci ? best.toLowerCase() : best);
  }
  const unique = [...new Set(literals)];
  return (p) => {
    const s = ci ? p.toLowerCase() : p;
    for (const l of unique) if (s.includes(l)) return test(p);
    return false;
  };
}
