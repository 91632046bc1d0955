// What the completion list offers for the composer's text at the cursor: slash commands while
// the first word starts with `/`, a command's arguments after it (`/mode ` → the modes), and
// workspace files after an `@`. Pure: the screen lays it out and the keys accept from it.
import type { ClientState } from '../client/state.ts';
import type { ComposerState } from './composer.ts';
import { fuzzyFilter } from './fuzzy.ts';
import { clientCommand, commandEntries } from './slash_commands.ts';

export interface CompletionItem {
  label: string;
  detail?: string;
  /** Replaces composer.text[from, to). */
  insert: string;
  /** Enter on it also sends the prompt (a command that takes no argument). */
  submit: boolean;
  /** Characters of `label` to highlight. */
  positions?: number[];
}

export interface Completion {
  kind: 'command' | 'argument' | 'file';
  /** Changes whenever the query does: the selection starts over. */
  key: string;
  from: number;
  to: number;
  items: CompletionItem[];
  /** Matches in all (items holds the best of them). */
  total: number;
  /** Shown instead of items: still listing, nothing matches. */
  note?: string;
}

/** Items shown at most; the list scrolls through them. */
export const COMPLETION_ITEMS = 50;

/** A path as an @-mention: quoted when it has spaces. */
export function mentionText(path: string): string {
  return /\s|"/.test(path) ? `@"${path.replace(/"/g, '')}"` : `@${path}`;
}

function commandCompletion(s: ClientState, text: string, cursor: number): Completion | undefined {
  const firstSpace = text.search(/\s/);
  const nameEnd = firstSpace === -1 ? text.length : firstSpace;
  if (cursor <= nameEnd) {
    const query = text.slice(1, cursor).replace(/^\//, '').toLowerCase();
    const all = commandEntries(s);
    const starts = all.filter((e) => e.name.replace(/^\//, '').toLowerCase().startsWith(query));
    const inside = all.filter((e) => !starts.includes(e) && e.name.toLowerCase().includes(query));
    const items = [...starts, ...inside].map((e) => ({
      label: `/${e.name}${e.args ? ` ${e.args}` : ''}`,
      // a custom command's description says where it comes from (project, user)
      detail: e.source === 'agent' && !e.origin ? `${e.description} (agent)` : e.description,
      insert: e.insert,
      submit: e.submit,
    }));
    return { kind: 'command', key: `c:${query}`, from: 0, to: nameEnd, items, total: items.length, ...(items.length === 0 ? { note: `no command starts with /${query}; Enter sends it to the agent as typed` } : {}) };
  }
  // `/name partial`: the command's own argument choices
  const m = /^\/([A-Za-z][\w-]*)\s+(\S*)$/.exec(text.slice(0, cursor));
  const cmd = m && clientCommand(m[1]);
  if (!m || !cmd?.complete) return undefined;
  const from = cursor - m[2].length;
  const rest = text.slice(cursor);
  const to = cursor + (rest.search(/\s/) === -1 ? rest.length : rest.search(/\s/));
  const items = cmd.complete(s, m[2]).map((c) => ({ label: c.value, detail: c.detail, insert: c.value, submit: true }));
  if (items.length === 0) return undefined;
  return { kind: 'argument', key: `a:${m[1]}:${m[2]}`, from, to, items, total: items.length };
}

/** The `@…` word around the cursor, if the cursor is in one. */
export function mentionAt(text: string, cursor: number): { from: number; to: number; query: string } | undefined {
  let from = cursor;
  while (from > 0 && !/\s/.test(text[from - 1])) from--;
  if (text[from] !== '@') return undefined;
  let to = cursor;
  while (to < text.length && !/\s/.test(text[to])) to++;
  const query = text.slice(from + 1, cursor).replace(/^"/, '');
  return { from, to, query };
}

function fileCompletion(s: ClientState, text: string, cursor: number): Completion | undefined {
  const at = mentionAt(text, cursor);
  if (!at) return undefined;
  const key = `f:${at.query}`;
  const files = s.files;
  if (!files || (files.loading && files.paths.length === 0)) return { kind: 'file', key, from: at.from, to: at.to, items: [], total: 0, note: 'listing the workspace files…' };
  if (files.error && files.paths.length === 0) return { kind: 'file', key, from: at.from, to: at.to, items: [], total: 0, note: files.error };
  const { matches, total } = fuzzyFilter(files.paths, at.query, COMPLETION_ITEMS);
  const items = matches.map((m) => ({ label: m.path, insert: `${mentionText(m.path)} `, submit: false, positions: m.positions }));
  return { kind: 'file', key, from: at.from, to: at.to, items, total, ...(items.length === 0 ? { note: `no file matches ${at.query}` } : {}) };
}

// One answer remembered: the keys and the frame after a key ask the same question.
let memo: { s: Pick<ClientState, 'files' | 'commands' | 'modes' | 'mode'>; text: string; cursor: number; result: Completion | undefined } | undefined;

export function completionAt(s: ClientState, c: ComposerState): Completion | undefined {
  const { text, cursor } = c;
  if (memo && memo.text === text && memo.cursor === cursor && memo.s.files === s.files && memo.s.commands === s.commands && memo.s.modes === s.modes && memo.s.mode === s.mode) return memo.result;
  const result = computeCompletion(s, text, cursor);
  memo = { s: { files: s.files, commands: s.commands, modes: s.modes, mode: s.mode }, text, cursor, result };
  return result;
}

function computeCompletion(s: ClientState, text: string, cursor: number): Completion | undefined {
  if (text.startsWith('/') && !text.startsWith('//') && !text.slice(0, cursor).includes('\n')) {
    const cmd = commandCompletion(s, text, cursor);
    if (cmd) return cmd;
  }
  return fileCompletion(s, text, cursor);
}

/** The composer after accepting `item`. */
export function applyCompletion(c: ComposerState, comp: Completion, item: CompletionItem): ComposerState {
  let insert = item.insert;
  // no double space when the text after the word already starts with one
  if (insert.endsWith(' ') && /^\s/.test(c.text.slice(comp.to))) insert = insert.slice(0, -1);
  const text = c.text.slice(0, comp.from) + insert + c.text.slice(comp.to);
  return { text, cursor: comp.from + insert.length + (insert !== item.insert ? 1 : 0) };
}
