// "Allow for this session" answers, kept with the session (serialisable) and listable. Each one
// is as narrow as the ask it answered: a file on one axis, a program with its subcommand and the
// argument rules it was asked about (`find … -delete`), or one named tool. There is no blanket
// allow, and no session allow ever overrides a deny: it only answers an ask.

export type SessionAllow =
  | { kind: 'file'; axis: 'files.read' | 'files.write'; path: string }
  /** `notes`: the argument rules the human saw (`find -delete`); a later step asking for another is not covered */
  | { kind: 'command'; program: string; subcommand?: string; notes?: string[] }
  | { kind: 'tool'; tool: string };

export function describeAllow(a: SessionAllow): string {
  switch (a.kind) {
    case 'file':
      return `${a.axis === 'files.read' ? 'read' : 'write'} ${a.path}`;
    case 'command': {
      const base = a.subcommand ? `run ${a.program} ${a.subcommand} …` : `run ${a.program} …`;
      return a.notes?.length ? `${base} (with ${a.notes.join('; ')})` : base;
    }
    case 'tool':
      return `call ${a.tool}`;
  }
}

const key = (a: SessionAllow) =>
  JSON.stringify(a.kind === 'file' ? [a.kind, a.axis, a.path] : a.kind === 'command' ? [a.kind, a.program, a.subcommand ?? null, a.notes ?? []] : [a.kind, a.tool]);

// A subcommand is a plain word after a program that has subcommands (`git commit`, `npm test`);
// for other programs the next word is an operand (`rm x1`), and the scope is the program.
const SUBCOMMAND = /^[A-Za-z][A-Za-z0-9_:-]*$/;
const HAS_SUBCOMMANDS = new Set([
  'git', 'npm', 'pnpm', 'yarn', 'bun', 'npx', 'deno', 'cargo', 'go', 'make', 'docker', 'podman', 'kubectl', 'gh',
  'pip', 'pip3', 'uv', 'poetry', 'apt', 'brew', 'systemctl', 'terraform', 'helm', 'dotnet', 'mvn', 'gradle',
]);

/**
 * The program + subcommand scope of one argv: `git commit -m x` → git commit; `rm x` → rm.
 * Null when a program with subcommands shows none up front (`git -C x push`): allowing the
 * program there would allow all of it.
 */
export function commandScope(argv: readonly string[], notes: readonly string[] = []): SessionAllow | null {
  const sub = argv[1];
  const base = argv[0].slice(argv[0].lastIndexOf('/') + 1);
  const n = [...new Set(notes)].sort();
  const withNotes = n.length ? { notes: n } : {};
  if (!HAS_SUBCOMMANDS.has(base)) return { kind: 'command', program: argv[0], ...withNotes };
  return sub !== undefined && SUBCOMMAND.test(sub) ? { kind: 'command', program: argv[0], subcommand: sub, ...withNotes } : null;
}

export class SessionAllows {
  #items = new Map<string, SessionAllow>();

  constructor(items: readonly SessionAllow[] = []) {
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
   * rule the need carries.
   */
  covers(need: SessionAllow): boolean {
    if (need.kind !== 'command') return this.#items.has(key(need));
    const notes = need.notes ?? [];
    for (const a of this.#items.values()) {
      if (a.kind !== 'command' || a.program !== need.program) continue;
      if (a.subcommand !== undefined && a.subcommand !== need.subcommand) continue;
      const given = new Set(a.notes ?? []);
      if (notes.every((n) => given.has(n))) return true;
    }
    return false;
  }

  toJSON(): SessionAllow[] {
    return this.list();
  }

  static fromJSON(items: unknown): SessionAllows {
    if (!Array.isArray(items)) return new SessionAllows();
    const ok = items.filter((a): a is SessionAllow => {
      if (typeof a !== 'object' || a === null) return false;
      const x = a as Record<string, unknown>;
      if (x.kind === 'file') return (x.axis === 'files.read' || x.axis === 'files.write') && typeof x.path === 'string';
      if (x.kind === 'command') {
        return typeof x.program === 'string' && x.program !== '' && (x.subcommand === undefined || typeof x.subcommand === 'string') && (x.notes === undefined || (Array.isArray(x.notes) && x.notes.every((n) => typeof n === 'string')));
      }
      if (x.kind === 'tool') return typeof x.tool === 'string' && x.tool.includes('.');
      return false;
    });
    return new SessionAllows(ok);
  }
}
