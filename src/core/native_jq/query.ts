// One jq_query from checked arguments to its result: the filter checked (size, characters, no
// module directives), the document prepared (documents.ts), the wrapped program run in the
// worker with its deadline (runner.ts), and what came back read into values and notes, or into
// the error shape a model can act on (syntax, compile, runtime, deadline, halt).
import { ToolError } from '../errors.ts';
import { firstHidden, hiddenKind } from '../hidden_text.ts';
import { prepare, type Format } from './documents.ts';
import { JQ_LIMITS, type JqPolicy } from './policy.ts';
import { programError, readOutput, runtimeError, wrap } from './program.ts';
import { runJq } from './runner.ts';

export interface JqResult {
  filter: string;
  /** the workspace-relative path, or "(inline input)" */
  source: string;
  format: Format;
  documents: number;
  /** each value as compact JSON */
  values: string[];
  count: number;
  truncated?: boolean;
  note?: string;
  text: string;
}

/** Reading the document counts against no deadline of the filter's: this much per MiB is added. */
export const READ_ALLOWANCE_MS_PER_MIB = 250;

// A filter is program text: tab, newline and CR lay it out; every other hidden character
// (hidden_text.ts) could make it read as something other than what runs.
const LAYOUT = '\t\n\r';

/** Refuses a filter jq_query will not run, before anything is read. */
export function checkFilter(filter: string): void {
  if (!filter.trim()) throw new ToolError('bad_args', 'jq: filter is required, e.g. `.name` or `.items[] | select(.ok)`.');
  const n = Buffer.byteLength(filter);
  if (n > JQ_LIMITS.maxFilterBytes) {
    throw new ToolError('bad_args', `jq: the filter is ${n} bytes, over the ${JQ_LIMITS.maxFilterBytes}-byte cap. A filter that long is imperative work: do it in steps, or read the document with read_file.`);
  }
  const bad = firstHidden(filter, LAYOUT);
  if (bad) {
    const cp = bad.codePoint.toString(16).toUpperCase().padStart(4, '0');
    throw new ToolError('bad_args', `jq: the filter contains the non-printing character U+${cp} (${hiddenKind(bad.codePoint)}) at offset ${bad.offset}, which is refused (it can hide what the filter does). Write the filter in plain characters.`);
  }
  if (/^\s*(?:#[^\n]*\n\s*)*(?:import|include)\b/.test(filter)) {
    throw new ToolError('bad_args', 'jq: import and include are not available in jq_query: it loads no module files. Write the definitions into the filter (def f: …; f).');
  }
}

export interface QueryInput {
  filter: string;
  source: string;
  text: string;
  asked?: Format;
  named?: Format;
  max?: number;
  deadlineMs?: number;
}

function notes(r: ReturnType<typeof readOutput>, max: number, cap: number, dropped: number): string[] {
  const out: string[] = [];
  if (r.stop === 'values') out.push(`TRUNCATED at the ${max}-value cap after ${r.values.length} value(s). Raise max (ceiling ${JQ_LIMITS.maxValues}) or narrow the filter (limit(n; …), first(…)).`);
  if (r.stop === 'bytes') out.push(`TRUNCATED at the ${cap}-byte output cap after ${r.values.length} value(s). Narrow the filter: fewer fields, or \`keys\` / \`length\` to see the shape first.`);
  if (dropped > 0) out.push(`TRUNCATED: only the first ${JQ_LIMITS.maxDocuments} documents of the input stream were read; ${dropped} more were not.`);
  return out;
}

export async function runQuery(q: QueryInput, policy: JqPolicy): Promise<JqResult> {
  const doc = await prepare(q.source === '(inline input)' ? 'the inline input' : JSON.stringify(q.source), q.text, q.asked, q.named);
  const max = Math.min(q.max !== undefined && q.max > 0 ? q.max : JQ_LIMITS.defaultValues, policy.maxValues);
  const cap = policy.maxOutputBytes;
  const deadline = Math.min(q.deadlineMs !== undefined && q.deadlineMs > 0 ? q.deadlineMs : JQ_LIMITS.defaultDeadlineMs, policy.maxDeadlineMs);
  const allowance = Math.ceil((Buffer.byteLength(doc.text) / (1024 * 1024)) * READ_ALLOWANCE_MS_PER_MIB);
  const outcome = await runJq(wrap(q.filter, max, cap), doc.text, ['-n', '-r'], deadline + allowance);
  if (outcome.kind === 'deadline') {
    throw new ToolError('timeout', `jq: the filter did not finish within its ${deadline / 1000}s deadline and was stopped. Two filters never finish: one that recurses with no base case (\`def f: f; f\`), and one that makes an endless or huge sequence (\`repeat(.)\`, \`[range(1e8)]\`): use \`limit(n; …)\` or \`first(…)\` instead. Raise deadline_ms (ceiling ${JQ_LIMITS.maxDeadlineMs}) only if the document is large and the filter sound.`);
  }
  if (outcome.kind === 'crashed') {
    if (/stack|recursion/i.test(outcome.err)) throw new ToolError('timeout', 'jq: the filter exhausted jq\'s stack and was stopped: a definition that calls itself with no base case (`def f: f; f`) never finishes. Give the recursion a base case, or use `limit(n; …)`.');
    throw new ToolError('internal', `jq: jq stopped on an internal error (${outcome.err.slice(0, 200)}); the call was abandoned. Try a simpler filter.`);
  }
  if (outcome.kind === 'error') throw programError(outcome.err, q.filter);
  const r = readOutput(outcome.out);
  if (r.error !== undefined) throw runtimeError(r.error, q.filter, q.source);
  if (r.tooBig !== undefined) {
    throw new ToolError('too_large', `jq: the first value the filter emitted is ${r.tooBig} bytes, over the ${cap}-byte output cap. Narrow the filter: \`| keys\`, \`| length\`, \`.[0:5]\`, or pick the fields you need.`);
  }
  if (r.halted) throw programError('', q.filter);
  const ns = notes(r, max, cap, doc.dropped);
  if (!r.values.length && !ns.length) ns.push('The filter matched nothing. This is an answer, not an error: no value satisfied it. Check the document\'s actual shape with `keys` or `type` if you expected something.');
  const note = ns.length ? ns.join('\n') : undefined;
  const clampF = q.filter.length > 120 ? `${q.filter.slice(0, 120)}…` : q.filter;
  return {
    filter: clampF,
    source: q.source,
    format: doc.format,
    documents: doc.documents,
    values: r.values,
    count: r.values.length,
    ...(r.stop || doc.dropped ? { truncated: true } : {}),
    ...(note ? { note } : {}),
    text: `${r.values.join('\n')}${r.values.length && note ? '\n' : ''}${note ?? ''}\n`,
  };
}
