// What the completion list offers at the cursor (commands, a command's arguments, files after @),
// what accepting an item does to the composer, and how fuzzy file matches are ranked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyCompletion, completionAt, mentionAt, mentionText } from '../../src/ui/completion.ts';
import { fuzzyFilter } from '../../src/ui/fuzzy.ts';
import { commandEntries, parseSlash } from '../../src/ui/slash_commands.ts';
import { baseStore } from './states.ts';

function state(extra: (s: ReturnType<typeof baseStore>) => void = () => {}) {
  const s = baseStore();
  s.config.setModes([{ id: 'default', name: 'default' }, { id: 'read_only', name: 'read_only', description: 'reads only' }], 'default');
  s.applyUpdate({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'summarise the session' }, { name: 'help', description: 'the agent help' }, { name: 'tool', description: 'run a tool', input: { hint: 'name {json}' } }] });
  s.setFiles({ paths: ['README.md', 'src/app.ts', 'src/ui/App.tsx', 'src/ui/text_layout.ts', 'test/ui/keys.test.tsx', 'docs/tui.md'], loading: false, truncated: false });
  extra(s);
  return s.getState();
}

const at = (text: string, cursor = text.length) => completionAt(state(), { text, cursor });

test('/ lists the client commands then the agent ones; a shadowed agent command is //name; typing narrows', () => {
  const all = at('/')!;
  assert.equal(all.kind, 'command');
  assert.deepEqual(all.items.map((i) => i.label), ['/help', '/mode NAME', '/model [NAME]', '/config [ID]', '/trust', '/login', '/clear', '/resume [ID]', '/rewind', '/undo', '/fork', '/keys', '/edit', '/theme [dark|light]', '/quit', '/compact', '//help', '/tool name {json}']);
  assert.deepEqual(all.items.find((i) => i.label === '//help')?.insert, '//help');
  const re = at('/re')!;
  assert.deepEqual(re.items.map((i) => i.label), ['/resume [ID]', '/rewind']);
  assert.equal(re.items[0].submit, true, 'an optional argument does not hold Enter');
  assert.equal(at('/mo')!.items[0].submit, false, '/mode waits for its argument');
  assert.deepEqual(at('/co')!.items.map((i) => i.label), ['/config [ID]', '/compact']);
  assert.equal(at('/zz')!.items.length, 0);
  assert.match(at('/zz')!.note ?? '', /sends it to the agent as typed/);
  assert.equal(at('//he'), undefined, '// is text for the agent');
  assert.equal(at('hello /he'), undefined, 'only at the start');
});

test("a custom command says where it comes from (project, user) instead of `(agent)`, with its argument hint", () => {
  const custom = (s: ReturnType<typeof baseStore>) =>
    s.applyUpdate({
      sessionUpdate: 'available_commands_update',
      availableCommands: [
        { name: 'compact', description: 'summarise the session' },
        { name: 'review', description: 'Review an issue (project command)', input: { hint: '<issue>' }, _meta: { 'cxl/source': 'project' } },
      ],
    });
  const items = completionAt(state(custom), { text: '/rev', cursor: 4 })!.items;
  assert.deepEqual(items.map((i) => [i.label, i.detail, i.insert, i.submit]), [['/review <issue>', 'Review an issue (project command)', '/review ', false]]);
  assert.equal(completionAt(state(custom), { text: '/comp', cursor: 5 })!.items[0].detail, 'summarise the session (agent)');
});

test('/mode completes its argument from the agent\'s modes', () => {
  const c = at('/mode r')!;
  assert.equal(c.kind, 'argument');
  assert.deepEqual(c.items.map((i) => [i.label, i.detail]), [['read_only', 'reads only']]);
  const all = at('/mode ')!;
  assert.deepEqual(all.items.map((i) => [i.label, i.detail]), [['default', 'current'], ['read_only', 'reads only']]);
  const done = applyCompletion({ text: '/mode r', cursor: 7 }, c, c.items[0]);
  assert.deepEqual(done, { text: '/mode read_only', cursor: 15 });
});

test('@ completes files anywhere in the prompt, fuzzy; accepting replaces the word and adds a space', () => {
  const text = 'fix @txtlay please';
  const c = completionAt(state(), { text, cursor: 11 })!;
  assert.equal(c.kind, 'file');
  assert.equal(c.items[0].label, 'src/ui/text_layout.ts');
  const done = applyCompletion({ text, cursor: 11 }, c, c.items[0]);
  assert.equal(done.text, 'fix @src/ui/text_layout.ts please', 'no double space before the following word');
  assert.equal(done.text.slice(done.cursor), 'please');
  assert.equal(completionAt(state(), { text: 'mail a@b', cursor: 8 }), undefined, 'not inside a word');
  assert.deepEqual(mentionAt('x @src/a y', 8), { from: 2, to: 8, query: 'src/a' });
  assert.deepEqual(mentionAt('x @"src', 7), { from: 2, to: 7, query: 'src' }, 'an opening quote is not part of the query');
  assert.equal(mentionText('a b/c.ts'), '@"a b/c.ts"');
  const loading = completionAt(state((s) => s.setFiles({ paths: [], loading: true, truncated: false })), { text: '@x', cursor: 2 })!;
  assert.match(loading.note ?? '', /listing/);
});

test('fuzzy ranking: a run in the file name first, then word starts, then scattered characters', () => {
  const paths = ['src/ui/App.tsx', 'src/client/acp_client.ts', 'src/ui/approval_rows.ts', 'docs/acp.md', 'bench/acp.bench.ts', 'src/agent/acp_agent.ts', 'a/p/p.txt'];
  assert.deepEqual(fuzzyFilter(paths, 'acp', 3).matches.map((m) => m.path), ['docs/acp.md', 'bench/acp.bench.ts', 'src/agent/acp_agent.ts']);
  assert.equal(fuzzyFilter(paths, 'app', 1).matches[0].path, 'src/ui/App.tsx', 'case-insensitive, the name wins');
  assert.equal(fuzzyFilter(paths, 'arows', 1).matches[0].path, 'src/ui/approval_rows.ts');
  assert.equal(fuzzyFilter(paths, 'zzz', 5).total, 0);
  const m = fuzzyFilter(paths, 'acpcl', 1).matches[0];
  assert.equal(m.path, 'src/client/acp_client.ts');
  assert.equal(m.positions.map((p) => m.path[p]).join(''), 'acpcl');
  // narrowing reuses the last answer and still finds what a fresh search finds
  const big = Array.from({ length: 5000 }, (_, i) => `dir${i % 50}/file${i}.ts`);
  fuzzyFilter(big, 'f', 10);
  const narrowed = fuzzyFilter(big, 'file49', 1000);
  const fresh = fuzzyFilter([...big], 'file49', 1000);
  assert.deepEqual(narrowed.matches.map((x) => x.path), fresh.matches.map((x) => x.path));
  assert.equal(narrowed.total, fresh.total);
});

test('parseSlash and the registry entries', () => {
  assert.deepEqual(parseSlash('/mode  read_only '), { name: 'mode', arg: 'read_only' });
  assert.equal(parseSlash('//help'), undefined);
  assert.equal(parseSlash('a /help'), undefined);
  const names = commandEntries(state()).map((e) => `${e.source}:${e.name}`);
  assert.ok(names.includes('agent:/help') && names.includes('client:help'));
});
