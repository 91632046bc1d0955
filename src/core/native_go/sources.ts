// What native-go lets go and its helper read, and where a location it prints may point: the
// module's files confined as the file tools confine a path (paths.ts: each link followed where
// it is met, the result inside the workspace, never through a dangling link) and classified as
// they classify one (protect/confined_class.ts: the quarantine, read-approve, a hard link to
// either). From the module's packages and their dependencies (`go list -deps`):
// - a .go file of the module's own that fails (a link to /etc/x.go, a hard link to a key) is left
//   out of what the helper parses, named in the answer, and its package is not vetted (go vet
//   would read it); the helper reads the others by their real path, and only if each is still
//   the file checked here (device and inode), so a link swapped in afterwards is not followed;
// - a dependency is read from the standard library, the module cache, or the workspace (each of
//   its files confined as above, since go's importer reads them all); one that go finds anywhere
//   else (a replace directive to a directory outside, a package directory that is a link out)
//   refuses the call;
// - a location outside the workspace is shown as `$GOROOT/…` or `$GOMODCACHE/…`, never as a path
//   out of the workspace, and source lines are printed only from files the helper read confined.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError, isToolError } from '../errors.ts';
import { confine, isWithin, relativeTo } from '../paths.ts';
import { classifyConfined } from '../protect/confined_class.ts';
import { defaultPathMatcher } from '../protect/matcher.ts';
import { spawnSyncSettled } from '../platform/runtime.ts';
import type { GoPackage, SourceFile } from './helper.ts';
import { goEnv, type Toolchain } from './toolchain.ts';

/** Where the toolchain reads what is not the workspace's: real paths, '' when go does not say. */
export interface GoPaths {
  goroot: string;
  modcache: string;
}

const pathsOf = new Map<string, GoPaths>();

const realOr = (p: string | undefined): string => {
  if (!p) return '';
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
};

/** GOROOT and GOMODCACHE as the toolchain reports them (asked once per toolchain). */
export function goPaths(tc: Toolchain): GoPaths {
  const hit = pathsOf.get(tc.go);
  if (hit) return hit;
  const r = spawnSyncSettled(tc.go, ['env', '-json', 'GOROOT', 'GOMODCACHE'], { encoding: 'utf8', timeout: 15000, env: goEnv() });
  let env: { GOROOT?: string; GOMODCACHE?: string } = {};
  try {
    env = JSON.parse(r.stdout ?? '') as typeof env;
  } catch {
    /* neither is known: nothing outside the workspace is read */
  }
  const out = { goroot: realOr(env.GOROOT), modcache: realOr(env.GOMODCACHE) };
  pathsOf.set(tc.go, out);
  return out;
}

export interface ModuleSources {
  /** the module's own packages, each with the files the helper may read (GoFiles narrowed to them) */
  pkgs: GoPackage[];
  /** files of the module's packages left out, workspace-relative, each with why */
  leftOut: string[];
  /** import paths of packages with a file left out: go vet would read it */
  unvetted: Set<string>;
}

/** Why a workspace file is not read, or undefined when it may be. */
function refusal(base: string, abs: string): { why: string } | { file: SourceFile } {
  try {
    const c = confine(base, relativeTo(base, abs));
    const { cls, alias } = classifyConfined(c, base, defaultPathMatcher);
    if (cls === 'quarantined' || cls === 'read_approve') return { why: `${alias !== undefined ? `a hard link to ${alias}, ` : ''}${cls === 'quarantined' ? 'in the credential quarantine' : 'on the read-approve list'}` };
    if (!c.exists || c.dev === undefined || c.ino === undefined) return { why: 'missing' };
    return { file: { Name: path.basename(abs), Real: c.real, Dev: c.dev, Ino: c.ino } };
  } catch (err) {
    if (isToolError(err) && err.code === 'escape') return { why: 'a link that leads outside the workspace' };
    throw err;
  }
}

/**
 * Refuses a module whose go.mod replaces a dependency with a directory outside the workspace,
 * before go reads anything of it (what go says about that directory could quote it).
 */
export function confineReplacements(base: string, replacedBy: readonly string[]): void {
  for (const dir of replacedBy) {
    const out = (why: string) =>
      new ToolError('escape', `native-go: go.mod replaces a dependency with ${dir}, ${why}; native-go reads only the workspace, the standard library and the module cache. Start the agent in a directory that holds it, or remove the replace directive.`);
    if (!isWithin(base, dir)) throw out('outside the workspace');
    try {
      confine(base, relativeTo(base, dir));
    } catch (err) {
      if (isToolError(err) && err.code === 'escape') throw out('a link that leads outside the workspace');
      throw err;
    }
  }
}

/**
 * The module's packages as the helper may read them, from `go list -deps` (`listed`); refuses
 * the call when a dependency would be read from outside the workspace, GOROOT and the module cache.
 */
export function confineSources(base: string, listed: readonly GoPackage[], paths: GoPaths): ModuleSources {
  const out: ModuleSources = { pkgs: [], leftOut: [], unvetted: new Set() };
  const outside = (p: GoPackage, detail: string): never => {
    throw new ToolError(
      'escape',
      `native-go: the package ${p.ImportPath} would be read from outside the workspace (${detail}); native-go reads only the workspace, the standard library and the module cache. Start the agent in a directory that holds it, or remove the replace directive or the link.`,
    );
  };
  for (const p of listed) {
    if (p.Standard || !p.Dir) continue;
    if (!isWithin(base, p.Dir)) {
      const real = realOr(p.Dir);
      const cached = (paths.modcache && isWithin(paths.modcache, real)) || (paths.goroot && isWithin(paths.goroot, real));
      if (!cached || !p.DepOnly) outside(p, `${p.Dir}: a replace directive to a directory outside, or a link`);
      continue;
    }
    const dir = refusal(base, p.Dir);
    if ('why' in dir && dir.why !== 'missing') {
      if (p.DepOnly) outside(p, `${relativeTo(base, p.Dir)}: ${dir.why}`);
      out.leftOut.push(`${relativeTo(base, p.Dir)}/ (${dir.why})`);
      continue;
    }
    const files: SourceFile[] = [];
    for (const name of p.GoFiles ?? []) {
      const abs = path.join(p.Dir, name);
      const r = refusal(base, abs);
      if ('file' in r) {
        files.push(r.file);
        continue;
      }
      if (p.DepOnly) outside(p, `${relativeTo(base, abs)}: ${r.why}`);
      out.leftOut.push(`${relativeTo(base, abs)} (${r.why})`);
      out.unvetted.add(p.ImportPath);
    }
    if (!p.DepOnly) out.pkgs.push({ ...p, GoFiles: files.map((f) => f.Name), Files: files });
  }
  return out;
}

/** A location (`file:line[:col]`, absolute or relative to `moduleRoot`) as an answer may show it. */
export function shownLocation(base: string, moduleRoot: string, paths: GoPaths, loc: string): string {
  const abs = path.isAbsolute(loc) ? loc : path.join(moduleRoot, loc);
  if (isWithin(base, abs)) return relativeTo(base, abs);
  if (paths.goroot && isWithin(paths.goroot, abs)) return `$GOROOT/${relativeTo(paths.goroot, abs)}`;
  if (paths.modcache && isWithin(paths.modcache, abs)) return `$GOMODCACHE/${relativeTo(paths.modcache, abs)}`;
  return '(outside the workspace)';
}
