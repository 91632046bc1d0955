// Code fences highlighted by language, with highlight.js's grammars (through lowlight, which
// gives the tokens as a tree rather than HTML). The grammars are loaded on the first fence, not at
// start: a session that never shows code never pays for them. Until they are in, code is drawn
// plain, and whoever draws can wait for `highlighterReady()`.
import { lateModule } from './late_module.ts';
import type { Span } from './text_layout.ts';

type Node = { type: string; value?: string; properties?: { className?: string[] }; children?: Node[] };
interface Lowlight {
  highlight(language: string, value: string): Node;
  registered(alias: string): boolean;
}

const grammars = lateModule(() => import('./highlight_grammars.ts').then(({ makeLowlight }) => makeLowlight() as unknown as Lowlight));

/** Start loading the grammars (once); resolves when they are in. */
export const loadHighlighter = grammars.load;
export const highlighterReady = grammars.ready;
/** Called once the grammars are in (to draw again what was drawn plain). */
export const onHighlighterReady = grammars.onReady;

// highlight.js's scopes, as the theme's colour names
const SCOPE: Record<string, string> = {
  keyword: 'syn_keyword',
  built_in: 'syn_type',
  type: 'syn_type',
  literal: 'syn_number',
  number: 'syn_number',
  string: 'syn_string',
  regexp: 'syn_string',
  symbol: 'syn_number',
  comment: 'syn_comment',
  doctag: 'syn_comment',
  meta: 'syn_meta',
  title: 'syn_title',
  'title.function': 'syn_title',
  'title.class': 'syn_type',
  attr: 'syn_attr',
  attribute: 'syn_attr',
  property: 'syn_attr',
  variable: 'syn_attr',
  tag: 'syn_keyword',
  name: 'syn_keyword',
  addition: 'added',
  deletion: 'removed',
  section: 'syn_title',
  bullet: 'syn_meta',
};

function scopeColor(classes: string[] | undefined): string | undefined {
  for (const c of classes ?? []) {
    const name = c.replace(/^hljs-/, '').replace(/_+$/, '');
    if (SCOPE[name]) return SCOPE[name];
    const head = name.split('.')[0];
    if (SCOPE[head]) return SCOPE[head];
  }
  return undefined;
}

/** The tree as spans, one list per line of code. */
function flatten(node: Node, color: string | undefined, lines: Span[][]): void {
  if (node.type === 'text') {
    const parts = (node.value ?? '').split('\n');
    parts.forEach((p, i) => {
      if (i > 0) lines.push([]);
      if (p !== '') lines[lines.length - 1].push(color ? { text: p, color } : { text: p });
    });
    return;
  }
  const own = node.type === 'element' ? (scopeColor(node.properties?.className) ?? color) : color;
  for (const c of node.children ?? []) flatten(c, own, lines);
}

/**
 * The lines of `code` as coloured spans, by `language` (a fence's info word: `ts`, `python`);
 * undefined when the grammars are not loaded yet (the load starts) or the language is unknown.
 */
export function highlightCode(code: string, language: string): Span[][] | undefined {
  const lowlight = grammars.get();
  if (!lowlight) {
    void loadHighlighter();
    return undefined;
  }
  const lang = language.toLowerCase();
  if (lang === '' || !lowlight.registered(lang)) return undefined;
  const lines: Span[][] = [[]];
  flatten(lowlight.highlight(lang, code), undefined, lines);
  return lines;
}
