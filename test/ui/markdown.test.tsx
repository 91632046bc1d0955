import './env.ts';
// Agent text as markdown: a table, a link, a quote, emphasis, lists and highlighted TypeScript and
// Python fences, laid out at 60/100/140 columns in the dark and light themes and under NO_COLOR
// (snapshots of the rows with each span's resolved colour and style); history's soft layout
// leaving a 150-character URL and every code line whole; links drawn as OSC 8 hyperlinks.
import assert from 'node:assert/strict';
import process from 'node:process';
import { test } from 'node:test';
import { highlightCode } from '../../src/ui/highlight.ts';
import { markdownRows } from '../../src/ui/markdown.ts';
import { RowLine } from '../../src/ui/Rows.tsx';
import type { Row } from '../../src/ui/text_layout.ts';
import type { HistoryItem } from '../../src/client/state.ts';
import { setTheme, themeColor, type ThemeName } from '../../src/ui/theme.ts';
import { matchSnapshot } from '../helpers/snapshot.ts';
import { renderAt, tick } from './harness.ts';

export const URL150 = `https://example.com/${'a-very-long-path-segment/'.repeat(5)}and-then-some-more-to-reach-it/x`.padEnd(150, 'z');

export const ANSWER = `## Review of the parser

The parser is in **good** shape, with *one* ~~bug~~ issue left. See [the design notes](https://example.com/docs/parser) first.

> Run the tests *before* merging: the lexer changed too.

| file | lines | status |
|:-----|------:|--------|
| src/parser.ts | 1,204 | reviewed, two comments left on the error recovery path |
| src/lexer.ts | 310 | ok |

\`\`\`ts
export function parse(src: string): Ast {
  return new Parser(src).program(); // entry point
}
\`\`\`

\`\`\`python
def fold(text: str) -> str:
    return unicodedata.normalize("NFD", text).lower()  # accents off
\`\`\`

1. fix the recovery
2. release
   - tag it
- [x] tests pass
`;

/** Rows as text with each styled span marked: «color,bold,…|text». */
function styled(rows: Row[], theme: ThemeName): string {
  return rows
    .map((r) =>
      r
        .map((s) => {
          const marks = [themeColor(s.color, theme), s.bold && 'b', s.italic && 'i', s.underline && 'u', s.strike && 's', s.dim && 'd'].filter(Boolean);
          return marks.length ? `«${marks.join(',')}|${s.text}»` : s.text;
        })
        .join(''),
    )
    .join('\n');
}

for (const theme of ['dark', 'light', 'no_color'] as const) {
  for (const width of [60, 100, 140]) {
    test(`markdown answer, ${theme} at ${width} columns`, () => {
      const saved = process.env.NO_COLOR;
      if (theme === 'no_color') process.env.NO_COLOR = '1';
      try {
        const rows = markdownRows(ANSWER, width, {}, { soft: true });
        matchSnapshot(import.meta.url, `answer ${theme} @${width}`, styled(rows, theme === 'no_color' ? 'dark' : theme));
      } finally {
        if (saved === undefined) delete process.env.NO_COLOR;
        else process.env.NO_COLOR = saved;
      }
    });
  }
}

test('history leaves a 150-character URL and every code line whole; the live region breaks them to the width', () => {
  const text = `See ${URL150} for details.\n\n\`\`\`sh\n${'echo '.repeat(30)}done\n\`\`\``;
  const soft = markdownRows(text, 60, {}, { soft: true }).map((r) => r.map((s) => s.text).join(''));
  assert.ok(soft.includes(`See ${URL150}`), 'the URL is whole, on the row of the words around it');
  assert.ok(soft.includes(`${'echo '.repeat(30)}done`), 'the code line is one row');
  const hard = markdownRows(text, 60).map((r) => r.map((s) => s.text).join(''));
  for (const l of hard) assert.ok([...l].length <= 60, `live rows fit: ${l}`);
});

test('a table is laid out to the width: columns narrowed, cells wrapped, right alignment kept', () => {
  const rows = markdownRows(ANSWER, 60).map((r) => r.map((s) => s.text).join(''));
  const table = rows.filter((l) => l.includes('│') && !l.startsWith('▌'));
  assert.ok(table.length > 3, 'a wrapped cell makes the row taller');
  for (const l of table) assert.ok([...l].length <= 60, `fits: ${l}`);
  assert.match(rows.join('\n'), /src\/lexer\.ts +│ +310 │ ok/);
});

test('code is highlighted by language: keywords, strings and comments get their colours; an unknown language stays plain', () => {
  const ts = highlightCode('const s = "x"; // c', 'ts')!;
  assert.deepEqual(ts[0].filter((s) => s.color).map((s) => [s.text, s.color]), [['const', 'syn_keyword'], ['"x"', 'syn_string'], ['// c', 'syn_comment']]);
  const py = highlightCode('def f():\n    return 1', 'python')!;
  assert.equal(py.length, 2);
  assert.equal(highlightCode('x', 'no-such-language'), undefined);
});

test('a link is an OSC 8 hyperlink with its URL still readable; a javascript: link is text only', async () => {
  const saved = process.env.FORCE_COLOR;
  process.env.FORCE_COLOR = '1';
  try {
    const rows = markdownRows('[docs](https://example.com/d) and [x](javascript:alert(1))', 80);
    assert.match(rows[0].map((s) => s.text).join(''), /^docs \(https:\/\/example\.com\/d\) and x \(javascript:alert\(1\)\)$/);
    const r = renderAt(<RowLine row={rows[0]} />, 80);
    await tick();
    const frame = r.lastFrame();
    r.unmount();
    assert.ok(frame.includes('\u001B]8;;https://example.com/d\u001B\\docs\u001B]8;;\u001B\\'), 'the hyperlink');
    assert.ok(!frame.includes(']8;;javascript'), 'no hyperlink to a script');
  } finally {
    if (saved === undefined) delete process.env.FORCE_COLOR;
    else process.env.FORCE_COLOR = saved;
    setTheme('dark');
  }
});

test('history is printed for good only once marked (and, for a fence, the grammars) is in: an answer before that waits, with all after it', async () => {
  const { printableHistory } = await import('../../src/ui/App.tsx');
  const history: HistoryItem[] = [
    { kind: 'user', key: 'u1', text: 'hi' },
    { kind: 'agent', key: 'a1', text: '**bold** answer' },
    { kind: 'user', key: 'u2', text: 'more' },
    { kind: 'agent', key: 'a2', text: '```ts\nconst x = 1;\n```' },
  ];
  const keys = (h: HistoryItem[]) => h.map((i) => i.key);
  assert.deepEqual(keys(printableHistory(history, { highlighter: false, markdown: false })), ['u1']);
  assert.deepEqual(keys(printableHistory(history, { highlighter: true, markdown: false })), ['u1']);
  assert.deepEqual(keys(printableHistory(history, { highlighter: false, markdown: true })), ['u1', 'a1', 'u2']);
  assert.deepEqual(keys(printableHistory(history, { highlighter: true, markdown: true })), ['u1', 'a1', 'u2', 'a2']);
});

/** The rows' text, and each span's text with the target it links to. */
function linksOf(md: string): { text: string; links: [string, string | undefined][] } {
  const rows = markdownRows(md, 200);
  return { text: rows.map((r) => r.map((s) => s.text).join('')).join('\n'), links: rows.flat().map((s) => [s.text, s.link]) };
}

test('a link never hides where it goes: the target follows text that is not the target, the host as the resolver reads it', async () => {
  // text that reads as one host, target another: the target is shown
  for (const [md, shown] of [
    ['[https://github.com/a](https://evil.example/a)', 'https://github.com/a (https://evil.example/a)'],
    ['[github.com](https://evil.example)', 'github.com (https://evil.example)'],
    ['[support@github.com](mailto:x@evil.example)', 'support@github.com (mailto:x@evil.example)'],
    ['![https://github.com/logo.png](https://evil.example/logo.png)', '[image: https://github.com/logo.png] (https://evil.example/logo.png)'],
    // user info before the host: the host is named
    ['[https://github.com](https://github.com@evil.example/)', 'https://github.com (https://github.com@evil.example/, host evil.example)'],
    // a Cyrillic а: the ASCII form of the host, and that is what is linked
    ['[https://аpple.com](https://аpple.com)', 'https://аpple.com (https://xn--pple-43d.com/)'],
    ['[http://0x7f.1/](http://0x7f.1/)', 'http://0x7f.1/ (http://127.0.0.1/)'],
  ] as const) {
    assert.equal(linksOf(md).text, shown, md);
  }
  assert.equal(linksOf('[https://аpple.com](https://аpple.com)').links[0][1], 'https://xn--pple-43d.com/');
  // controls: a link written as its target, a plain address, a host only in other case
  for (const md of ['<https://github.com/a>', 'write to support@github.com', '[https://GitHub.com/a](https://GitHub.com/a)']) {
    assert.doesNotMatch(linksOf(md).text, /\(/, md);
    assert.ok(linksOf(md).links.some(([, l]) => l !== undefined), `${md} is still a link`);
  }
  // a target holding a hidden character is shown marked and never linked
  const bidi = linksOf('[github.com](https://github.com\u202e/moc.elgoog)');
  assert.equal(bidi.text, 'github.com (https://github.com⟨U+202E⟩/moc.elgoog)');
  assert.ok(bidi.links.every(([, l]) => l === undefined), 'no span links to it');
  const saved = process.env.FORCE_COLOR;
  process.env.FORCE_COLOR = '1';
  try {
    const r = renderAt(<RowLine row={markdownRows('[github.com](https://evil.example) and [x](https://github.com\u202e/y)', 200)[0]} />, 200);
    await tick();
    const frame = r.lastFrame();
    r.unmount();
    assert.ok(frame.includes('\u001B]8;;https://evil.example\u001B\\github.com\u001B]8;;\u001B\\'), 'the hyperlink');
    assert.ok(frame.includes('(https://evil.example)'), 'with its target after it');
    assert.ok(!frame.includes('\u202e') && !frame.includes(']8;;https://github.com⟨'), 'the marked target is not a hyperlink');
  } finally {
    if (saved === undefined) delete process.env.FORCE_COLOR;
    else process.env.FORCE_COLOR = saved;
    setTheme('dark');
  }
});
