// git_log: the history from HEAD, newest first, optionally only the commits that changed a file
// or directory. Each commit is its short hash, author, date and subject: no patch, so no file
// content is ever part of a log.
import { ToolError } from '../errors.ts';
import type { GitCtx } from './engine.ts';
import { headOid, isoDate } from './refs.ts';

export const LOG_DEFAULT = 10;
export const LOG_MAX = 200;

export interface LogCommit {
  hash: string;
  author: string;
  email: string;
  date: string;
  subject: string;
}

export interface LogResult {
  commits: LogCommit[];
  text: string;
}

export async function gitLog(c: GitCtx, n: number | undefined, scope: string): Promise<LogResult> {
  const depth = n === undefined || n <= 0 ? LOG_DEFAULT : Math.min(n, LOG_MAX);
  const head = await headOid(c);
  if (!head) return { commits: [], text: 'no commits yet\n' };
  let entries: Awaited<ReturnType<GitCtx['git']['log']>>;
  try {
    entries = await c.git.log({ ...c.args, ref: head, depth, ...(scope === '.' ? {} : { filepath: scope, force: true }) });
  } catch (err) {
    if ((err as { code?: string }).code === 'NotFoundError' && scope !== '.') entries = [];
    else throw new ToolError('io_error', `git_log: ${(err as Error).message}`);
  }
  const commits = entries.map((e) => ({
    hash: e.oid,
    author: e.commit.author.name,
    email: e.commit.author.email,
    date: isoDate(e.commit.committer.timestamp, e.commit.committer.timezoneOffset),
    subject: e.commit.message.split('\n')[0],
  }));
  if (!commits.length) return { commits, text: `no commits match${scope === '.' ? '' : ` ${scope}`}\n` };
  const text = commits.map((k) => `${k.hash.slice(0, 8)} ${k.author} <${k.email}> ${k.date}\n    ${k.subject}\n`).join('');
  return { commits, text };
}
