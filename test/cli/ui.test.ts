// The `cxl` (no subcommand) entry: flag errors and the no-terminal refusal, as a user meets them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitCommandLine } from '../../src/client/connection/command_line.ts';
import { runCxl } from '../helpers/cxl.ts';

test('cxl without a terminal refuses with exit 2 and says what to use instead', async () => {
  const r = await runCxl([]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /needs a terminal/);
  assert.match(r.stderr, /cxl run/);
});

test('cxl --agent without a command line, or an unknown flag, exits 2', async () => {
  let r = await runCxl(['--agent']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--agent/);
  r = await runCxl(['--frobnicate']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /frobnicate/);
});

test('--agent command lines split like a shell splits plain words and quotes', () => {
  assert.deepEqual(splitCommandLine('npx @agentclientprotocol/claude-agent-acp'), ['npx', '@agentclientprotocol/claude-agent-acp']);
  assert.deepEqual(splitCommandLine(`node "my agent.js" --flag='a b' x\\ y ""`), ['node', 'my agent.js', '--flag=a b', 'x y', '']);
  assert.deepEqual(splitCommandLine('  a   b  '), ['a', 'b']);
  assert.deepEqual(splitCommandLine('echo "a \\"q\\" $HOME"'), ['echo', 'a "q" $HOME']);
  assert.throws(() => splitCommandLine('node "unterminated'), /unterminated/);
});

test('the flags table is the only place the UI flags are defined: both helps list each, an unknown flag names them all', async () => {
  const { UI_FLAGS, flagUsage } = await import('../../src/cli/ui_flags.ts');
  const general = await runCxl(['--help']);
  const own = await runCxl(['--cwd', '.', '--help']);
  assert.equal(own.code, 0, own.stderr);
  const listed = (text: string) => [...text.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]);
  const uiSection = general.stdout.slice(general.stdout.indexOf('UI flags'));
  // every flag of the table, in its order, and no other (the UI's own help also lists -h/--help nowhere but the parser)
  assert.deepEqual(listed(uiSection), UI_FLAGS.map((f) => `--${f.name}`));
  assert.deepEqual(listed(own.stdout), UI_FLAGS.map((f) => `--${f.name}`));
  for (const f of UI_FLAGS) assert.ok(own.stdout.includes(flagUsage(f)), flagUsage(f));
  const bad = await runCxl(['--no-such-flag']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--no-such-flag/);
  const named = /the UI's flags: (.*)\./.exec(bad.stderr)?.[1].split(', ');
  assert.deepEqual(named, UI_FLAGS.map((f) => `--${f.name}`));
  // each flag of the table parses (a value where it takes one), so none is defined anywhere else
  const { parseUiFlags } = await import('../../src/cli/ui.ts');
  for (const f of UI_FLAGS) {
    const parsed = parseUiFlags(f.type === 'string' ? [`--${f.name}`, 'v'] : [`--${f.name}`]);
    assert.deepEqual(parsed?.values[f.name as keyof typeof parsed.values], f.type === 'boolean' ? true : f.multiple ? ['v'] : 'v', f.name);
  }
  // a flag given more than once keeps every value
  assert.deepEqual(parseUiFlags(['--add-dir', 'a', '--add-dir', 'b'])?.values['add-dir'], ['a', 'b']);
});

test('docs/tui.md has a row for each flag of the table and lists the start steps in their order', async () => {
  const { UI_FLAGS, flagUsage } = await import('../../src/cli/ui_flags.ts');
  const { UI_START } = await import('../../src/cli/ui.ts');
  const fs = await import('node:fs');
  const doc = fs.readFileSync(new URL('../../docs/tui.md', import.meta.url), 'utf8');
  for (const f of UI_FLAGS) assert.ok(doc.includes(`| \`${flagUsage(f).replace('|', '\\|')}\` |`), `docs/tui.md has no row for ${flagUsage(f)}`);
  const listed = [...doc.matchAll(/^\d+\. `([a-z ]+)`:/gm)].map((m) => m[1]);
  assert.deepEqual(listed, UI_START.map((s) => s.name));
  for (const s of UI_START) assert.ok(s.why.length > 20, `${s.name} says why it is there`);
});
