// The programs cxl itself starts to run a command in the sandbox and for its toolsets: bwrap;
// /bin/sh, which enters the pids group on the host and waits inside a sandbox started ahead;
// prlimit, which bounds an unasked command; go for native-go. Each is chosen from PATH entries no
// command can write (platform/program_path.ts): outside every workspace this process was given
// (a shell's session root and allowed dir, a terminal request's roots, native-go's root, the
// directory the UI or `cxl config` runs in), which is every directory a sandboxed command may
// write. The choice is remembered per PATH and set of workspaces, so a command pays a map lookup;
// a workspace seen for the first time makes the next launch choose again (an entry that was
// outside every workspace so far may be inside the new one).
import { statSync } from 'node:fs';
import path from 'node:path';
import { findTrustedProgram, type SkippedEntry, type TrustedProgram } from '../../platform/program_path.ts';

/** The shell cxl starts (by this absolute name: the name PATH would find is not asked). */
export const LAUNCH_SHELL = '/bin/sh';

const workspaces = new Set<string>();
let generation = 0;

/** Adds directories commands of this process may write; cxl's own programs are chosen outside them. */
export function noteWorkspaces(dirs: readonly string[]): void {
  for (const d of dirs) {
    if (!path.isAbsolute(d) || workspaces.has(d)) continue;
    workspaces.add(d);
    generation++;
  }
}

/** Every workspace noted so far. */
export function knownWorkspaces(): string[] {
  return [...workspaces];
}

/** Changes whenever a workspace is noted: what a remembered choice is keyed on. */
export function workspaceGeneration(): number {
  return generation;
}

const chosen = new Map<string, TrustedProgram>();
let chosenFor = 0;

/** `name` as cxl starts it: found on `pathEnv` outside every workspace (remembered per PATH and workspaces). */
export function launchProgram(name: string, pathEnv: string | undefined): TrustedProgram {
  if (chosenFor !== generation) {
    chosen.clear(); // chosen before a workspace was added: each may now lie inside it
    chosenFor = generation;
  }
  const key = `${name}\0${pathEnv ?? ''}`;
  let found = chosen.get(key);
  if (!found) {
    found = findTrustedProgram(name, pathEnv, [...workspaces]);
    chosen.set(key, found);
  }
  return found;
}

/** LAUNCH_SHELL when it, as its real file, lies outside every workspace and nobody else may write it. */
export function launchShell(): TrustedProgram {
  const r = launchProgram(path.basename(LAUNCH_SHELL), path.dirname(LAUNCH_SHELL));
  return r.program ? { program: LAUNCH_SHELL, skipped: r.skipped } : r;
}

/** Why no usable `name` was found, for a probe's reason. */
export function notFoundReason(name: string, what: string, r: TrustedProgram): string {
  if (r.skipped.length === 0) return `${what} is not on PATH`;
  return `${what} is not on PATH outside the workspace: ${describeSkipped(name, r.skipped)}`;
}

export function describeSkipped(name: string, skipped: readonly SkippedEntry[]): string {
  return skipped.map((s) => `${path.join(s.dir, name)} skipped (${s.why})`).join('; ');
}

/**
 * What a file is now (device, inode, size, change time): a sandbox started ahead is taken only
 * while the programs it was started with are still these files.
 */
export function programMark(p: string | undefined): string {
  if (p === undefined) return '-';
  const st = statSync(p, { throwIfNoEntry: false, bigint: true });
  return st ? `${st.dev}:${st.ino}:${st.size}:${st.ctimeNs}` : '-';
}

/** Each program cxl starts, what it chose and what it passed over: `cxl config` shows it. */
export function launchChoices(pathEnv: string | undefined, names: readonly string[] = ['bwrap', 'prlimit', 'go']): { name: string; program?: string; skipped: SkippedEntry[] }[] {
  const out = [{ name: 'sh', ...launchShell() }];
  for (const n of names) out.push({ name: n, ...launchProgram(n, pathEnv) });
  return out;
}
