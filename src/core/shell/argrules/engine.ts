// Reads one program's argv with its table (types.ts): options as the program's own parser would
// read them (clusters, glued values, `=value`, abbreviations, `--`), operands by position, and
// subcommands with their own tables. Where the parse could go two ways it takes the one that
// finds more: an unknown letter in a cluster does not hide the letters after it, and an
// abbreviation that could name a refused option counts as that option. Pure: no file system.
import { SEVERITY } from './build.ts';
import type { Finding, Kind, Level, Opt, Operand, Parsed, ParsedOpt, PathRef, RuleContext, Rules } from './types.ts';

export interface Analysis {
  /** the id of the table that read the argv; undefined when no table knows the program */
  table?: string;
  findings: Finding[];
  paths: PathRef[];
  /** a wrapper: the argv index where the program it runs starts */
  inner?: number;
  /** the subcommand, when the program has them */
  sub?: { name: string; index: number };
  /** directories the program moves to before it reads its paths (`git -C`, `make -C`), in order */
  chdir: string[];
  /** every option read, by the name it was read as (`--patch` for `--pat`) */
  opts: string[];
}

interface Index {
  short: Map<string, Opt>;
  long: Map<string, Opt>;
  longNames: string[];
  /** long-map key → the name as the table spells it (`--exec` → `-exec` for single-dash names) */
  spelled: Map<string, string>;
}

const indexes = new WeakMap<Rules, Index>();

function indexOf(rules: Rules): Index {
  let ix = indexes.get(rules);
  if (!ix) {
    ix = { short: new Map(), long: new Map(), longNames: [], spelled: new Map() };
    for (const o of rules.options) {
      for (const n of o.names) {
        if (rules.syntax !== 'single' && /^-[^-]$/.test(n)) ix.short.set(n, o);
        else {
          // single-dash long names (`-exec`) and `--long` names share one map, keyed with two dashes
          const key = n.startsWith('--') ? n : `-${n}`;
          ix.long.set(key, o);
          ix.longNames.push(key);
          ix.spelled.set(key, n);
        }
      }
    }
    indexes.set(rules, ix);
  }
  return ix;
}

const costOf = (o: Opt): number => (o.level ? SEVERITY[o.level] : o.safe ? 0 : 1);

/**
 * A long option by name (`--outp` with two dashes): the exact entry, else the entries the name
 * abbreviates. Several candidates: the most costly one, since the program may read it so.
 * Returns the entry and the full name it was read as.
 */
function longOption(ix: Index, name: string): { opt: Opt; name: string } | undefined {
  const exact = ix.long.get(name);
  if (exact) return { opt: exact, name };
  if (name.length < 3) return undefined;
  let best: { opt: Opt; name: string } | undefined;
  for (const n of ix.longNames) {
    if (!n.startsWith(name)) continue;
    const o = ix.long.get(n)!;
    if (!best || costOf(o) > costOf(best.opt)) best = { opt: o, name: n };
  }
  return best;
}

const NUMERIC: Opt = { names: ['-N'], safe: true };

/** Reads options and operands from `argv[start]` on. `stopAtOperand`: the first operand ends the options. */
export function parseOptions(argv: readonly string[], start: number, rules: Rules, stopAtOperand = rules.syntax === 'gnu-stop'): Parsed {
  const ix = indexOf(rules);
  const opts: ParsedOpt[] = [];
  const operands: Operand[] = [];
  let dashes = false;
  for (let i = start; i < argv.length; i++) {
    const w = argv[i];
    if (dashes || rules.syntax === 'none' || w === '-' || !w.startsWith('-')) {
      operands.push({ value: w, index: i, afterDashes: dashes });
      if (stopAtOperand && !dashes) {
        for (let k = i + 1; k < argv.length; k++) operands.push({ value: argv[k], index: k, afterDashes: false });
        break;
      }
      continue;
    }
    if (w === '--') {
      dashes = true;
      continue;
    }
    if (rules.numericOption && /^-\d+$/.test(w)) {
      opts.push({ opt: NUMERIC, written: w, name: w, index: i });
      continue;
    }
    if (w.startsWith('--') || rules.syntax === 'single') {
      const eq = w.indexOf('=');
      const written = eq >= 0 ? w.slice(0, eq) : w;
      const key = written.startsWith('--') ? written : `-${written}`;
      const hit = longOption(ix, key);
      const opt = hit?.opt;
      const name = hit ? ix.spelled.get(hit.name)! : written;
      let value: string | undefined = eq >= 0 ? w.slice(eq + 1) : undefined;
      if (opt?.arg === 'required' && value === undefined && i + 1 < argv.length) value = argv[++i];
      opts.push({ opt, written, name, value, index: i - (value !== undefined && eq < 0 ? 1 : 0) });
      if (opt?.ends) {
        for (let k = i + 1; k < argv.length; k++) operands.push({ value: argv[k], index: k, afterDashes: false });
        break;
      }
      continue;
    }
    // a cluster of short options: `-la`, `-n5`, `-f.ssh/id_rsa`, `-uo out`
    let ended = false;
    for (let j = 1; j < w.length; j++) {
      const written = `-${w[j]}`;
      const opt = ix.short.get(written);
      if (!opt || !opt.arg) {
        // an unknown letter might take the rest as its value, or not: read the rest as letters too
        opts.push({ opt, written, name: written, index: i });
        if (opt?.ends) {
          ended = true;
          break;
        }
        continue;
      }
      const glued = w.slice(j + 1);
      const value: string | undefined = glued !== '' ? glued : undefined;
      if (value === undefined && opt.arg === 'required' && i + 1 < argv.length) {
        opts.push({ opt, written, name: written, value: argv[i + 1], index: i });
        i++;
      } else opts.push({ opt, written, name: written, value, index: i });
      ended = opt.ends === true;
      break;
    }
    if (ended) {
      for (let k = i + 1; k < argv.length; k++) operands.push({ value: argv[k], index: k, afterDashes: false });
      break;
    }
  }
  return { opts, operands };
}

const PATH_KINDS = new Set<Kind>(['read', 'dir', 'write']);

/** Reads `argv` (argv[0] is the program) with `rules`. */
export function analyzeWith(rules: Rules, argv: readonly string[], program: string): Analysis {
  const out: Analysis = { table: rules.id, findings: [], paths: [], chdir: [], opts: [] };
  read(rules, argv, 1, program, out, undefined);
  return out;
}

function read(rules: Rules, argv: readonly string[], start: number, program: string, out: Analysis, sub: string | undefined, normalized = false): void {
  const rewrite = !normalized && rules.normalize ? rules.normalize(argv, start) : undefined;
  if (rewrite) {
    // read the rewritten words, then report every index in the words as written
    const f0 = out.findings.length;
    const p0 = out.paths.length;
    read(rules, rewrite.argv, start, program, out, sub, true);
    for (let k = f0; k < out.findings.length; k++) out.findings[k].index = rewrite.map[out.findings[k].index] ?? out.findings[k].index;
    for (let k = p0; k < out.paths.length; k++) if (out.paths[k].index >= 0) out.paths[k].index = rewrite.map[out.paths[k].index] ?? out.paths[k].index;
    return;
  }
  if (rules.always) out.findings.push({ rule: rules.id, program, level: rules.always.level, why: rules.always.why, index: start - 1, ...(sub ? { sub } : {}) });
  const ctx = new Ctx(rules, argv, start, program, out);
  if (rules.read) {
    rules.read(ctx);
    return;
  }
  // With subcommands, the program's own options stop at the first operand: the subcommand.
  const parsed = parseOptions(argv, start, rules, rules.subcommands || rules.wraps ? true : undefined);
  ctx.parsed = parsed;
  const find = ctx;
  let recursive = rules.recursive === true;
  let follow = false;
  let noFollow = false;
  for (const p of parsed.opts) {
    const o = p.opt;
    out.opts.push(p.name);
    if (!o) {
      if (rules.flags === 'allowlist') find.find('ask', p.written, `\`${p.written}\` is not a flag known to be harmless for ${rules.id}`, p.index);
      continue;
    }
    if (o.level) find.find(o.level, p.name, o.why ?? `\`${p.written}\` is not known to be harmless`, p.index);
    else if (!o.safe) find.find('ask', p.name, o.why ?? `\`${p.written}\` is not known to be harmless`, p.index);
    if (o.recursive) recursive = true;
    if (o.follow) follow = true;
    if (o.noFollow) noFollow = true;
    if (o.kind && PATH_KINDS.has(o.kind) && p.value !== undefined && p.value !== '') {
      out.paths.push({ word: p.value, index: p.index, kind: o.kind as PathRef['kind'] });
      if (o.kind === 'dir' && (p.name === '-C' || p.name === '--directory' || p.name === '--chdir')) out.chdir.push(p.value);
    }
  }
  if (noFollow) follow = false;
  let operands = parsed.operands;
  if (rules.subcommands && operands.length) {
    const s = operands[0];
    out.sub = { name: s.value, index: s.index };
    const subRules = Object.hasOwn(rules.subcommands, s.value) ? rules.subcommands[s.value] : undefined;
    if (subRules) {
      runCheck(rules, ctx);
      read(subRules, argv, s.index + 1, program, out, s.value);
      return;
    }
    const other = rules.otherSubcommand ?? { level: 'ask' as Level, why: `\`${s.value}\` is not a ${rules.id} subcommand known to be harmless` };
    find.find(other.level, s.value, other.why.replaceAll('{sub}', s.value), s.index, s.value);
    operands = operands.slice(1);
    runCheck(rules, ctx);
    for (const w of operands) out.paths.push(...candidates(w.value, w.index));
    return;
  }
  if (rules.wraps) {
    const prog = rules.wraps === true ? operands[0] : rules.wraps(parsed);
    if (prog) out.inner = prog.index;
    runCheck(rules, ctx);
    return;
  }
  const shape = typeof rules.operands === 'function' ? rules.operands(parsed) : rules.operands;
  const first = shape?.first ?? [];
  const rest = shape?.rest ?? 'read';
  let named = 0;
  operands.forEach((w, k) => {
    const kind = k < first.length ? first[k] : rest;
    if (!PATH_KINDS.has(kind) || w.value === '' || (w.value === '-' && !w.afterDashes)) return;
    named++;
    out.paths.push({ word: w.value, index: w.index, kind: kind as PathRef['kind'], ...(recursive ? { recursive, follow } : {}) });
    if (kind === 'write') find.find('ask', undefined, `writes the file \`${w.value}\``, w.index);
  });
  if (named === 0 && (rules.defaultDir || recursive)) {
    out.paths.push({ word: '.', index: -1, kind: 'read', ...(recursive ? { recursive, follow } : {}) });
  }
  runCheck(rules, ctx);
}

function runCheck(rules: Rules, ctx: Ctx): void {
  if (rules.check) rules.check(ctx);
}

/** What a hook sees and says (one per table read; methods, not closures, on the hot path). */
class Ctx implements RuleContext {
  parsed: Parsed = { opts: [], operands: [] };
  constructor(
    readonly rules: Rules,
    readonly argv: readonly string[],
    readonly start: number,
    readonly program: string,
    readonly out: Analysis,
  ) {}
  has(...names: string[]): ParsedOpt | undefined {
    return this.parsed.opts.find((p) => p.opt && names.includes(p.name));
  }
  // only what is about the subcommand itself (`npm install`) carries it: naming the subcommand
  // in _allowed_commands or a prefix entry accepts that, never the options given with it
  find(level: Level, flag: string | undefined, why: string, index: number, sub?: string): void {
    this.out.findings.push({ rule: flag ? `${this.rules.id} ${flag}` : this.rules.id, program: this.program, ...(flag ? { flag } : {}), level, why, index, ...(sub ? { sub } : {}) });
  }
  path(ref: PathRef): void {
    this.out.paths.push(ref);
  }
  delegate(r: Rules, from: number): void {
    read(r, this.argv, from, this.program, this.out, undefined);
  }
}

/**
 * The words of a program no table knows that could name a path: every operand, the value after
 * `=` of any word, and what follows the letter of a short option (`-f.ssh/id_rsa`), since any
 * of them may be a file the program opens.
 */
function addCandidate(out: PathRef[], w: string, index: number): void {
  if (w !== '' && w !== '-' && !out.some((r) => r.word === w)) out.push({ word: w, index, kind: 'read' });
}

export function candidates(word: string, index: number): PathRef[] {
  const out: PathRef[] = [];
  if (word.startsWith('-')) {
    const eq = word.indexOf('=');
    if (eq > 0) addCandidate(out, word.slice(eq + 1), index);
    if (!word.startsWith('--') && word.length > 2) addCandidate(out, word.slice(2), index);
    return out;
  }
  addCandidate(out, word, index);
  const eq = word.indexOf('=');
  if (eq > 0) addCandidate(out, word.slice(eq + 1), index);
  return out;
}

/** For a program no table knows: every word that could be a path, no findings. */
export function analyzeUnknown(argv: readonly string[]): Analysis {
  const out: Analysis = { findings: [], paths: [], chdir: [], opts: [] };
  let dashes = false;
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i];
    if (!dashes && w === '--') {
      dashes = true;
      continue;
    }
    if (dashes) {
      if (w !== '') out.paths.push({ word: w, index: i, kind: 'read' });
    } else out.paths.push(...candidates(w, i));
  }
  return out;
}
