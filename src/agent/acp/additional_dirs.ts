// A session's additional directories (ACP `additionalDirectories`), kept with the session as the
// client gave them (one `extras` key) and checked again each time a process opens it: a directory
// that has gone, or become a link to somewhere refused, since the session began refuses the
// session with why, never a silent wider or narrower reach. The file tools and the checkpoints
// get the canonical forms (core/local_fs/extra_roots.ts).
import { ToolError } from '../../core/errors.ts';
import { additionalRoots } from '../../core/local_fs/extra_roots.ts';
import type { PathMatcher } from '../../core/protect/matcher.ts';
import { ADDITIONAL_DIRS_KEY, dirsKept, type StoredSession } from '../sessions/store.ts';

// the extras key the directories are kept under, as given (absolute paths): the store's, whose
// summary (session/list) reports them
export { ADDITIONAL_DIRS_KEY };

/** The directories kept with the session (an empty list when none, or when the value is not a list of strings). */
export function keptAdditionalDirs(stored: Pick<StoredSession, 'extras'>): string[] {
  return dirsKept(stored.extras?.[ADDITIONAL_DIRS_KEY]) ?? [];
}

/**
 * The session's additional roots, canonical, checked now against its canonical `root`.
 * `requested`: a list the client gives on this open (it replaces the kept one, and is kept);
 * absent or null: the kept list. Throws `bad_path` naming the directory and why.
 */
export function sessionAdditionalRoots(stored: Pick<StoredSession, 'extras' | 'sessionId'>, root: string, requested?: readonly string[] | null, o: { home?: string; matcher?: PathMatcher } = {}): string[] {
  const dirs = requested ?? keptAdditionalDirs(stored);
  if (requested) {
    if (requested.length) (stored.extras ??= {})[ADDITIONAL_DIRS_KEY] = [...requested];
    // an empty list, not a deleted key: the session log saves the keys it is given, so a deleted
    // one would come back from the log as it was
    else if (stored.extras?.[ADDITIONAL_DIRS_KEY]) stored.extras[ADDITIONAL_DIRS_KEY] = [];
  }
  if (!dirs.length) return [];
  try {
    return additionalRoots(dirs, { root, ...o });
  } catch (err) {
    if (!(err instanceof ToolError) || requested) throw err;
    throw new ToolError('bad_path', `${err.message} It was one of this session's additional directories (${dirs.join(', ')}) when it began; restore it, or start a new session without it.`);
  }
}
