// File stats for isomorphic-git with the nanoseconds git itself writes into the index. Given
// node:fs's Stats, isomorphic-git derives nanoseconds from the float `mtimeMs`, which loses the
// last digits, so an index written by the git binary never matches and every file is read and
// hashed on each status or diff (seconds, not milliseconds, on a 20,000-file repository).
// Asked with `bigint: true`, the kernel's nanoseconds come through exactly; a runtime that only
// knows milliseconds gives the same answers as before, only not faster.
import fs from 'node:fs';

const NS = 1_000_000_000n;
const U32 = 2n ** 32n;

/** What isomorphic-git reads of a stat: the index's fields and the three kind tests. */
export interface ExactStats {
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  ctimeMs: number;
  mtimeMs: number;
  ctimeSeconds: number;
  ctimeNanoseconds: number;
  mtimeSeconds: number;
  mtimeNanoseconds: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

function exact(s: fs.BigIntStats): ExactStats {
  return {
    // the index keeps 32 bits of these; a Number of a 64-bit inode would round
    dev: Number(s.dev % U32),
    ino: Number(s.ino % U32),
    mode: Number(s.mode),
    uid: Number(s.uid),
    gid: Number(s.gid),
    size: Number(s.size),
    ctimeMs: Number(s.ctimeMs),
    mtimeMs: Number(s.mtimeMs),
    ctimeSeconds: Number(s.ctimeNs / NS),
    ctimeNanoseconds: Number(s.ctimeNs % NS),
    mtimeSeconds: Number(s.mtimeNs / NS),
    mtimeNanoseconds: Number(s.mtimeNs % NS),
    isFile: () => s.isFile(),
    isDirectory: () => s.isDirectory(),
    isSymbolicLink: () => s.isSymbolicLink(),
  };
}

export const exactStat = async (p: string): Promise<ExactStats> => exact(await fs.promises.stat(p, { bigint: true }));
export const exactLstat = async (p: string): Promise<ExactStats> => exact(await fs.promises.lstat(p, { bigint: true }));
