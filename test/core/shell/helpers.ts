// Shared fixtures for the local_shell tests: a real temp dir as the allowed root, and a bin dir of
// tiny executables so PATH lookups do not depend on what this machine has installed.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';

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

/**
 * Host pids of live processes whose command line holds `marker`. Works across PID namespaces,
 * where the pids a sandboxed command prints are its own, not the host's.
 */
export function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.replace(/\0/g, ' ').includes(marker) && alive(Number(name))) out.push(Number(name));
  }
  return out.filter((p) => p !== process.pid);
}

/** A marker no other process has: use it as a sleep duration (`sleep 30.<n>`). */
export function uniqueSleep(): string {
  return `30.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}
