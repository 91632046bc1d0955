// A tiny tmpfs for tests of full and read-only disks, when this machine lets the test mount one
// (root in a container usually can). Callers fall back to another failure (a data path that is a
// file) when it cannot.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export interface Tmpfs {
  dir: string;
  unmount(): void;
}

/** Mounts a tmpfs of `size` (e.g. "64k") on `dir`, read-only when asked, or says why it cannot. */
export function mountTmpfs(dir: string, size: string, o: { readOnly?: boolean } = {}): Tmpfs | { error: string } {
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700${o.readOnly ? ',ro' : ''}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return { error: (r.stderr || r.error?.message || `mount exited ${r.status}`).trim() };
  return {
    dir,
    unmount() {
      spawnSync('umount', ['-l', dir]);
    },
  };
}
