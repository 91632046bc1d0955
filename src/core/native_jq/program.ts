// The program jq runs around the model's filter, and what its output means. The wrapper takes
// away what jq_query does not offer: `$ENV` and `env` are `{}`, `input`, `inputs` and
// `input_filename` are not there to read more than the one document, `$ARGS` is empty, and
// `import` and `include` cannot appear (a directive must come first; the filter never does). It
// runs the filter over each document of the stream, catches its errors, counts the values and
// their bytes and stops at the caps; every line it prints is tagged: `V` a value (compact JSON),
// `E` the filter's error, `C` the value cap, `O` the output cap, `B` a first value larger than
// the output cap (its size), `Z` the end. No `Z`: the filter halted jq itself.
import { ToolError } from '../errors.ts';

/** Lines of the wrapper before the filter: jq's line numbers in errors are moved back by this. */
const PRELUDE = [
  'def __cxl_docs: inputs;',
  'def env: {};',
  'def input: error("input is not available in jq_query: it reads one document (path or input), so there is no next input");',
  'def inputs: error("inputs is not available in jq_query: it reads one document (path or input); each document of a stream gets the filter on its own");',
  'def input_filename: null;',
  'def get_search_list: [];',
  '{} as $ENV | {"positional": [], "named": {}} as $ARGS |',
  '(label $__cxl_stop | foreach (__cxl_docs | try ((',
];

/** The wrapped program for `filter`, with the value and byte caps. */
export function wrap(filter: string, maxValues: number, maxBytes: number): string {
  const tail = [
    ') | ["V", tojson]) catch ["E", (if type == "string" then . else tojson end)]) as $__cxl_x',
    `  ([0, 0]; [.[0] + 1, .[1] + (if $__cxl_x[0] == "V" then ($__cxl_x[1] | utf8bytelength) + 1 else 0 end)];`,
    '  if $__cxl_x[0] == "E" then ("E" + ($__cxl_x[1] | tojson)), break $__cxl_stop',
    `  elif .[0] > ${maxValues} then "C", break $__cxl_stop`,
    `  elif .[1] > ${maxBytes} then (if .[0] == 1 then "B" + ($__cxl_x[1] | utf8bytelength | tostring) else "O" end), break $__cxl_stop`,
    '  else "V" + $__cxl_x[1] end)), "Z"',
  ];
  return `${PRELUDE.join('\n')}\n${filter}\n${tail.join('\n')}`;
}

export interface JqValues {
  values: string[];
  /** why the values stop where they do, if not at the end */
  stop?: 'values' | 'bytes';
  /** the size of a first value over the output cap */
  tooBig?: number;
  /** the filter's error on a document */
  error?: string;
  /** jq was halted by the filter (halt, halt_error) */
  halted: boolean;
}

/** What the wrapped program printed. */
export function readOutput(out: string): JqValues {
  const r: JqValues = { values: [], halted: true };
  for (const line of out.split('\n')) {
    const tag = line[0];
    const rest = line.slice(1);
    if (tag === 'V') r.values.push(rest);
    else if (tag === 'E') r.error = JSON.parse(rest) as string;
    else if (tag === 'C') r.stop = 'values';
    else if (tag === 'O') r.stop = 'bytes';
    else if (tag === 'B') r.tooBig = Number(rest);
    else if (tag === 'Z') r.halted = false;
  }
  return r;
}

const clamp = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n)}… (+${s.length - n} more characters)` : s);

/** jq's message without the wrapper: line numbers counted in the filter, the quoted program line dropped. */
function cleaned(err: string): string {
  return err
    .replace(/^jq: error: /, '')
    .replace(/\njq: \d+ compile errors?$/, '')
    .replace(/ at <top-level>, line (\d+):\n[\s\S]*$/, (_m, n: string) => {
      const line = Number(n) - PRELUDE.length;
      return line >= 1 ? ` (line ${line} of the filter)` : '';
    })
    .trim();
}

/** jq's refusal of the program (it never ran), as one of the two shapes a model can act on. */
export function programError(err: string, filter: string): ToolError {
  const msg = cleaned(err);
  if (/syntax error/.test(err)) {
    return new ToolError('bad_args', `jq: the filter is not valid jq syntax: ${msg}. Fix the PROGRAM, not the document: check for an unclosed bracket, a trailing pipe, or shell quoting that ate a quote character. Filter was: ${JSON.stringify(clamp(filter))}`);
  }
  if (/compile error/.test(err)) {
    return new ToolError('bad_args', `jq: the filter parses but does not compile: ${msg}. The SYNTAX is fine; something it names does not exist (a misremembered builtin, an unbound $variable, or a module, which jq_query does not load). Filter was: ${JSON.stringify(clamp(filter))}`);
  }
  return new ToolError('bad_args', `jq: the filter stopped itself with halt/halt_error${msg ? `: ${clamp(msg, 400)}` : ''}. That is an answer of the filter, not a failure of jq_query.`);
}

/** The filter's error on the document. */
export function runtimeError(err: string, filter: string, source: string): ToolError {
  return new ToolError('bad_args', `jq: the filter is valid but failed on this document: ${clamp(err, 400)}. The PROGRAM and the DOCUMENT disagree about shape: look at the document first (\`keys\`, \`type\`, \`.[0]\` on a small part). Source was ${JSON.stringify(source)}, filter was: ${JSON.stringify(clamp(filter))}`);
}
