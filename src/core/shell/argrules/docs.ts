// The argument rules as docs/local-shell.md lists them, made from the tables themselves (a test
// holds the page to this text), so every rule is documented with its reason and none drifts.
import { tablesByName } from './index.ts';
import type { Level, Opt, Rules } from './types.ts';

const COST: Record<Level, string> = { refuse: 'refused', confirm: 'needs a human', ask: 'asks' };

const code = (s: string) => `\`${s.replaceAll('|', '\\|')}\``;
const cell = (s: string) => s.replaceAll('|', '\\|');

function rows(r: Rules, shared: ReadonlySet<Opt>): string[] {
  const out: string[] = [];
  if (r.always) out.push(`| ${code(r.id)} | ${COST[r.always.level]} | ${cell(r.always.why)} |`);
  for (const o of r.options) {
    if ((o.safe && !o.level) || shared.has(o)) continue;
    out.push(`| ${code(`${r.id} ${o.names.join(', ')}`)} | ${COST[o.level ?? 'ask']} | ${cell(o.why ?? 'not known to be harmless')} |`);
  }
  for (const [rule, level, why] of r.doc ?? []) out.push(`| ${code(rule)} | ${COST[level]} | ${cell(why)} |`);
  if (r.subcommands && r.otherSubcommand) out.push(`| ${code(`${r.id} SUBCOMMAND`)} (another) | ${COST[r.otherSubcommand.level]} | ${cell(r.otherSubcommand.why.replaceAll('{sub}', 'SUBCOMMAND'))} |`);
  return out;
}

function harmless(r: Rules): string {
  if (r.syntax === 'none' && !r.read) return 'Takes no options that matter: every word is printed, not opened.';
  if (r.flags === 'denylist') return 'Other options are not checked (no shipped envelope runs it unasked).';
  const safe = r.options.filter((o) => o.safe && !o.level).flatMap((o) => o.names);
  if (r.numericOption) safe.push('-NUM');
  return safe.length ? `Known harmless (any other option asks): ${safe.map(code).join(' ')}` : 'Any option asks.';
}

interface Entry {
  rules: Rules;
  names: string[];
  /** options its program documents once for every subcommand */
  shared: ReadonlySet<Opt>;
}

/** Every table (subcommands included) once, with every name it answers to, in registry order. */
function walk(): Entry[] {
  const byRules = new Map<Rules, Entry>();
  const visit = (r: Rules, name: string, shared: ReadonlySet<Opt>) => {
    const seen = byRules.get(r);
    if (seen) {
      seen.names.push(name);
      return;
    }
    byRules.set(r, { rules: r, names: [name], shared });
    const mine = new Set(r.docShared ?? []);
    for (const [n, s] of Object.entries(r.subcommands ?? {})) visit(s, `${r.id} ${n}`, mine);
  };
  for (const t of tablesByName()) for (const n of t.names) visit(t.rules, n, new Set());
  return [...byRules.values()];
}

/** The markdown of every argument rule: per table, what costs and why, then what is known harmless. */
export function rulesMarkdown(): string {
  const out: string[] = [];
  const said = new Map<string, string>();
  const entries = walk();
  // a subcommand that is refused whatever its arguments is one row of its program's table
  const whole = (e: Entry) => e.rules.id.includes(' ') && e.rules.always !== undefined && e.rules.flags === 'denylist' && rows(e.rules, e.shared).length === 1 && !e.rules.doc;
  const wholeRows = new Map<string, string[]>();
  for (const e of entries) {
    if (!whole(e)) continue;
    const parent = e.rules.id.split(' ')[0];
    if (!wholeRows.has(parent)) wholeRows.set(parent, []);
    wholeRows.get(parent)!.push(`| ${e.names.map(code).join(', ')} | ${COST[e.rules.always!.level]} | ${cell(e.rules.always!.why)} |`);
  }
  for (const e of entries) {
    const { rules, names, shared } = e;
    if (whole(e)) continue;
    const r = [...rows(rules, shared), ...(wholeRows.get(rules.id) ?? [])];
    const isSub = rules.id.includes(' ');
    // a subcommand with nothing of its own to say is covered by its program's table
    if (isSub && r.length === 0 && rules.flags === 'denylist') continue;
    out.push(`#### ${names.map(code).join(', ')}`, '');
    if (rules.docShared?.length) {
      out.push(`With its subcommands:`, '', '| rule | cost | why |', '|---|---|---|');
      for (const o of rules.docShared) if (o.level || !o.safe) out.push(`| ${code(`${rules.id} … ${o.names.join(', ')}`)} | ${COST[o.level ?? 'ask']} | ${cell(o.why ?? 'not known to be harmless')} |`);
      out.push('', 'Of its own:', '');
    }
    if (r.length) out.push('| rule | cost | why |', '|---|---|---|', ...r, '');
    const h = harmless(rules);
    const first = said.get(h);
    out.push(first && h.length > 80 ? `Known harmless: as for ${first}.` : h, '');
    if (!first) said.set(h, code(names[0]));
  }
  return out.join('\n');
}
