// The document jq is fed, made ready before jq sees it: its format (named, from the file name, or
// sniffed), split into its documents (JSON Lines and multi-document YAML are streams; at most
// maxDocuments are read, and the rest is said, never silently dropped), checked (valid JSON,
// nesting within maxDepth), YAML turned into JSON. JSON text goes to jq as written, so big
// numbers keep every digit; YAML goes through JavaScript numbers.
import { ToolError } from '../errors.ts';
import { JQ_LIMITS } from './policy.ts';

export type Format = 'json' | 'yaml';

export interface Prepared {
  format: Format;
  /** the JSON text jq reads: the documents one after another */
  text: string;
  documents: number;
  /** documents past maxDocuments, not read */
  dropped: number;
}

/** The format a file name says, if it says one. */
export function formatOfName(name: string): Format | undefined {
  if (/\.(?:json|jsonl|ndjson)$/i.test(name)) return 'json';
  if (/\.ya?ml$/i.test(name)) return 'yaml';
  return undefined;
}

/** JSON when the text starts like JSON, else YAML. */
export function sniff(text: string): Format {
  const first = /^\s*(.)/s.exec(text)?.[1] ?? '';
  return /[{["0-9-]/.test(first) || /^\s*(?:true|false|null)\s*$/.test(text) ? 'json' : 'yaml';
}

/** The top-level JSON values of a stream: their [start, end) offsets and the deepest nesting. */
function splitJson(text: string, maxDocs: number): { spans: [number, number][]; total: number; depth: number } {
  const spans: [number, number][] = [];
  let total = 0;
  let depth = 0;
  let maxDepth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) {
        inString = false;
        if (depth === 0) end(i + 1);
      }
      continue;
    }
    if (c === 32 || c === 10 || c === 13 || c === 9) {
      if (start >= 0 && depth === 0) end(i);
      continue;
    }
    if (start < 0) start = i;
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) maxDepth = depth;
    } else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) end(i + 1);
    } else if (depth === 0 && i + 1 < text.length && /[{["]/.test(text[i + 1])) end(i + 1);
  }
  if (start >= 0) end(text.length);
  return { spans, total, depth: maxDepth };

  function end(at: number): void {
    if (start < 0) return;
    total++;
    if (spans.length < maxDocs) spans.push([start, at]);
    start = -1;
  }
}

function decodeError(where: string, format: Format, detail: string, explicit: boolean): ToolError {
  return new ToolError('bad_args', `jq: ${where} is not valid ${format}${explicit ? '' : ` (nor ${format === 'json' ? 'yaml' : 'json'})`}: ${detail}. This is a problem with the DOCUMENT, not with the filter: check it${explicit ? '' : ', or pass format="json" or format="yaml"'}.`);
}

function fromJson(where: string, text: string, explicit: boolean): Prepared {
  const { spans, total, depth } = splitJson(text, JQ_LIMITS.maxDocuments);
  if (depth > JQ_LIMITS.maxDepth) throw new ToolError('too_large', `jq: ${where} nests ${depth} levels deep, over the ${JQ_LIMITS.maxDepth}-level limit.`);
  for (const [a, b] of spans) {
    try {
      JSON.parse(text.slice(a, b));
    } catch (err) {
      throw decodeError(where, 'json', `${(err as Error).message} (in the document at offset ${a})`, explicit);
    }
  }
  const used = spans.length ? text.slice(0, spans[spans.length - 1][1]) : '';
  return { format: 'json', text: used, documents: spans.length, dropped: total - spans.length };
}

/**
 * A YAML value as JSON text, within `budget` characters: aliases are shared objects in memory,
 * and a document of aliases of aliases (a "billion laughs") would be gigabytes written out.
 */
function yamlJson(v: unknown, budget: { left: number }, where: string): string {
  const spend = (s: string) => {
    budget.left -= s.length;
    if (budget.left < 0) throw new ToolError('too_large', `jq: ${where} expands (through YAML aliases) past the ${JQ_LIMITS.maxInputBytes}-byte input cap.`);
    return s;
  };
  if (v === null || v === undefined) return spend('null');
  if (typeof v === 'string') return spend(JSON.stringify(v));
  if (typeof v === 'number') return spend(Number.isFinite(v) ? String(v) : 'null');
  if (typeof v === 'boolean' || typeof v === 'bigint') return spend(String(v));
  if (v instanceof Date) return spend(JSON.stringify(v.toISOString()));
  if (Array.isArray(v)) return `${spend('[')}${v.map((x) => yamlJson(x, budget, where)).join(spend(','))}${spend(']')}`;
  if (v instanceof Map) return yamlJson(Object.fromEntries([...v].map(([k, x]) => [String(k), x])), budget, where);
  if (typeof v === 'object') return `${spend('{')}${Object.entries(v).map(([k, x]) => `${spend(JSON.stringify(k))}:${yamlJson(x, budget, where)}`).join(',')}${spend('}')}`;
  return spend('null');
}

async function fromYaml(where: string, text: string, explicit: boolean): Promise<Prepared> {
  const yaml = await import('js-yaml');
  let docs: unknown[];
  try {
    docs = yaml.loadAll(text, { json: true, maxDepth: JQ_LIMITS.maxDepth });
  } catch (err) {
    throw decodeError(where, 'yaml', (err as Error).message.split('\n')[0], explicit);
  }
  const kept = docs.slice(0, JQ_LIMITS.maxDocuments);
  const budget = { left: JQ_LIMITS.maxInputBytes };
  const json = kept.map((d) => yamlJson(d, budget, where)).join('\n');
  const { depth } = splitJson(json, 1);
  if (depth > JQ_LIMITS.maxDepth) throw new ToolError('too_large', `jq: ${where} nests ${depth} levels deep, over the ${JQ_LIMITS.maxDepth}-level limit.`);
  return { format: 'yaml', text: json, documents: kept.length, dropped: docs.length - kept.length };
}

/** The document ready for jq; `named` is the format asked for or the file name's. */
export async function prepare(where: string, text: string, asked: Format | undefined, named: Format | undefined): Promise<Prepared> {
  const format = asked ?? named ?? sniff(text);
  if (asked) return format === 'json' ? fromJson(where, text, true) : fromYaml(where, text, true);
  try {
    return format === 'json' ? fromJson(where, text, false) : await fromYaml(where, text, false);
  } catch (first) {
    if ((first as ToolError).code !== 'bad_args') throw first;
    try {
      return format === 'json' ? await fromYaml(where, text, false) : fromJson(where, text, false);
    } catch {
      throw first;
    }
  }
}
