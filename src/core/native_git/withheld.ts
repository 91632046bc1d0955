// Which repository paths the git tools never print the content of, and never stage: the
// credential quarantine and the read-approve list (.env, *.pem, *.key), by name (relative and
// absolute) and, for a working-tree file with more than one link, by identity (a hard link to a
// key is the key). The git tools name such a path and say why; its bytes stay out of every
// status, diff, show, log and blame. The write wall and the always-ask tier say what a
// checkout or restore may not write, or only after a human's yes.
import fs from 'node:fs';
import path from 'node:path';
import { defaultIdentityIndex } from '../protect/identity.ts';
import { defaultPathMatcher } from '../protect/matcher.ts';
import { globsOf } from '../protect/table.ts';
import { globTester } from '../glob.ts';
import type { Repo } from './repo.ts';

export type Withheld = 'quarantine' | 'read_approve';

/** Why a withheld path is not shown, for the text that stands in for its content. */
export function withheldWhy(w: Withheld): string {
  return w === 'quarantine' ? 'it is in the credential quarantine' : 'it is on the read-approve list (.env, *.pem, *.key)';
}

/** Whether the content of repository path `rel` is withheld (by name, or a worktree file by identity). */
export function withheld(repo: Repo, rel: string, worktree = false): Withheld | null {
  const cls = defaultPathMatcher.classify(rel, path.join(repo.top, rel));
  if (cls) return cls === 'quarantined' ? 'quarantine' : 'read_approve';
  if (!worktree) return null;
  const st = fs.lstatSync(path.join(repo.top, rel), { throwIfNoEntry: false });
  if (!st?.isFile() || st.nlink <= 1) return null;
  const hit = defaultIdentityIndex.lookup(st, repo.base);
  return hit ? hit.tier : null;
}

const wallTest = globTester(globsOf('write_wall'));

/** Why a working-tree path may not be written by a git tool (the write wall or the quarantine), or null. */
export function worktreeWall(rel: string): string | null {
  if (defaultPathMatcher.classify(rel) === 'quarantined') return 'it is in the credential quarantine';
  if (wallTest(rel)) return 'it is behind the write wall (files that run code or configure tools)';
  return null;
}
