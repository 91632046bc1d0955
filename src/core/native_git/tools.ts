// The ten native-git tools as the model sees them: name, kind, description and JSON schema, and
// which of them change the repository (the envelope's files.write axis) and which only read it.
import type { JsonSchema, ToolKind } from '../tool.ts';

export interface GitToolSpec {
  name: string;
  kind: ToolKind;
  /** changes the index, a branch or the working tree */
  writes: boolean;
  description: string;
  inputSchema: JsonSchema;
}

const obj = (properties: Record<string, unknown>, required: string[] = []): JsonSchema => ({ type: 'object', properties, required, additionalProperties: false });
const PATH = { type: 'string', description: 'A file or directory, relative to the repository root' };
const PATHS = {
  type: ['string', 'array'],
  items: { type: 'string' },
  description: 'A path or a list of paths, relative to the repository root. One string is one path: it is not split on spaces',
};

export const GIT_TOOLS: readonly GitToolSpec[] = Object.freeze([
  {
    name: 'git_status',
    kind: 'read',
    writes: false,
    description: 'The branch, HEAD, and what is staged, changed but not staged, and untracked. In-process: no git binary, no hooks.',
    inputSchema: obj({}),
  },
  {
    name: 'git_diff',
    kind: 'read',
    writes: false,
    description: 'Unified diff of the working tree against HEAD (staged and unstaged together), per changed file; untracked files are listed, not diffed.',
    inputSchema: obj({ path: { ...PATH, description: 'Optional file or directory, relative to the repository root' } }),
  },
  {
    name: 'git_log',
    kind: 'read',
    writes: false,
    description: 'Commits, newest first: short hash, author, date, subject.',
    inputSchema: obj({
      n: { type: 'integer', description: 'How many commits (default 10, at most 200)' },
      path: { ...PATH, description: 'Only commits that changed this file or directory' },
    }),
  },
  {
    name: 'git_show',
    kind: 'read',
    writes: false,
    description: 'One commit: its header, message and patch against its first parent.',
    inputSchema: obj({ ref: { type: 'string', description: 'Commit hash, branch, tag, or HEAD (HEAD~1, HEAD^2 and friends work)' } }, ['ref']),
  },
  {
    name: 'git_branch_list',
    kind: 'read',
    writes: false,
    description: 'Local branches with their commits; the current one is marked *.',
    inputSchema: obj({}),
  },
  {
    name: 'git_blame',
    kind: 'read',
    writes: false,
    description: 'Who last changed each line of a tracked file, as of HEAD.',
    inputSchema: obj({ path: { type: 'string', description: 'A tracked file, relative to the repository root' } }, ['path']),
  },
  {
    name: 'git_add',
    kind: 'edit',
    writes: true,
    description: 'Stage paths for the next commit ("." stages every change; credential files are never staged).',
    inputSchema: obj({ paths: PATHS }, ['paths']),
  },
  {
    name: 'git_commit',
    kind: 'edit',
    writes: true,
    description: 'Commit what is staged, with the identity from git config. Refuses an empty index.',
    inputSchema: obj({ message: { type: 'string', description: 'The commit message' } }, ['message']),
  },
  {
    name: 'git_checkout_branch',
    kind: 'edit',
    writes: true,
    description: 'Switch to a local branch, or create one at HEAD and switch to it (create=true).',
    inputSchema: obj({
      branch: { type: 'string', description: 'The branch name' },
      create: { type: 'boolean', description: 'Create it at HEAD first (default false)' },
    }, ['branch']),
  },
  {
    name: 'git_restore',
    kind: 'delete',
    writes: true,
    description: 'DESTRUCTIVE: put files back as they are in HEAD, discarding their uncommitted changes; staged=true only unstages them (contents left alone). Never the whole repository.',
    inputSchema: obj({ paths: PATHS, staged: { type: 'boolean', description: 'Only unstage (default false: discard the changes)' } }, ['paths']),
  },
]);

export const GIT_TOOL_NAMES: readonly string[] = GIT_TOOLS.map((t) => t.name);
