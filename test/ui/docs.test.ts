// docs/tui.md lists every key of the binding table and every command of the registry, and the
// README's UI paragraph shows the commands: a binding or command added without its docs fails.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BINDINGS } from '../../src/ui/keys.ts';
import { CLIENT_COMMANDS } from '../../src/ui/slash_commands.ts';

const root = new URL('../../', import.meta.url);
const tui = readFileSync(new URL('docs/tui.md', root), 'utf8');
const readme = readFileSync(new URL('README.md', root), 'utf8');

const NAMES: Record<string, string> = {
  return: 'Enter',
  escape: 'Esc',
  tab: 'Tab',
  'shift+tab': 'Shift+Tab',
  up: '↑',
  down: '↓',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  space: 'Space',
  digit: '1',
  'shift+return': 'Shift+Enter',
  'meta+return': 'Alt+Enter',
};

/** How docs/tui.md writes a key of the table. */
function docName(key: string): string {
  if (NAMES[key]) return NAMES[key];
  const ctrl = /^ctrl\+(.)$/.exec(key);
  if (ctrl) return `Ctrl+${ctrl[1].toUpperCase()}`;
  return key;
}

test('docs/tui.md names every key of every binding in its keys table', () => {
  const keys = tui.slice(tui.indexOf('## Keys'), tui.indexOf('## What the UI serves'));
  const missing: string[] = [];
  for (const b of BINDINGS) for (const k of b.keys) if (!keys.includes(`\`${docName(k)}\``) && !keys.includes(`\`${docName(k)}\`–`)) missing.push(`${k} (${b.action})`);
  assert.deepEqual(missing, []);
});

test('docs/tui.md has every client command and the README UI paragraph shows them', () => {
  const commands = tui.slice(tui.indexOf('## Commands'), tui.indexOf('## Keys'));
  const ui = readme.slice(readme.indexOf('## The terminal UI'), readme.indexOf('## Where things are'));
  for (const c of CLIENT_COMMANDS) {
    assert.ok(commands.includes(`\`/${c.name}`), `/${c.name} in docs/tui.md`);
    assert.ok(ui.includes(`\`/${c.name}`), `/${c.name} in the README`);
  }
  for (const k of ['Shift+Tab', 'Ctrl+T', '@', 'Enter', 'Ctrl+C', 'Ctrl+D', '--continue', '--resume']) assert.ok(ui.includes(k), `${k} in the README`);
});
