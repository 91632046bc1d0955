// sed: editing in place (-i) writes the files, and the script itself can run and write: the `e`
// command and the `s///e` flag run the pattern space as a shell command, `w`/`W` and `s///w`
// write files, `r`/`R` read files into the output. The script is read here with GNU sed's
// grammar; a script this reader cannot follow is refused rather than guessed. With --sandbox
// GNU sed itself rejects e, w and r, so they cost nothing.
import { flags, refuse, text } from './build.ts';
import type { Parsed, RuleContext, Rules } from './types.ts';

type Hit = { cmd: string; why: string } | null;

const HARMLESS_FILES = new Set(['/dev/stdout', '/dev/stderr', '/dev/stdin']);
const WHY: Record<string, string> = {
  e: 'the `e` command runs a shell command',
  w: 'the `w` command writes a file',
  W: 'the `W` command writes a file',
  r: 'the `r` command reads a file into the output',
  R: 'the `R` command reads a file into the output',
};

/** The first command of `script` that runs, writes or reads a file, or null; throws on a script it cannot read. */
export function sedScriptHit(script: string): Hit {
  const n = script.length;
  let i = 0;
  const ws = () => {
    while (i < n && (script[i] === ' ' || script[i] === '\t')) i++;
  };
  const toEol = () => {
    const start = i;
    while (i < n && script[i] !== '\n') i++;
    return script.slice(start, i);
  };
  // a delimited part (regex or replacement) ending at `delim`; backslash escapes the next char
  const delimited = (delim: string) => {
    while (i < n && script[i] !== delim) {
      if (script[i] === '\\') i++;
      if (script[i] === '\n' && delim !== '\n') {
        // a newline inside a regex or replacement is only allowed escaped
        if (script[i - 1] !== '\\') throw new Error('unterminated');
      }
      i++;
    }
    if (i >= n) throw new Error('unterminated');
    i++;
  };
  const address = () => {
    const c = script[i];
    if (c === '/' || c === '\\') {
      let delim = '/';
      if (c === '\\') {
        i++;
        delim = script[i];
      }
      i++;
      delimited(delim);
      while (i < n && /[IM]/.test(script[i])) i++;
      return true;
    }
    if (/[0-9$]/.test(c ?? '')) {
      while (i < n && /[0-9$~]/.test(script[i])) i++;
      return true;
    }
    return false;
  };
  const file = (cmd: string): Hit => {
    ws();
    const name = toEol().trim();
    return HARMLESS_FILES.has(name) ? null : { cmd, why: WHY[cmd] };
  };
  while (i < n) {
    ws();
    if (i >= n) break;
    const c0 = script[i];
    if (c0 === '\n' || c0 === ';' || c0 === '}') {
      i++;
      continue;
    }
    if (c0 === '#') {
      toEol();
      continue;
    }
    if (address()) {
      ws();
      if (script[i] === ',') {
        i++;
        ws();
        if (script[i] === '+' || script[i] === '~') i++;
        if (!address()) throw new Error('bad address');
      }
    }
    ws();
    while (script[i] === '!') {
      i++;
      ws();
    }
    const cmd = script[i++];
    switch (cmd) {
      case '{':
      case '=': case 'd': case 'D': case 'g': case 'G': case 'h': case 'H': case 'n': case 'N':
      case 'p': case 'P': case 'x': case 'z': case 'F':
        break;
      case 'l': case 'q': case 'Q': case 'L':
        ws();
        while (i < n && /[0-9]/.test(script[i])) i++;
        break;
      case ':': case 'b': case 't': case 'T': case 'v':
        while (i < n && script[i] !== '\n' && script[i] !== ';') i++;
        break;
      case 'a': case 'i': case 'c':
        // text to the end of the line; a line ending in a backslash continues it
        while (i < n) {
          const line = toEol();
          if (!line.endsWith('\\')) break;
          i++;
        }
        break;
      case 'e':
        return { cmd: 'e', why: WHY.e };
      case 'r': case 'R': case 'w': case 'W': {
        const hit = file(cmd);
        if (hit) return hit;
        break;
      }
      case 's': {
        const delim = script[i++];
        if (delim === undefined || delim === '\n' || delim === '\\') throw new Error('bad s');
        delimited(delim);
        delimited(delim);
        while (i < n && /[gpiImM0-9ew]/.test(script[i])) {
          const f = script[i++];
          if (f === 'e') return { cmd: 's///e', why: 'the `e` flag of `s` runs the result as a shell command' };
          if (f === 'w') {
            const hit = file('w');
            if (hit) return { cmd: 's///w', why: 'the `w` flag of `s` writes a file' };
            break;
          }
        }
        break;
      }
      case 'y': {
        const delim = script[i++];
        if (delim === undefined || delim === '\n' || delim === '\\') throw new Error('bad y');
        delimited(delim);
        delimited(delim);
        break;
      }
      default:
        throw new Error(`unknown command ${JSON.stringify(cmd)}`);
    }
  }
  return null;
}

const scriptGiven = (p: Parsed) => p.opts.some((o) => o.opt && ['-e', '--expression', '-f', '--file'].includes(o.name));

function checkSed(c: RuleContext): void {
  const scripts: { text: string; index: number }[] = [];
  for (const o of c.parsed.opts) if ((o.name === '-e' || o.name === '--expression') && o.value !== undefined) scripts.push({ text: o.value, index: o.index });
  if (!scriptGiven(c.parsed) && c.parsed.operands.length) scripts.push({ text: c.parsed.operands[0].value, index: c.parsed.operands[0].index });
  if (c.has('--sandbox')) return;
  for (const s of scripts) {
    let hit: Hit;
    try {
      hit = sedScriptHit(s.text);
    } catch {
      c.find('refuse', 'script', `the script ${JSON.stringify(s.text.length > 40 ? `${s.text.slice(0, 40)}…` : s.text)} cannot be read, so what it runs or writes cannot be checked`, s.index);
      continue;
    }
    if (hit) c.find('refuse', hit.cmd, `${hit.why}; add --sandbox, or use the file tools`, s.index);
  }
}

export const SED: Rules = {
  id: 'sed',
  syntax: 'gnu',
  flags: 'allowlist',
  options: [
    flags('-n', '--quiet', '--silent', '--debug', '--follow-symlinks', '--posix', '-E', '-r', '--regexp-extended', '-s', '--separate', '--sandbox', '-u', '--unbuffered'),
    flags('-z', '--null-data', '-b', '--binary', '--help', '--version'),
    text('-e', '--expression', '-l', '--line-length'),
    refuse('edits the files in place (use edit_file, which shows the diff)', ['-i', '--in-place'], { arg: 'optional' }),
    refuse('reads its script from a file, so what it runs or writes cannot be checked', ['-f', '--file'], { arg: 'required', kind: 'read' }),
  ],
  operands: (p) => (scriptGiven(p) ? { rest: 'read' } : { first: ['text'], rest: 'read' }),
  check: checkSed,
  doc: [
    ...Object.entries(WHY).map(([k, v]) => [`sed ${k}`, 'refuse', `${v} (not with --sandbox)`] as const),
    ['sed s///e', 'refuse', 'the `e` flag of `s` runs the result as a shell command (not with --sandbox)'],
    ['sed s///w', 'refuse', 'the `w` flag of `s` writes a file (not with --sandbox; /dev/stdout and /dev/stderr are harmless)'],
    ['sed script', 'refuse', 'a script this reader cannot follow: what it runs or writes cannot be checked'],
  ],
};
