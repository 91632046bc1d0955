// Text filters whose options write files or run programs: sort (-o writes, --compress-program
// runs) and ripgrep (--pre and --hostname-bin run programs, -z runs decompressors; Codex's list).
import { ask, flags, optional, reads, refuse, text } from './build.ts';
import type { Parsed, Rules } from './types.ts';

export const SORT: Rules = {
  id: 'sort',
  syntax: 'gnu',
  flags: 'allowlist',
  options: [
    flags('-b', '--ignore-leading-blanks', '-d', '--dictionary-order', '-f', '--ignore-case', '-g', '--general-numeric-sort', '-i', '--ignore-nonprinting', '-M', '--month-sort'),
    flags('-h', '--human-numeric-sort', '-n', '--numeric-sort', '-R', '--random-sort', '-r', '--reverse', '-V', '--version-sort', '-C', '--debug', '-m', '--merge', '-s', '--stable'),
    flags('-u', '--unique', '-z', '--zero-terminated', '--help', '--version'),
    optional('-c', '--check'),
    text('--sort', '--batch-size', '-k', '--key', '-S', '--buffer-size', '-t', '--field-separator', '--parallel'),
    reads('--random-source', '--files0-from'),
    refuse('writes its output to a file (use write_file)', ['-o', '--output'], { arg: 'required', kind: 'write' }),
    refuse('runs a program to compress its temporary files', ['--compress-program'], { arg: 'required' }),
    ask('writes temporary files in that directory', ['-T', '--temporary-directory'], { arg: 'required', kind: 'dir' }),
  ],
};

const rgOperands = (p: Parsed) =>
  p.opts.some((o) => o.opt && ['-e', '--regexp', '-f', '--file', '--files'].includes(o.name)) ? { rest: 'read' as const } : { first: ['text' as const], rest: 'read' as const };

export const RG: Rules = {
  id: 'rg',
  syntax: 'gnu',
  flags: 'denylist',
  recursive: true,
  options: [
    refuse('runs a program on every file searched', ['--pre', '--hostname-bin'], { arg: 'required' }),
    ask('runs decompression programs on compressed files', ['-z', '--search-zip']),
    text('-e', '--regexp', '-g', '--glob', '--iglob', '-t', '--type', '-T', '--type-not', '--type-add', '--type-clear', '-m', '--max-count', '-A', '-B', '-C', '--context'),
    text('-d', '--max-depth', '--max-filesize', '-M', '--max-columns', '-j', '--threads', '-r', '--replace', '-E', '--encoding', '--sort', '--sortr', '--color', '--colors'),
    text('--path-separator', '--pre-glob', '--engine', '--field-match-separator', '--field-context-separator', '--context-separator', '--dfa-size-limit', '--regex-size-limit'),
    reads('-f', '--file', '--ignore-file'),
    { names: ['-L', '--follow'], safe: true, follow: true },
  ],
  operands: rgOperands,
};
