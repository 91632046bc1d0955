// A pids cgroup for one unasked command, when this process may make one: the process-count
// bound that holds for uid 0 too (the kernel never applies RLIMIT_NPROC to root). Found once per
// process: the pids controller of cgroup v2 when this process's own group delegates it
// (`pids` in its cgroup.subtree_control), else the v1 pids hierarchy; either only where this
// process may write. A child group `cxl-<pid>-<n>` is made per command with pids.max set, the
// sandbox is started inside it (launcher.ts), and the group is removed once the command's
// processes are gone. Groups a cxl that was killed left behind are removed on the next start.
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { processAlive } from '../../platform/write_lock.ts';
import { LAUNCH_SHELL } from './launch_programs.ts';

export interface PidsGroup {
  /** the group's cgroup.procs: a process written there moves in, with what it starts later */
  procs: string;
  /** removes the group (retried while the kernel still counts exiting tasks) */
  remove(): void;
}

/** Mount point of a cgroup hierarchy from /proc/self/mountinfo: v2, or the v1 one carrying `controller`. */
function mountOf(mountinfo: string, version: 1 | 2, controller: string): string | undefined {
  for (const line of mountinfo.split('\n')) {
    const [pre, post] = line.split(' - ');
    if (!post) continue;
    const [fstype, , superOpts = ''] = post.split(' ');
    const mnt = pre.split(' ')[4];
    if (version === 2 && fstype === 'cgroup2') return mnt;
    if (version === 1 && fstype === 'cgroup' && superOpts.split(',').includes(controller)) return mnt;
  }
  return undefined;
}

/**
 * This process's group of the pids controller, where a child group could be made (whether this
 * process may is found by making one: an access() check is not what the kernel decides); null
 * when there is none.
 */
export function pidsParent(procSelf = '/proc/self'): string | null {
  let cgroups: string;
  let mountinfo: string;
  try {
    cgroups = readFileSync(`${procSelf}/cgroup`, 'utf8');
    mountinfo = readFileSync(`${procSelf}/mountinfo`, 'utf8');
  } catch {
    return null;
  }
  for (const line of cgroups.split('\n')) {
    const [, controllers, rel] = line.split(':');
    if (rel === undefined) continue;
    if (controllers === '') {
      const mnt = mountOf(mountinfo, 2, 'pids');
      if (!mnt) continue;
      const dir = path.join(mnt, rel);
      let delegated = '';
      try {
        delegated = readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8');
      } catch {
        continue;
      }
      if (delegated.split(/\s+/).includes('pids')) return dir;
    } else if (controllers.split(',').includes('pids')) {
      const mnt = mountOf(mountinfo, 1, 'pids');
      if (!mnt) continue;
      return path.join(mnt, rel);
    }
  }
  return null;
}

/** Removes what a cxl that no longer runs left in `parent` (rmdir only removes an empty group). */
function sweep(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const n of names) {
    const m = /^cxl-(\d+)-\d+$/.exec(n);
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    try {
      rmdirSync(path.join(parent, n));
    } catch {
      /* still busy: next time */
    }
  }
}

let parent: string | null | undefined;
let seq = 0;

function removeLater(dir: string, tries = 20): void {
  try {
    rmdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || tries <= 0) return;
    setTimeout(() => removeLater(dir, tries - 1), 50).unref?.();
  }
}

/** A new pids group bounded at `max` tasks, or undefined when this process cannot make one. */
export function pidsGroup(max: number): PidsGroup | undefined {
  if (parent === undefined) {
    parent = pidsParent();
    if (parent) sweep(parent);
  }
  if (!parent) return undefined;
  let dir = '';
  for (let tries = 0; !dir; tries++) {
    const name = path.join(parent, `cxl-${process.pid}-${++seq}`);
    try {
      mkdirSync(name);
      dir = name;
    } catch (e) {
      // taken (another copy of this module in the process, as test runners load one per file,
      // or a group still being removed): the next number. Anything else: not ours to make
      // groups in, and not asked again.
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && tries < 1000) continue;
      parent = null;
      return undefined;
    }
  }
  try {
    writeFileSync(path.join(dir, 'pids.max'), String(max));
  } catch {
    removeLater(dir, 0);
    return undefined;
  }
  return { procs: path.join(dir, 'cgroup.procs'), remove: () => removeLater(dir) };
}

/**
 * argv that moves itself into `group`, runs `prelude` (shell lines, e.g. `ulimit`s) and becomes
 * `command args` (the same process, so the sandbox and everything it starts are counted):
 * `/bin/sh -c 'echo $$ > procs && prelude && exec …'`.
 */
export function inGroup(group: PidsGroup, command: string, args: readonly string[], prelude?: string): { command: string; args: string[] } {
  const enter = 'echo $$ 2>/dev/null > "$0" || { echo "cxl-sandbox: cannot enter the pids cgroup $0" >&2; exit 1; }';
  const limit = prelude ? ` ${prelude} || { echo "cxl-sandbox: cannot set the limits of an unasked command" >&2; exit 1; };` : '';
  return { command: LAUNCH_SHELL, args: ['-c', `${enter};${limit} exec "$@"`, group.procs, command, ...args] };
}
