// The key table in words, from keys.ts alone: the lines `/keys`, `?` and `/help` print, and the
// table docs/tui.md carries (a test keeps that copy equal to this one).
import { BINDINGS, type Binding, type Focus } from './keys.ts';

export const FOCUS_TITLE: Record<Focus, string> = {
  composer: 'Composer',
  completion: 'Completion list (/ and @)',
  search: 'Prompt search (Ctrl+R)',
  tools: 'Tool list (Tab)',
  transcript: 'Transcript (Ctrl+T)',
  picker: 'Session picker (/resume)',
  models: 'Model picker (/model)',
  rewind: 'Rewind (/rewind, /undo, Esc Esc)',
  approval: 'Approval',
  reason: 'Rejection reason',
  form: 'A form the agent asks you to fill in',
  auth: 'Login picker',
  trust: 'Trust prompt (a folder with its own configuration)',
  keys: 'Keys overlay (?)',
};

const NAMES: Record<string, string> = {
  return: 'Enter',
  escape: 'Esc',
  tab: 'Tab',
  up: '↑',
  down: '↓',
  left: '←',
  right: '→',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  space: 'Space',
  digit: '1–9',
  home: 'Home',
  end: 'End',
  delete: 'Delete',
  backspace: 'Backspace',
};

/** How a person writes a key of the table: `ctrl+w` → `Ctrl+W`, `meta+b` → `Alt+B`. */
export function keyLabel(key: string): string {
  const parts = key.split('+');
  const base = parts.pop() ?? '';
  const mods = parts.map((m) => (m === 'meta' ? 'Alt' : m[0].toUpperCase() + m.slice(1)));
  const name = NAMES[base] ?? (base.length === 1 ? base.toUpperCase() : base);
  return [...mods, mods.length > 0 || base.length > 1 ? name : base].join('+');
}

/** Each focus with the bindings listed under it: one shared by several foci goes under the first. */
function groups(): { title: string; bindings: Binding[] }[] {
  const seen = new Set<Binding>();
  const out: { title: string; bindings: Binding[] }[] = [];
  for (const focus of Object.keys(FOCUS_TITLE) as Focus[]) {
    const own = BINDINGS.filter((b) => b.focus !== 'global' && b.focus.includes(focus) && b.help !== '' && !seen.has(b));
    for (const b of own) seen.add(b);
    if (own.length > 0) out.push({ title: FOCUS_TITLE[focus], bindings: own });
  }
  out.push({ title: 'Anywhere', bindings: BINDINGS.filter((b) => b.focus === 'global') });
  return out;
}

/** The keys of a binding and of the bindings that finish its label (↑ with ↓). */
function keysOf(b: Binding): string[] {
  const i = BINDINGS.indexOf(b);
  const partner = BINDINGS[i + 1]?.label === '' && BINDINGS[i + 1].help === '' ? BINDINGS[i + 1] : undefined;
  return [...b.keys, ...(partner?.keys ?? [])].map(keyLabel);
}

/** The lines `/keys` and `?` print: every key, by what has the focus. */
export function keysHelp(): string[] {
  const lines: string[] = [];
  for (const g of groups()) {
    lines.push(`${g.title}:`);
    for (const b of g.bindings) lines.push(`  ${keysOf(b).join(' ').padEnd(22)}  ${b.help}`);
  }
  return lines;
}

/** docs/tui.md's key table. */
export function keysMarkdown(): string {
  const rows = ['| focus | keys | what they do |', '|---|---|---|'];
  for (const g of groups()) {
    g.bindings.forEach((b, i) => rows.push(`| ${i === 0 ? g.title : ''} | ${keysOf(b).map((k) => `\`${k}\``).join(' ')} | ${b.help} |`));
  }
  return rows.join('\n');
}
