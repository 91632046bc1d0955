// Where a key sits in a TOML text. @iarna/toml gives positions only for syntax errors, so an
// unknown key or a wrong type is located by scanning the headers and key lines of the source:
// good enough to say `file:LINE:COL`, which is what a user needs to fix it.

export interface KeyLine {
  /** full key path of the line: the table header's segments plus the line's own dotted key */
  path: string[];
  line: number; // 1-based
  col: number; // 1-based, where the key (or header) starts
}

/** Splits a dotted TOML key (`a."b.c".d`) into its segments. */
export function splitDottedKey(key: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (let i = 0; i < key.length; i++) {
    const c = key[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < key.length) cur += key[++i];
      else cur += c;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '.') {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  out.push(cur.trim());
  return out.filter((s) => s !== '');
}

/** Every header and key line of a TOML text, with the key path it defines. */
export function keyLines(text: string): KeyLine[] {
  const out: KeyLine[] = [];
  const lines = text.split(/\r?\n/);
  let table: string[] = [];
  const arrayCounts = new Map<string, number>();
  let inMulti: string | null = null;
  for (let n = 0; n < lines.length; n++) {
    const raw = lines[n];
    if (inMulti) {
      if (raw.includes(inMulti)) inMulti = null;
      continue;
    }
    const trimmed = raw.trimStart();
    const col = raw.length - trimmed.length + 1;
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const header = /^\[(\[)?\s*([^\]]+?)\s*\]\]?/.exec(trimmed);
    if (header) {
      table = splitDottedKey(header[2]);
      if (header[1]) {
        // [[a.b]]: an array of tables; the k-th header is element k
        const key = table.join('.');
        const k = arrayCounts.get(key) ?? 0;
        arrayCounts.set(key, k + 1);
        table = [...table, String(k)];
      }
      out.push({ path: table, line: n + 1, col });
      continue;
    }
    const eq = findEquals(trimmed);
    if (eq > 0) {
      out.push({ path: [...table, ...splitDottedKey(trimmed.slice(0, eq))], line: n + 1, col });
      const value = trimmed.slice(eq + 1);
      const m = /("""|''')/.exec(value);
      if (m && value.indexOf(m[1], m.index + 3) < 0) inMulti = m[1];
    }
  }
  return out;
}

function findEquals(s: string): number {
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '=') return i;
  }
  return -1;
}

/** The line that best locates `path`: the one whose key path shares the longest prefix with it. */
export function locateKey(lines: KeyLine[], path: readonly string[]): { line: number; col: number } | undefined {
  let best: KeyLine | undefined;
  let bestLen = 0;
  for (const l of lines) {
    let k = 0;
    while (k < l.path.length && k < path.length && l.path[k] === path[k]) k++;
    // a line deeper than the path it shares is about something else (a sibling's child)
    if (k < l.path.length && k < path.length) continue;
    if (k > bestLen) {
      best = l;
      bestLen = k;
    }
  }
  return best ? { line: best.line, col: best.col } : undefined;
}
