// tar and unzip: listing and creating read what they are given; extracting writes every member
// the archive names (the write wall included, and `../` or absolute names where the archive
// allows), and several of tar's options run programs. Refused under a command policy:
// extraction and the options that run commands. The old bundled form (`tar xzf a.tar`) is read
// as the options it stands for.
import { flags, refuse, text } from './build.ts';
import type { Rules, RuleContext } from './types.ts';

const RUNS = 'runs a program given on the line';
const REMOTE = 'an archive named `host:file` is opened through rsh/ssh on that host; add --force-local for a local file';

// letters of the bundled first word that take the next word, in order
const TAKES = new Set(['f', 'C', 'T', 'X', 'g', 'b', 'H', 'I', 'F', 'K', 'L', 'N', 'V']);

function normalizeTar(argv: readonly string[], start: number): { argv: string[]; map: number[] } | undefined {
  const first = argv[start];
  if (first === undefined || first.startsWith('-') || !/^[A-Za-z]+$/.test(first)) return undefined;
  const out = argv.slice(0, start);
  const map = out.map((_, k) => k);
  let next = start + 1;
  for (const ch of first) {
    out.push(`-${ch}`);
    map.push(start);
    if (TAKES.has(ch) && next < argv.length) {
      out.push(argv[next]);
      map.push(next++);
    }
  }
  for (let k = next; k < argv.length; k++) {
    out.push(argv[k]);
    map.push(k);
  }
  return { argv: out, map };
}

function checkTar(c: RuleContext): void {
  const f = c.has('-f', '--file');
  if (f?.value !== undefined && /^[^/]*:/.test(f.value) && !c.has('--force-local')) c.find('refuse', '--file', REMOTE, f.index);
}

export const TAR: Rules = {
  id: 'tar',
  syntax: 'gnu',
  flags: 'denylist',
  normalize: normalizeTar,
  options: [
    refuse('extracts the members the archive names, which may overwrite any file (use -t to list them)', ['-x', '--extract', '--get']),
    refuse(RUNS, ['-I', '--use-compress-program', '--to-command', '--rsh-command', '--rmt-command', '--checkpoint-action', '-F', '--info-script', '--new-volume-script'], { arg: 'required' }),
    refuse('deletes the files after adding them to the archive', ['--remove-files']),
    refuse('writes a file named on the line', ['--index-file', '--volno-file', '-g', '--listed-incremental'], { arg: 'required', kind: 'write' }),
    { names: ['-f', '--file'], arg: 'required', kind: 'read', safe: true },
    { names: ['-C', '--directory'], arg: 'required', kind: 'dir', safe: true },
    { names: ['-T', '--files-from', '-X', '--exclude-from', '--exclude-ignore', '--exclude-ignore-recursive', '--add-file', '--group-map', '--owner-map'], arg: 'required', kind: 'read', safe: true },
    text('-b', '--blocking-factor', '-H', '--format', '-K', '--starting-file', '-L', '--tape-length', '-N', '--newer', '--after-date', '-V', '--label', '--newer-mtime'),
    text('--exclude', '--exclude-tag', '--exclude-tag-all', '--exclude-tag-under', '--hole-detection', '--level', '--sparse-version', '--group', '--mode', '--mtime', '--owner'),
    text('--sort', '--xattrs-exclude', '--xattrs-include', '--record-size', '--pax-option', '--suffix', '--strip-components', '--transform', '--xform'),
    text('--no-quote-chars', '--quote-chars', '--quoting-style', '--warning'),
    flags('-c', '--create', '-t', '--list', '-z', '-j', '-J', '-Z', '-a', '-v', '--verbose', '-P', '--absolute-names', '-h', '--dereference', '--force-local', '-O', '--to-stdout'),
  ],
  check: checkTar,
  doc: [['tar --file', 'refuse', REMOTE]],
};

// unzip extracts unless told to list, test or print
const UNZIP_READS = ['-l', '-t', '-v', '-Z', '-p', '-c', '-z'];
export const UNZIP: Rules = {
  id: 'unzip',
  syntax: 'gnu-stop',
  flags: 'denylist',
  options: [...UNZIP_READS.map((n) => flags(n)), text('-d', '-x')],
  check: (c) => {
    if (!c.has(...UNZIP_READS)) c.find('refuse', undefined, 'extracts the members the archive names, which may overwrite any file (use -l to list them)', c.start - 1);
  },
  doc: [['unzip', 'refuse', `extracts the members the archive names, which may overwrite any file (not with ${UNZIP_READS.join(' ')}: list, test, print)`]],
};
