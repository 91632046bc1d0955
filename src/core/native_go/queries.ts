// The six native-go answers, from the module's package list (module.ts), the helper's
// type-checked answers (helper.ts) and `go vet -json`. Every answer names the toolchain and says
// it is advisory; lists are cut at their caps with a note that says how much was left out; a
// module file confinement left out is named (sources.ts), and every location is shown as
// sources.ts allows.
import path from 'node:path';
import { ToolError } from '../errors.ts';
import { relativeTo } from '../paths.ts';
import { ask, type GoPackage } from './helper.ts';
import { packageAt, packageOf, type GoModule } from './module.ts';
import { GO_CAPS } from './policy.ts';
import { shownLocation, type GoPaths } from './sources.ts';
import { runGo, type Toolchain } from './toolchain.ts';

export interface GoCtx {
  tc: Toolchain;
  mod: GoModule;
  pkgs: GoPackage[];
  /** the workspace root paths are relative to */
  base: string;
  /** where the call was asked from (real path) */
  dir: string;
  sandboxed: boolean;
  paths: GoPaths;
  /** module files not read (sources.ts), workspace-relative with why */
  leftOut: string[];
  /** packages not vetted: a file of theirs was left out */
  unvetted: Set<string>;
}

const toolchainLine = (c: GoCtx) => `${c.tc.version}; tests excluded, no build tags; advisory: \`go build\` is the arbiter${c.sandboxed ? '' : ' (run without an OS sandbox: none works here)'}`;

/** A module-relative (or absolute) location as an answer shows it: workspace-relative, `$GOROOT/…`, `$GOMODCACHE/…`. */
const ws = (c: GoCtx, loc: string) => shownLocation(c.base, c.mod.root, c.paths, loc);

export interface GoResult {
  text: string;
  toolchain: string;
  [k: string]: unknown;
}

function done(c: GoCtx, fields: Record<string, unknown>, lines: string[], given?: string): GoResult {
  const notRead = c.leftOut.length ? `not read: ${c.leftOut.slice(0, 10).join(', ')}${c.leftOut.length > 10 ? ` and ${c.leftOut.length - 10} more` : ''}` : undefined;
  const note = [given, notRead].filter(Boolean).join('; ') || undefined;
  return { ...fields, ...(note ? { note } : {}), toolchain: toolchainLine(c), text: `${lines.join('\n')}${note ? `\n(${note})` : ''}\n(${toolchainLine(c)})\n` };
}

export async function goSymbols(c: GoCtx, target: string | undefined, max: number): Promise<GoResult> {
  const pkg = target ? packageOf(c.pkgs, target, c.base) : packageAt(c.pkgs, c.dir);
  if (!pkg) throw new ToolError('not_found', `native-go: there is no package at ${relativeTo(c.base, c.dir)}; pass target (a package or a .go file), or dir with a package in it.`);
  const r = await ask(c.tc, c.mod.root, c.base, c.pkgs, { Op: 'symbols', Target: pkg.ImportPath });
  let syms = (r.symbols as { name: string; kind: string; type: string; location: string; exported: string }[] | null) ?? [];
  const file = target?.endsWith('.go') ? relativeTo(c.mod.root, path.join(c.base, target)) : undefined;
  if (file) syms = syms.filter((s) => s.location.startsWith(`${file}:`));
  syms.sort((a, b) => (a.exported === b.exported ? 0 : a.exported === 'true' ? -1 : 1));
  const shown = syms.slice(0, max);
  const rows = shown.map((s) => ({ name: s.name, kind: s.kind, type: s.type, location: ws(c, s.location) }));
  const note = syms.length > max ? `+${syms.length - max} more symbols not shown; raise max (ceiling ${GO_CAPS.symbols.ceiling}) or outline one file` : undefined;
  return done(c, { target: target ?? pkg.ImportPath, kind: file ? 'file' : 'package', total: syms.length, shown: shown.length, symbols: rows }, [`${file ? `file ${target}` : `package ${pkg.ImportPath}`}: ${syms.length} symbol(s)`, ...rows.map((s) => `  ${s.kind} ${s.name} ${s.type}  ${s.location}`)], note);
}

export async function goDefinition(c: GoCtx, symbol: string): Promise<GoResult> {
  const r = await ask(c.tc, c.mod.root, c.base, c.pkgs, { Op: 'definition', Symbol: symbol });
  const loc = ws(c, String(r.location));
  return done(c, { symbol: r.symbol, kind: r.kind, location: loc, line: r.line, module: c.mod.path }, [`${r.kind} ${r.symbol} at ${loc}`, ...(r.line ? [`  ${r.line}`] : [])]);
}

export async function goDescribe(c: GoCtx, symbol: string): Promise<GoResult> {
  const r = await ask(c.tc, c.mod.root, c.base, c.pkgs, { Op: 'describe', Symbol: symbol });
  const members = ((r.members as { name: string; kind: string; type: string; doc: string; location: string }[] | null) ?? []).map((m) => ({ ...m, location: ws(c, m.location) }));
  const shownMembers = members.slice(0, 60);
  const lines = [`${r.kind} ${r.symbol} ${r.type}`, `  at ${ws(c, String(r.location))}`];
  if (r.underlying && r.underlying !== r.type) lines.push(`  underlying ${r.underlying}`);
  if (r.doc) lines.push(...String(r.doc).split('\n').map((l) => `  // ${l}`));
  for (const m of shownMembers) lines.push(`  ${m.kind} ${m.name} ${m.type}${m.doc ? `  // ${m.doc.split('\n')[0]}` : ''}`);
  const note = members.length > 60 ? `+${members.length - 60} more members not shown` : undefined;
  return done(c, { symbol: r.symbol, kind: r.kind, type: r.type, doc: r.doc, location: ws(c, String(r.location)), ...(r.underlying ? { underlying: r.underlying } : {}), members: shownMembers }, lines, note);
}

export async function goReferences(c: GoCtx, symbol: string, max: number): Promise<GoResult> {
  const r = await ask(c.tc, c.mod.root, c.base, c.pkgs, { Op: 'references', Symbol: symbol });
  const refs = ((r.references as { file: string; line: number; uses: number; text: string }[] | null) ?? []).map((x) => ({ ...x, file: ws(c, x.file) }));
  const shown = refs.slice(0, max);
  const files = new Map<string, { file: string; count: number; lines: { line: number; text: string; uses?: number }[] }>();
  for (const x of shown) {
    const f = files.get(x.file) ?? { file: x.file, count: 0, lines: [] };
    f.count += x.uses;
    f.lines.push({ line: x.line, text: x.text, ...(x.uses > 1 ? { uses: x.uses } : {}) });
    files.set(x.file, f);
  }
  const uses = refs.reduce((n, x) => n + x.uses, 0);
  const notes = [`uses in this module, by type identity; the declaration is at ${ws(c, String(r.definition))}`];
  if (r.interface_method) notes.push('these are calls THROUGH the interface; go_implementations lists the methods that implement it');
  if (refs.length > max) notes.push(`+${refs.length - max} more locations not shown; raise max (ceiling ${GO_CAPS.references.ceiling}) or narrow the symbol`);
  const lines = [`${r.symbol}: ${uses} use(s) on ${refs.length} line(s)`];
  for (const f of files.values()) lines.push(`${f.file} (${f.count})`, ...f.lines.map((l) => `  ${l.line}: ${l.text}`));
  return done(c, { symbol: r.symbol, definition: ws(c, String(r.definition)), total: refs.length, uses, shown: shown.length, files: [...files.values()] }, lines, notes.join('; '));
}

export async function goImplementations(c: GoCtx, symbol: string): Promise<GoResult> {
  const r = await ask(c.tc, c.mod.root, c.base, c.pkgs, { Op: 'implementations', Symbol: symbol });
  const list = (((r.implementers ?? r.interfaces) as { name: string; kind: string; receiver: string; location: string }[] | null) ?? []).map((x) => ({ ...x, location: ws(c, x.location) }));
  const iface = r.implementers !== undefined;
  const lines = [iface ? `${r.symbol} is implemented by ${list.length} type(s) of this module:` : `${r.symbol} implements ${list.length} interface(s) of this module:`];
  lines.push(...list.map((x) => `  ${x.name} (${x.kind}${x.receiver === 'pointer' ? ', by pointer' : ''})  ${x.location}`));
  return done(c, { symbol: r.symbol, kind: r.kind, [iface ? 'implementers' : 'interfaces']: list }, lines, 'within this module only');
}

export const VET_PASSES = ['printf', 'unusedresult', 'unreachable', 'nilfunc', 'shadow'] as const;
const DEFAULT_PASSES = ['printf', 'unusedresult', 'unreachable', 'nilfunc'];

/** The vet passes asked for, checked. */
export function passesOf(v: unknown): string[] {
  const list = v === undefined ? DEFAULT_PASSES : (Array.isArray(v) ? v : [v]).map(String);
  if (list.includes('all')) return [...VET_PASSES];
  for (const p of list) if (!(VET_PASSES as readonly string[]).includes(p)) throw new ToolError('bad_args', `native-go: unknown vet pass ${JSON.stringify(p)}; available passes are ${VET_PASSES.join(', ')} (or "all").`);
  return list;
}

interface Diag {
  location: string;
  severity: 'type-error' | 'vet';
  category: string;
  message: string;
}

/** go vet's JSON (on stderr: `# pkg` lines, then `{pkg: {analyzer: [{posn, message}]}}` objects). */
function vetFindings(stderr: string, c: GoCtx): Diag[] {
  const out: Diag[] = [];
  for (const m of stderr.matchAll(/^\{\}$|^\{\n[\s\S]*?^\}$/gm)) {
    let o: Record<string, Record<string, { posn: string; message: string }[]>>;
    try {
      o = JSON.parse(m[0]);
    } catch {
      continue;
    }
    for (const analyzers of Object.values(o)) {
      for (const [name, items] of Object.entries(analyzers)) {
        if (!Array.isArray(items)) continue;
        for (const it of items) out.push({ location: ws(c, it.posn), severity: 'vet', category: name, message: it.message });
      }
    }
  }
  return out;
}

export async function goDiagnostics(c: GoCtx, pkgs: GoPackage[], scopeLabel: string, passes: string[], max: number): Promise<GoResult> {
  const note: string[] = [];
  const tc = await ask(c.tc, c.mod.root, c.base, c.pkgs, { Op: 'typecheck' });
  const inScope = new Set(pkgs.map((p) => p.ImportPath));
  const typeErrors: Diag[] = ((tc.diagnostics as { location: string; message: string; package: string }[] | null) ?? [])
    .filter((d) => inScope.has(d.package))
    .map((d) => ({ location: ws(c, d.location), severity: 'type-error', category: 'types', message: d.message }));
  const broken = new Set(((tc.diagnostics as { package: string }[] | null) ?? []).map((d) => d.package));
  const vetPkgs = pkgs.filter((p) => !broken.has(p.ImportPath) && !c.unvetted.has(p.ImportPath));
  const skipped = pkgs.filter((p) => !broken.has(p.ImportPath) && c.unvetted.has(p.ImportPath)).length;
  if (pkgs.length - skipped > vetPkgs.length) note.push(`${pkgs.length - skipped - vetPkgs.length} package(s) with type errors were not vetted`);
  if (skipped) note.push(`${skipped} package(s) with a file not read were not vetted (go vet would read it)`);
  const vetPasses = passes.filter((p) => p !== 'shadow');
  if (passes.includes('shadow')) note.push('shadow is not part of go vet (it needs the separate shadow analyzer); it was not run');
  let vet: Diag[] = [];
  if (vetPkgs.length && vetPasses.length) {
    const r = await runGo(c.tc.go, ['vet', '-json', ...vetPasses.map((p) => `-${p}`), ...vetPkgs.map((p) => p.ImportPath)], c.mod.root, c.base);
    vet = vetFindings(r.stderr, c);
    if (r.code !== 0 && !vet.length && /^\S.*(?:cannot|error)/m.test(r.stderr)) note.push(`go vet failed: ${r.stderr.trim().split('\n').slice(-1)[0].slice(0, 200)}`);
  }
  const all = [...typeErrors, ...vet];
  const shown = all.slice(0, max);
  if (all.length > max) note.push(`+${all.length - max} more diagnostics not shown; raise max (ceiling ${GO_CAPS.diagnostics.ceiling}) or narrow the scope`);
  if (!all.length) note.push(`no type errors and no vet findings in ${pkgs.length} package(s)`);
  const listed = pkgs.map((p) => p.ImportPath);
  return done(
    c,
    { scope: scopeLabel, passes, packages: listed.slice(0, 50), type_errors: typeErrors.length, vet_findings: vet.length, total: all.length, shown: shown.length, diagnostics: shown },
    [`${scopeLabel}: ${typeErrors.length} type error(s), ${vet.length} vet finding(s) in ${pkgs.length} package(s)`, ...shown.map((d) => `  ${d.location}: ${d.severity}${d.severity === 'vet' ? ` (${d.category})` : ''}: ${d.message}`)],
    note.join('; ') || undefined,
  );
}
