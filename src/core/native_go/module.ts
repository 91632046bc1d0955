// The Go module a call is about: found from `dir` (inside the workspace) walking up to the
// workspace root, never above it, its go.mod read only where it is confined to the workspace; its
// packages and their dependencies as `go list -e -deps -json ./...` lists them (tests excluded,
// no build tags), read fresh for each call so an edit counts at once (what of them may be read:
// sources.ts).
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import { confine, isWithin, relativeTo } from '../paths.ts';
import type { GoPackage } from './helper.ts';
import { runGo, type Toolchain } from './toolchain.ts';

export interface GoModule {
  /** the directory of go.mod (real path) */
  root: string;
  /** module path */
  path: string;
  /** the directories go.mod's replace directives name (`=> ../x`), absolute: where go would read them */
  replacedBy: string[];
}

/** The local directories a go.mod's replace directives name (single and block form), absolute from `root`. */
export function localReplacements(gomod: string, root: string): string[] {
  const out: string[] = [];
  let block = false;
  for (const raw of gomod.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (block && line === ')') {
      block = false;
      continue;
    }
    if (/^replace\s*\($/.test(line)) {
      block = true;
      continue;
    }
    const spec = block ? line : /^replace\s+(.*)$/.exec(line)?.[1];
    const target = spec && /=>\s*("[^"]*"|\S+)/.exec(spec)?.[1].replace(/^"|"$/g, '');
    // a local path starts with ./ or ../ or is absolute (go's rule); anything else is a module
    if (target && /^(?:\.\.?\/|\/)/.test(target)) out.push(path.resolve(root, target));
  }
  return out;
}

/** The module holding `dir` (workspace-relative), rooted inside `base`. */
export function findModule(base: string, dir: string | undefined): GoModule {
  const c = confine(base, dir && dir !== '' ? dir : '.');
  let d = c.exists && fs.statSync(c.real).isFile() ? path.dirname(c.real) : c.real;
  if (!c.exists) throw new ToolError('not_found', `native-go: dir ${JSON.stringify(dir)} does not exist.`);
  for (;;) {
    const mod = path.join(d, 'go.mod');
    if (fs.existsSync(mod)) {
      // a go.mod that is a link out of the workspace is not read (its module line is printed)
      const text = fs.readFileSync(confine(base, relativeTo(base, mod)).real, 'utf8');
      const m = /^\s*module\s+("?)([^\s"]+)\1/m.exec(text);
      return { root: d, path: m ? m[2] : relativeTo(base, d), replacedBy: localReplacements(text, d) };
    }
    if (d === base || !isWithin(base, d)) break;
    d = path.dirname(d);
  }
  for (let up = path.dirname(base); up !== path.dirname(up); up = path.dirname(up)) {
    if (fs.existsSync(path.join(up, 'go.mod'))) {
      throw new ToolError('escape', `native-go: ${path.join(up, 'go.mod')} is the module root for ${base} but lies outside the workspace; native-go only reads modules rooted inside it. Start the agent at the module root.`);
    }
  }
  throw new ToolError('not_found', `native-go: no Go module: no go.mod at or above ${JSON.stringify(relativeTo(base, c.real))} within the workspace; native-go reads Go modules, so a directory outside any module has nothing to read.`);
}

// what sources.ts needs of each package; asking for these fields only also spares go the
// staleness check of every dependency (go 1.19 and later; an older go is asked for all of them)
const FIELDS = 'ImportPath,Name,Dir,GoFiles,Standard,DepOnly,Module';

/** The module's packages and their dependencies (DepOnly), in `go list -deps` order. */
export async function listPackages(tc: Toolchain, mod: GoModule, workspace: string): Promise<GoPackage[]> {
  const minor = Number(/^go1\.(\d+)/.exec(tc.version)?.[1] ?? 0);
  const r = await runGo(tc.go, ['list', '-e', '-deps', minor >= 19 ? `-json=${FIELDS}` : '-json', './...'], mod.root, workspace);
  const pkgs: GoPackage[] = [];
  const text = r.stdout;
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') {
      if (depth++ === 0) start = i;
    } else if (ch === '}' && --depth === 0) pkgs.push(JSON.parse(text.slice(start, i + 1)) as GoPackage);
  }
  if (!pkgs.some((p) => !p.DepOnly)) {
    throw new ToolError('io_error', `native-go: module load failed: could not list ${mod.root}: ${r.stderr.trim().slice(0, 500) || `go list exited ${r.code}`}; run \`go build ./...\` there to see what the toolchain is complaining about.`);
  }
  return pkgs;
}

/** The package a target names: an import path, its suffix, a package name, or a .go file (workspace-relative). */
export function packageOf(pkgs: GoPackage[], target: string, base: string): GoPackage {
  if (target.endsWith('.go')) {
    const real = confine(base, target).real;
    const p = pkgs.find((k) => k.Dir === path.dirname(real) && (k.GoFiles ?? []).includes(path.basename(real)));
    if (!p) throw new ToolError('not_found', `native-go: ${target} belongs to no package of this module (tests and files behind build tags are not read).`);
    return p;
  }
  const hits = pkgs.filter((k) => k.ImportPath === target || k.ImportPath.endsWith(`/${target}`) || k.Name === target);
  if (hits.length === 1) return hits[0];
  if (hits.length > 1) throw new ToolError('bad_args', `native-go: ${JSON.stringify(target)} matches ${hits.length} packages: ${hits.map((h) => h.ImportPath).join(', ')}; pass one import path.`);
  throw new ToolError('not_found', `native-go: no package ${JSON.stringify(target)} in this module; its packages: ${pkgs.map((k) => k.ImportPath).slice(0, 20).join(', ')}.`);
}

/** The package whose directory is `dir` (real path), if any. */
export function packageAt(pkgs: GoPackage[], dir: string): GoPackage | undefined {
  return pkgs.find((k) => k.Dir === dir);
}
