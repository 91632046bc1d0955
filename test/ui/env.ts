// Imported first by every UI test: chalk decides on colour when it loads, and snapshots are
// plain text on both runtimes.
import process from 'node:process';

process.env.FORCE_COLOR = '0';
delete process.env.NO_COLOR;

// Code fences are highlighted once the grammars are in, and markdown laid out once marked is: a
// test frame must not race their load.
const { loadHighlighter } = await import('../../src/ui/highlight.ts');
const { loadMarkdown } = await import('../../src/ui/markdown.ts');
await Promise.all([loadHighlighter(), loadMarkdown()]);
