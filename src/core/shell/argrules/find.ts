// find: starting points, then an expression of single-dash primaries. An allowlist of the tests
// and actions that only read and print; the actions that run programs, delete or write files are
// refused under a command policy (Codex's list: -exec -execdir -ok -okdir -delete -fls -fprint
// -fprint0 -fprintf). Starting points are read recursively: the path rules look inside them.
import type { Level, ReadContext, Rules } from './types.ts';

const RUNS = 'runs a program for each file found';
const WRITES = 'writes the list of files found to a file';

// primary → [number of argument words, what the first one is, cost]
type Primary = [args: number, kind: 'text' | 'read', level?: Level, why?: string];
const P: Record<string, Primary> = {};
const def = (args: number, kind: 'text' | 'read', names: string, level?: Level, why?: string) => {
  for (const n of names.split(' ')) P[n] = [args, kind, level, why];
};
// tests and global options that read nothing but names and metadata
def(0, 'text', '-daystart -depth -d -ignore_readdir_race -mount -noignore_readdir_race -noleaf -xdev -warn -nowarn -empty -executable -false -nogroup -nouser');
def(0, 'text', '-readable -true -writable -print -print0 -prune -quit -ls -not -a -and -o -or ! ( ) ,');
def(1, 'text', '-amin -atime -cmin -ctime -context -fstype -gid -group -ilname -iname -inum -ipath -iregex -iwholename -links -lname -mmin -mtime -name');
def(1, 'text', '-path -perm -regex -regextype -size -type -uid -used -user -wholename -xtype -maxdepth -mindepth -printf');
def(1, 'read', '-anewer -cnewer -newer -samefile');
// actions that run, delete or write
def(0, 'text', '-delete', 'refuse', 'deletes the files it finds');
def(1, 'read', '-fls -fprint -fprint0', 'refuse', WRITES);
def(2, 'read', '-fprintf', 'refuse', WRITES);
def(1, 'read', '-files0-from', 'refuse', 'reads its starting points from a file, so they cannot be checked');

const EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

function readFind(c: ReadContext): void {
  const { argv } = c;
  let i = c.start;
  let follow = false;
  // options before the starting points
  for (; i < argv.length; i++) {
    const w = argv[i];
    if (w === '-H' || w === '-P') continue;
    if (w === '-L') follow = true;
    else if (w === '-D') i++;
    else if (/^-O\d*$/.test(w)) continue;
    else break;
  }
  const points: number[] = [];
  for (; i < argv.length; i++) {
    const w = argv[i];
    if (w.startsWith('-') || w === '(' || w === ')' || w === '!' || w === ',') break;
    points.push(i);
  }
  const starts = points.length ? points : [-1];
  const exprFrom = i;
  // a first pass for -follow, which changes how every starting point is read
  for (let k = exprFrom; k < argv.length; k++) if (argv[k] === '-follow') follow = true;
  for (const k of starts) c.path({ word: k < 0 ? '.' : argv[k], index: k, kind: 'read', recursive: true, follow });
  for (; i < argv.length; i++) {
    const w = argv[i];
    if (EXEC.has(w)) {
      c.find('refuse', w, RUNS, i);
      // the command runs until `;` or `+`: skip it
      while (i + 1 < argv.length && argv[i + 1] !== ';' && argv[i + 1] !== '+') i++;
      i++;
      continue;
    }
    if (w === '-follow') continue;
    const p = /^-newer[amcBt][amcBt]$/.test(w) ? ([1, w.endsWith('t') ? 'text' : 'read'] as Primary) : Object.hasOwn(P, w) ? P[w] : undefined;
    if (!p) {
      c.find('ask', w, `\`${w}\` is not a find primary known to be harmless`, i);
      continue;
    }
    const [args, kind, level, why] = p;
    if (level) c.find(level, w, why!, i);
    if (kind === 'read' && i + 1 < argv.length) c.path({ word: argv[i + 1], index: i + 1, kind: level === 'refuse' && why === WRITES ? 'write' : 'read' });
    i += args;
  }
}

export const FIND: Rules = {
  id: 'find',
  syntax: 'none',
  flags: 'allowlist',
  options: [],
  read: readFind,
  doc: [
    ...[...EXEC].map((p) => [`find ${p}`, 'refuse', RUNS] as const),
    ...Object.entries(P).filter(([, v]) => v[2]).map(([k, v]) => [`find ${k}`, v[2]!, v[3]!] as const),
    ['find PRIMARY', 'ask', `a primary not among the harmless ones: ${Object.entries(P).filter(([, v]) => !v[2]).map(([k]) => k).join(' ')} -newerXY -follow`],
  ],
};
