// The session's "allow for this session" answers (core/contract/session_scope.ts says what one
// is), kept with the session (serialisable) and listable. No session allow ever overrides a
// deny: it only answers an ask. Each is bound to the folder it was given in (`root`): an allow
// of `write a.txt` or `run rm …` given in one folder is no answer in another, so a session loaded
// or forked into another folder keeps them aside, unused, until it is back where they were given.
import { commandScope, describeAllow, type SessionAllow } from '../contract/session_scope.ts';

export { commandScope, describeAllow, type SessionAllow };

const key = (a: SessionAllow) =>
  JSON.stringify(a.kind === 'file' ? [a.kind, a.axis, a.path] : a.kind === 'command' ? [a.kind, a.program, a.subcommand ?? null, a.notes ?? [], a.exact ?? null] : [a.kind, a.tool]);

function sameArgv(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a !== undefined && b !== undefined && a.length === b.length && a.every((w, i) => w === b[i]);
}

export class SessionAllows {
  #items = new Map<string, SessionAllow>();
  /** allows given in other folders, kept as they were saved */
  #elsewhere: unknown[] = [];

  /** `root`: the folder these allows are given in (a real path); saved with each of them. */
  constructor(
    items: readonly SessionAllow[] = [],
    readonly root?: string,
  ) {
    for (const a of items) this.add(a);
  }

  add(a: SessionAllow): void {
    this.#items.set(key(a), a);
  }

  list(): SessionAllow[] {
    return [...this.#items.values()];
  }

  /** One line per allow, for `/allows` and the UI. */
  describe(): string[] {
    return this.list().map(describeAllow);
  }

  clear(): void {
    this.#items.clear();
  }

  hasFile(axis: 'files.read' | 'files.write', path: string): boolean {
    return this.#items.has(key({ kind: 'file', axis, path }));
  }

  hasTool(tool: string): boolean {
    return this.#items.has(key({ kind: 'tool', tool }));
  }

  /** Whether an allow covers this argv (with no argument rules asked): its program, and its subcommand when the allow has one. */
  coversArgv(argv: readonly string[]): boolean {
    const s = commandScope(argv);
    return s !== null && this.covers(s);
  }

  /**
   * Whether the session answers `need`: the same file, the same tool, or for a command an allow
   * of its program (and subcommand, when the allow names one) that was given for every argument
   * rule the need carries. An interpreter's line (`exact`) is covered only by an allow of that
   * very argv: never by an allow of its program (one written before lines were exact included).
   */
  covers(need: SessionAllow): boolean {
    if (need.kind !== 'command') return this.#items.has(key(need));
    const notes = need.notes ?? [];
    for (const a of this.#items.values()) {
      if (a.kind !== 'command' || a.program !== need.program) continue;
      if (need.exact !== undefined && !sameArgv(a.exact, need.exact)) continue;
      if (a.exact !== undefined && !sameArgv(a.exact, need.exact)) continue;
      if (a.subcommand !== undefined && a.subcommand !== need.subcommand) continue;
      const given = new Set(a.notes ?? []);
      if (notes.every((n) => given.has(n))) return true;
    }
    return false;
  }

  /** The allows, each with the folder it was given in, and those of other folders as they were. */
  toJSON(): Array<SessionAllow & { root?: string }> {
    const own = this.list().map((a) => (this.root === undefined ? a : { ...a, root: this.root }));
    return [...own, ...(this.#elsewhere as Array<SessionAllow & { root: string }>)];
  }

  /**
   * The saved allows that apply in `root`: those given there. Those of another folder are kept
   * aside (saved again, never consulted); one saved with no folder (before allows were bound to
   * one) is dropped, since nobody can say where it was given. Without `root`, folders are not
   * looked at.
   */
  static fromJSON(items: unknown, root?: string): SessionAllows {
    if (!Array.isArray(items)) return new SessionAllows([], root);
    const valid = items.filter((a): a is SessionAllow & { root?: unknown } => {
      if (typeof a !== 'object' || a === null) return false;
      const x = a as Record<string, unknown>;
      if (x.kind === 'file') return (x.axis === 'files.read' || x.axis === 'files.write') && typeof x.path === 'string';
      if (x.kind === 'command') {
        const strings = (v: unknown) => Array.isArray(v) && v.every((n) => typeof n === 'string');
        return typeof x.program === 'string' && x.program !== '' && (x.subcommand === undefined || typeof x.subcommand === 'string') && (x.notes === undefined || strings(x.notes)) && (x.exact === undefined || strings(x.exact));
      }
      if (x.kind === 'tool') return typeof x.tool === 'string' && x.tool.includes('.');
      return false;
    });
    if (root === undefined) return new SessionAllows(valid.map(({ root: _r, ...a }) => a as SessionAllow));
    const here = valid.filter((a) => a.root === root).map(({ root: _r, ...a }) => a as SessionAllow);
    const out = new SessionAllows(here, root);
    out.#elsewhere = valid.filter((a) => typeof a.root === 'string' && a.root !== root);
    return out;
  }
}
