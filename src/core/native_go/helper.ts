// gointel (gointel/main.go), the part of native-go written in Go: built once per toolchain and
// source into cxl's cache (only the standard library; the build is of cxl's own file, never of
// the workspace) and run per question inside the sandbox, with the module's package list (each
// .go file as confinement let it through: sources.ts) and the question as JSON on stdin.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import { nodeCrypto, spawnSyncSettled } from '../platform/runtime.ts';
import { cacheDir, goEnv, runGo, type Toolchain } from './toolchain.ts';

/** The helper's source: beside this file, or, from a bundle in dist/, in the package's src/. */
export function helperSource(): string {
  const here = new URL(import.meta.url);
  const url = /\/src\/core\/native_go\/[^/]+$/.test(here.pathname) ? new URL('./gointel/main.go', here) : new URL('../src/core/native_go/gointel/main.go', here);
  return decodeURIComponent(url.pathname);
}

let built: Promise<string> | undefined;

/** The built helper's path, building it on first use. */
export function helper(tc: Toolchain): Promise<string> {
  built ??= (async () => {
    const src = fs.readFileSync(helperSource());
    const tag = nodeCrypto().createHash('sha256').update(src).update(tc.version).digest('hex').slice(0, 16);
    const out = path.join(cacheDir(), `gointel-${tag}`);
    if (fs.existsSync(out)) return out;
    const work = fs.mkdtempSync(path.join(cacheDir(), 'build-'));
    try {
      fs.writeFileSync(path.join(work, 'main.go'), src);
      const r = spawnSyncSettled(tc.go, ['build', '-o', `${out}.tmp`, 'main.go'], { cwd: work, env: { ...goEnv(), GOFLAGS: '' }, encoding: 'utf8', timeout: 300000 });
      if (r.status !== 0) throw new ToolError('internal', `native-go: building its helper with ${tc.version} failed: ${(r.stderr || r.error?.message || '').slice(0, 500)}`);
      fs.renameSync(`${out}.tmp`, out);
      return out;
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  })();
  built.catch(() => (built = undefined));
  return built;
}

/** A package as `go list -deps -json` lists it (the fields native-go asks for). */
export interface GoPackage {
  ImportPath: string;
  Name: string;
  Dir: string;
  GoFiles?: string[];
  /** of the standard library (read from GOROOT) */
  Standard?: boolean;
  /** not one of the module's own (`./...`): a dependency */
  DepOnly?: boolean;
  Module?: { Path: string; Main?: boolean };
  /** the GoFiles confinement let through (sources.ts), with what each was: what the helper reads */
  Files?: SourceFile[];
}

/** A .go file that passed confinement: its real path and identity, which the helper checks again on opening. */
export interface SourceFile {
  Name: string;
  Real: string;
  Dev: number;
  Ino: number;
}

/** Asks the helper one question about `packages` of the module at `root`. */
export async function ask(tc: Toolchain, root: string, workspace: string, packages: GoPackage[], q: Record<string, unknown>): Promise<Record<string, unknown>> {
  const bin = await helper(tc);
  const req = { ...q, Root: root, Packages: packages.map((p) => ({ ImportPath: p.ImportPath, Name: p.Name, Dir: p.Dir, Files: p.Files ?? [] })) };
  const r = await runGo(bin, [], root, workspace, JSON.stringify(req));
  let out: Record<string, unknown>;
  try {
    out = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    throw new ToolError('internal', `native-go: its helper failed (exit ${r.code}): ${r.stderr.slice(0, 500)}`);
  }
  if (typeof out.error === 'string') throw new ToolError('not_found', `native-go: ${out.error}.`);
  return out;
}
