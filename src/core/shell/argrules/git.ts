// git: global options (-c, --exec-path=, --git-dir, --work-tree name configuration and programs
// git then runs; -C moves it, and the path rules keep it inside the allowed dir), then a
// subcommand. Read-only subcommands have flag allowlists (git_read.ts). Anywhere: --output
// writes, --ext-diff/--textconv/--upload-pack/--receive-pack/--exec/-O run programs, `git config`
// writes configuration, and a name git does not know as a command is an alias from configuration
// or a `git-<name>` program from PATH. Whether git may run unasked at all also depends on which
// repository it finds (step_args.ts) and on running it with repository-driven execution off
// (git_harden.ts).
import { ask, flags, refuse, text } from './build.ts';
import { gitOperands } from './git_paths.ts';
import { GIT_READ } from './git_read.ts';
import type { Opt, RuleContext, Rules } from './types.ts';

const CONFIG_RUNS = 'sets configuration for this run, which can name programs git runs (core.pager, core.fsmonitor, diff.external, alias.*)';

const GLOBAL: Opt[] = [
  refuse(CONFIG_RUNS, ['-c', '--config-env'], { arg: 'required' }),
  refuse('points git at another repository or work tree, whose configuration runs', ['--git-dir', '--work-tree', '--super-prefix'], { arg: 'required' }),
  // --exec-path alone prints the path; --exec-path=DIR runs git's programs from DIR
  { names: ['--exec-path'], arg: 'optional', safe: true },
  { names: ['-C'], arg: 'required', kind: 'dir', safe: true },
  ask('selects another ref namespace', ['--namespace', '--attr-source'], { arg: 'required' }),
  ask('treats the directory as a bare repository', ['--bare']),
  ask('runs the pager', ['-p', '--paginate']),
  flags('-P', '--no-pager', '--no-replace-objects', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-optional-locks'),
  flags('--no-advice', '--no-lazy-fetch', '--version', '-v', '--help', '-h', '--html-path', '--man-path', '--info-path'),
  text('--list-cmds'),
];

// Options that run programs or write files, whichever subcommand they come with (read with
// git's abbreviations: `--ext` is `--ext-diff`).
const ANY: Opt[] = [
  refuse('writes the output to a file', ['--output', '--output-directory'], { arg: 'required', kind: 'write' }),
  refuse('runs the external diff program configuration names', ['--ext-diff']),
  refuse('runs the textconv filters configuration names', ['--textconv']),
  refuse('names the program git runs on the other end (a local path runs here)', ['--upload-pack', '--receive-pack', '--exec'], { arg: 'required' }),
  refuse('opens the files in a pager, which runs commands', ['--open-files-in-pager'], { arg: 'optional' }),
  refuse('runs a command given on the line', ['--extcmd', '--tool-help'], { arg: 'required' }),
  refuse('copies hooks from a template directory, which then run', ['--template'], { arg: 'required' }),
];

const TRANSPORT = /^(?:ext|fd)::/;
function checkAny(c: RuleContext): void {
  for (const o of c.parsed.operands) if (TRANSPORT.test(o.value)) c.find('refuse', o.value.slice(0, o.value.indexOf('::') + 2), 'the ext:: and fd:: transports run a command', o.index);
  gitOperands(c);
}

const sub = (id: string, own: Opt[] = [], check: (c: RuleContext) => void = checkAny): Rules => ({ id, syntax: 'gnu', flags: 'denylist', options: [...ANY, ...own], operands: { rest: 'text' }, check });
const refused = (id: string, why: string): Rules => ({ id, syntax: 'gnu', flags: 'denylist', options: [], always: { level: 'refuse', why }, operands: { rest: 'text' } });

const CONFIG_WRITES = ['--add', '--unset', '--unset-all', '--replace-all', '--rename-section', '--remove-section', '-e', '--edit'];
const CONFIG_READS = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '-l', '--list'];

function checkConfig(c: RuleContext): void {
  const verb = c.parsed.operands[0]?.value;
  const write = CONFIG_WRITES.find((w) => c.has(w));
  const reads = CONFIG_READS.some((r) => c.has(r)) || verb === 'get' || verb === 'list';
  const newVerb = verb !== undefined && ['set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(verb);
  if (write || newVerb || (!reads && c.parsed.operands.length >= 2)) {
    c.find('refuse', write ?? verb ?? 'config', 'changes git configuration, which can name programs git runs (core.pager, core.fsmonitor, alias.*)', c.start - 1, 'config');
  }
}

const CONFIG: Rules = {
  id: 'git config',
  syntax: 'gnu',
  flags: 'denylist',
  options: [
    ...CONFIG_WRITES.map((n) => ({ names: [n], safe: true })),
    ...CONFIG_READS.map((n) => ({ names: [n], safe: true })),
    { names: ['-f', '--file'], arg: 'required', kind: 'read', safe: true },
    text('--blob', '--type', '--default', '--comment', '--value'),
  ],
  operands: { rest: 'text' },
  check: checkConfig,
};

// every command git 2.39+ knows; any other name is an alias or `git-<name>` on PATH
const KNOWN = (
  'add am annotate apply archive backfill bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format ' +
  'checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree count-objects describe diagnose diff diff-files ' +
  'diff-index diff-tree fast-export fast-import fetch fetch-pack fmt-merge-msg for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id gitk ' +
  'grep gui hash-object help index-pack init interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge ' +
  'merge-base merge-file merge-index merge-tree mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id prune ' +
  'prune-packed pull push range-diff read-tree rebase reflog refs remote repack replace replay repo request-pull rerere reset restore rev-list revert rm ' +
  'send-pack shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace switch symbolic-ref tag unpack-file ' +
  'unpack-objects update-index update-ref update-server-info var verify-commit verify-pack verify-tag version whatchanged worktree write-tree'
).split(' ');

const SUBS: Record<string, Rules> = {};
for (const k of KNOWN) SUBS[k] = sub(`git ${k}`);
Object.assign(SUBS, GIT_READ, {
  config: CONFIG,
  clone: sub('git clone', [refuse('sets configuration in the new repository, which can name programs git runs', ['-c', '--config'], { arg: 'required' }), refuse('names the program git runs on the other end', ['-u'], { arg: 'required' })]),
  archive: sub('git archive', [refuse('writes the archive to a file', ['-o'], { arg: 'required', kind: 'write' })]),
  bundle: sub('git bundle', [], (c) => {
    checkAny(c);
    if (c.parsed.operands[0]?.value === 'create') c.find('refuse', 'create', 'writes a bundle file', c.parsed.operands[0].index, 'bundle');
  }),
  'format-patch': sub('git format-patch', [refuse('writes the patches into a directory', ['-o'], { arg: 'required', kind: 'dir' })]),
  grep: sub('git grep', [refuse('opens the files in a pager, which runs commands', ['-O'], { arg: 'optional' })]),
  rebase: sub('git rebase', [refuse('runs a command after each commit', ['-x'], { arg: 'required' })]),
  difftool: sub('git difftool', [refuse('runs a command given on the line', ['-x'], { arg: 'required' })], (c) => {
    checkAny(c);
    c.find('ask', undefined, 'runs the diff tool configuration names', c.start - 1);
  }),
  bisect: sub('git bisect', [], (c) => {
    checkAny(c);
    if (c.parsed.operands[0]?.value === 'run') c.find('refuse', 'run', 'runs a command given on the line for each step', c.parsed.operands[0].index, 'bisect');
  }),
  submodule: sub('git submodule', [], (c) => {
    checkAny(c);
    const verb = c.parsed.operands.find((o) => !o.value.startsWith('-'));
    if (verb?.value === 'foreach') c.find('refuse', 'foreach', 'runs a command given on the line in each submodule', verb.index, 'submodule');
  }),
  'filter-branch': refused('git filter-branch', 'runs the shell filters given on the line'),
  mergetool: refused('git mergetool', 'runs the merge tool configuration names'),
  'send-email': refused('git send-email', 'sends mail, and its options name programs to run'),
  credential: refused('git credential', 'prints or stores credentials'),
  'credential-store': refused('git credential-store', 'prints or stores credentials'),
  'credential-cache': refused('git credential-cache', 'prints or stores credentials'),
  hook: refused('git hook', 'runs the repository\'s hooks'),
  daemon: refused('git daemon', 'serves the repository on the network'),
  instaweb: refused('git instaweb', 'starts a web server and a browser'),
  'http-backend': refused('git http-backend', 'serves the repository'),
  'upload-pack': refused('git upload-pack', 'is the server side of a fetch'),
  'receive-pack': refused('git receive-pack', 'is the server side of a push, and runs its hooks'),
  'upload-archive': refused('git upload-archive', 'is the server side of an archive'),
  'remote-ext': refused('git remote-ext', 'runs a command given on the line'),
  'remote-fd': refused('git remote-fd', 'talks to a file descriptor'),
  shell: refused('git shell', 'runs commands it reads'),
  p4: refused('git p4', 'runs Perforce'),
  svn: refused('git svn', 'runs Subversion'),
  cvsimport: refused('git cvsimport', 'runs CVS'),
  cvsserver: refused('git cvsserver', 'serves CVS'),
  archimport: refused('git archimport', 'runs arch'),
  quiltimport: refused('git quiltimport', 'applies patches'),
  'web--browse': refused('git web--browse', 'starts a browser'),
});

export const GIT: Rules = {
  id: 'git',
  syntax: 'gnu',
  flags: 'allowlist',
  options: GLOBAL,
  subcommands: SUBS,
  docShared: ANY,
  otherSubcommand: { level: 'refuse', why: '`git {sub}` is not a git command: git runs the alias configuration defines for it, or a `git-{sub}` program from PATH' },
  doc: [
    ['git --exec-path', 'refuse', "with a directory (--exec-path=DIR): runs git's own programs from it (alone it only prints the path)"],
    ['git config (writing)', 'refuse', 'a key and a value, --add, --unset, --replace-all, --rename-section, --remove-section, --edit, or `set`/`unset`/`edit`: changes configuration, which can name programs git runs'],
    ['git bisect run', 'refuse', 'runs a command given on the line for each step'],
    ['git submodule foreach', 'refuse', 'runs a command given on the line in each submodule'],
    ['git bundle create', 'refuse', 'writes a bundle file'],
    ['git … ext::, fd::', 'refuse', 'the ext:: and fd:: transports run a command'],
    ['git difftool', 'ask', 'runs the diff tool configuration names'],
    ['git REV:path, :N:path', 'confirm', 'a file as committed: its path (from the top of the work tree) meets the path rules'],
    ['git pathspec pattern', 'confirm', 'a pathspec with glob characters, :(attr) or an exclusion matches every path, committed ones included, so it may reach protected files that are not on disk'],
    ['git tracked protected files', 'confirm', 'the repository tracks a protected file (read from its index) and the subcommand prints tracked content without a path naming it: show, diff, grep, cat-file, archive, format-patch, stash, blame, log/whatchanged/reflog with -p, -u, --patch, -L, -c, --cc, -m, --word-diff'],
    ['git repository', 'ask', 'git would use a repository other than the root\'s own .git (a directory shaped like a git directory, a nested repository, none): its configuration can run programs'],
  ],
  check: (c) => {
    const e = c.has('--exec-path');
    if (e?.value !== undefined) c.find('refuse', '--exec-path', 'runs git\'s own programs from the directory it names', e.index);
  },
};
