// Short constructors for the option tables, so each family file reads as a list.
import type { Kind, Level, Opt } from './types.ts';

/** Harmless options without a value. */
export const flags = (...names: string[]): Opt => ({ names, safe: true });
/** A harmless option with a text value (a count, a pattern, a format). */
export const text = (...names: string[]): Opt => ({ names, arg: 'required', safe: true });
/** A harmless option whose text value may only be glued or given after `=`. */
export const optional = (...names: string[]): Opt => ({ names, arg: 'optional', safe: true });
/** A harmless option whose value is a file or directory it reads (the path rules still apply). */
export const reads = (...names: string[]): Opt => ({ names, arg: 'required', kind: 'read', safe: true });
/** An option that makes the step read its directories recursively. */
export const recursive = (...names: string[]): Opt => ({ names, safe: true, recursive: true });

interface Cost {
  arg?: 'required' | 'optional';
  kind?: Kind;
}

/** An option that is refused under a command policy and is never read-only. */
export const refuse = (why: string, names: string[], cost: Cost = {}): Opt => ({ names, level: 'refuse', why, ...cost });
/** An option that a command policy allows but that is not read-only (asks in `default`). */
export const ask = (why: string, names: string[], cost: Cost = {}): Opt => ({ names, level: 'ask', why, ...cost });

/** The costs in order of severity (for an abbreviation that could be several options). */
export const SEVERITY: Readonly<Record<Level, number>> = { ask: 1, confirm: 2, refuse: 3 };
