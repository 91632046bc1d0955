// Shared fixtures for the local_shell tests: a real temp dir as the allowed root, and a bin dir of
// tiny executables so PATH lookups do not depend on what this machine has installed.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function tempRoot(prefix = 'cxl-shell-'): { root: string; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A directory holding an executable stub (exit 0) for each name. */
export function stubBin(dir: string, names: string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const n of names) {
    const p = path.join(dir, n);
    writeFileSync(p, '#!/bin/sh\nexit 0\n');
    chmodSync(p, 0o755);
  }
  return dir;
}

/** Is a process still running? A zombie (exited, not yet reaped) counts as gone. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Waits until `pred` holds or `ms` pass; returns whether it held. */
export async function eventually(pred: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return pred();
}
