// The credential quarantine, the read-approve list and the always-ask tier as the file tools
// apply them: one fast matcher that every local_fs tool and every traversal uses. The lists
// themselves are tiers of the one table in protected_paths.ts.
import process from 'node:process';
import { globTester } from '../glob.ts';
import { globsOf, ownDataGlob } from './table.ts';

/** Always refused, for every tool, read or write (matched case-insensitively); cxl's data dir wherever this process keeps it. */
export const QUARANTINE_GLOBS: readonly string[] = Object.freeze([...globsOf('quarantine'), ...[ownDataGlob(process.env)].filter((g): g is string => g !== null)]);

/** Needs a human answer to read; refused where nobody can answer; never traversed. */
export const READ_APPROVE_GLOBS: readonly string[] = globsOf('read_approve');

/** Written only after a human says yes, in every envelope (files that run code later). */
export const ALWAYS_ASK_GLOBS: readonly string[] = globsOf('always_ask');

export type PathClass = 'quarantined' | 'read_approve' | null;

/**
 * Case-insensitive matcher over absolute or root-relative `/` paths. Each path is also tried
 * with trailing dots and spaces stripped from every segment, since some filesystems drop them
 * (`.env.` opens `.env` there).
 */
export class PathMatcher {
  readonly #quarantine: (p: string) => boolean;
  readonly #approve: (p: string) => boolean;
  readonly #ask: (p: string) => boolean;

  constructor(quarantine: readonly string[] = QUARANTINE_GLOBS, readApprove: readonly string[] = READ_APPROVE_GLOBS, alwaysAsk: readonly string[] = ALWAYS_ASK_GLOBS) {
    this.#quarantine = globTester(quarantine);
    this.#approve = globTester(readApprove);
    this.#ask = globTester(alwaysAsk);
  }

  /** Whether any of `paths` is on the always-ask list (same path forms as classify). */
  alwaysAsk(...paths: string[]): boolean {
    for (const raw of paths) {
      if (this.#ask(raw)) return true;
      if (/[. ](?:\/|$)/.test(raw) && this.#ask(raw.replace(/[. ]+(?=\/|$)/g, ''))) return true;
    }
    return false;
  }

  /** The strongest class any of `paths` falls in. */
  classify(...paths: string[]): PathClass {
    let approve = false;
    for (const raw of paths) {
      const variants = /[. ](?:\/|$)/.test(raw) ? [raw, raw.replace(/[. ]+(?=\/|$)/g, '')] : [raw];
      for (const p of variants) {
        if (this.#quarantine(p)) return 'quarantined';
        if (!approve && this.#approve(p)) approve = true;
      }
    }
    return approve ? 'read_approve' : null;
  }
}

/** The matcher for the shipped lists. */
export const defaultPathMatcher = new PathMatcher();

/** Class of a path under the shipped lists (checked on every path given). */
export function classifyPath(...paths: string[]): PathClass {
  return defaultPathMatcher.classify(...paths);
}
