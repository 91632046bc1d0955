// The envelopes cxl ships (docs/config.md, "Envelopes") and the floor every envelope carries: the credential
// quarantine (every tool, read or write), the write wall (writes, and shell lines naming those
// paths) and the always-ask tier (the same tools: asked in every envelope, never allowed for the
// session). The deny rules sit in always_deny, the ask rules in always_ask; both accumulate, so
// no envelope drops them by inheritance or by a bare axis grant.
import type { EnvelopeRule, EnvelopeSpec, Grant } from './index.ts';
import { entriesOf, globsOf, matchGlob } from '../protect/table.ts';
import { READ_APPROVE_GLOBS } from '../protect/matcher.ts';

/** Paths no tool writes (the write-wall tier of protected_paths.ts). */
export const WRITE_WALL_GLOBS: readonly string[] = globsOf('write_wall');

const WRITERS = ['local_fs.write_file', 'local_fs.edit_file', 'local_fs.sed', 'local_shell'];

/** The reason a floor rule carries: its tier, then the table's why. */
export const QUARANTINE_REASON = 'credential quarantine';
export const WRITE_WALL_REASON = 'write wall';
export const ALWAYS_ASK_REASON = 'always ask';

export const FLOOR_RULES: readonly EnvelopeRule[] = Object.freeze([
  ...entriesOf('quarantine').map((e) => ({ tool: '*', path: matchGlob(e), reason: `${QUARANTINE_REASON}: ${e.reason}` })),
  ...entriesOf('write_wall').map((e) => ({ tool: WRITERS, path: matchGlob(e), reason: `${WRITE_WALL_REASON}: ${e.reason}` })),
  ...entriesOf('always_ask').map((e) => ({ tool: WRITERS, path: matchGlob(e), reason: `${ALWAYS_ASK_REASON}: ${e.reason}`, ask: true })),
]);

const reads = { grant: { grant: 'allow' as const }, approve_paths: [...READ_APPROVE_GLOBS] };
/** An axis written as a bare grant: it replaces whatever the axis inherited. */
const bare = (grant: Grant) => ({ bare: true, grant: { grant } });
/** Reads allowed (the read-approve list still asks); writes and commands as given. */
const readsAnd = (description: string, write: Grant, shell: Grant): EnvelopeSpec => ({ description, files: { read: reads, write: bare(write) }, shell: bare(shell) });

/**
 * git's read commands. Not on `default`'s prefix allowlist: native-git answers them in-process
 * (no program a repository's config names can run); an envelope that wants them through the
 * shell unasked adds them to its own `prefix_allowlist` (docs/config.md).
 */
export const GIT_READ_PREFIXES: readonly string[] = Object.freeze(['git status', 'git log', 'git diff', 'git show', 'git branch --show-current', 'git rev-parse']);

/** Read-only programs and test runners the `default` envelope runs without asking. */
export const DEFAULT_PREFIX_ALLOWLIST: readonly string[] = Object.freeze([
  'ls', 'pwd', 'cat', 'head', 'tail', 'wc', 'grep', 'diff', 'stat', 'file', 'du', 'which',
  'basename', 'dirname', 'realpath', 'echo', 'printf', 'date',
  'go test', 'go vet', 'cargo test', 'npm test', 'npm run test',
  'deno test', 'deno check', 'node --test', 'make test', 'python3 -m pytest', 'pytest',
]);

export const SHIPPED_ENVELOPES: Readonly<Record<string, EnvelopeSpec>> = Object.freeze({
  // a unit runs under its own envelope: firing one would step outside this one's
  read_only: { ...readsAnd('reads allowed, writes and shell denied', 'deny', 'deny'), missions: { fire: { grant: 'deny' }, answer: { grant: 'deny' } } },
  // a standing host's sessions (`cxl serve`): its tools write nothing and run nothing anyway; the
  // units it fires run under their own envelopes, their asks kept for any client to answer
  serve: { ...readsAnd('a standing host: reads allowed, writes and shell denied, missions allowed', 'deny', 'deny'), missions: { fire: { grant: 'allow' }, answer: { grant: 'allow' } } },
  ask_always: readsAnd('reads allowed, every write and every command asks', 'approve', 'approve'),
  auto_edit: readsAnd('reads and writes allowed, every command asks', 'allow', 'approve'),
  default: {
    description: 'reads allowed; writes ask; read-only and test commands run, others ask, rm/mv/cp/chmod always ask',
    files: { read: reads, write: bare('approve') },
    shell: {
      grant: { grant: 'approve' },
      prefix_allowlist: [...DEFAULT_PREFIX_ALLOWLIST],
      ask_always: ['rm', 'mv', 'cp', 'chmod'],
    },
  },
  strict: {
    description: 'everything denied unless a rule allows it; commands it lets run have no network',
    default_action: { grant: 'deny' },
    shell: { network: false },
  },
});

export const DEFAULT_ENVELOPE = 'default';
