// docs/tui.md carries the key table generated from the binding table and every command of the
// registry, and the README's UI paragraph shows the commands and the essential keys: a binding or
// command added without its docs fails.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { test } from 'node:test';
import { BINDINGS } from '../../src/ui/keys.ts';
import { keyLabel, keysMarkdown } from '../../src/ui/keys_help.ts';
import { CLIENT_COMMANDS } from '../../src/ui/slash_commands.ts';

const root = new URL('../../', import.meta.url);
const tui = readFileSync(new URL('docs/tui.md', root), 'utf8');
const readme = readFileSync(new URL('README.md', root), 'utf8');

const KEYS = /<!-- keys:start[^>]*-->\n([\s\S]*?)\n<!-- keys:end -->/;

test('docs/tui.md carries the key table made from keys.ts, as it is now (UPDATE_DOCS=1 writes it)', () => {
  const m = KEYS.exec(tui);
  assert.ok(m, 'docs/tui.md has the <!-- keys:start --> … <!-- keys:end --> markers');
  const table = keysMarkdown();
  if (process.env.UPDATE_DOCS === '1' && m[1] !== table) writeFileSync(new URL('docs/tui.md', root), tui.replace(m[1], table));
  else assert.equal(m[1], table, 'the key table changed: run `UPDATE_DOCS=1 npm test -- test/ui/docs.test.ts` to write it into docs/tui.md');
  for (const b of BINDINGS) for (const k of b.keys) assert.ok(table.includes(`\`${keyLabel(k)}\``), `${k} (${b.action}) is in the table`);
});

test('docs/tui.md has every client command and the README UI paragraph shows them', () => {
  const commands = tui.slice(tui.indexOf('## Commands'), tui.indexOf('## Keys'));
  const ui = readme.slice(readme.indexOf('## The terminal UI'), readme.indexOf('## Where things are'));
  for (const c of CLIENT_COMMANDS) {
    assert.ok(commands.includes(`\`/${c.name}`), `/${c.name} in docs/tui.md`);
    assert.ok(ui.includes(`\`/${c.name}`), `/${c.name} in the README`);
  }
  for (const k of ['Shift+Tab', 'Ctrl+T', '@', 'Enter', 'Ctrl+C', 'Ctrl+D', 'Ctrl+R', 'Ctrl+G', 'Alt+B', 'Ctrl+W', '--continue', '--resume']) assert.ok(ui.includes(k), `${k} in the README`);
});
