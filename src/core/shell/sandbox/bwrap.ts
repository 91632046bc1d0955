// The bubblewrap command line for one sandboxed command, from its view. Mount order is the
// point (later mounts cover earlier ones, as in Codex's bwrap pipeline): everything read-only,
// a private /tmp, the roots (writable under workspace-write), the write wall read-only again
// inside them, the credential paths hidden, then a fresh /dev and a /proc of the command's own
// PID namespace with /proc/sys bound read-only by us (bubblewrap's own cover of it is skipped
// when it runs as root, and gVisor ignores it: the probe checks it holds). /tmp comes before the
// roots so a workspace under /tmp stays visible.
import type { SandboxView } from './view.ts';

/**
 * argv for `bwrap` that runs `command args` in `cwd` inside `view`. With `infoFd`, bwrap writes
 * the host pid of the sandbox's init there, so a kill can reach it even while bwrap is still
 * setting up (before --die-with-parent is armed in the child).
 */
export function bwrapArgs(view: SandboxView, cwd: string, command: string, args: readonly string[], opts: { infoFd?: number; seccompFd?: number } = {}): string[] {
  const out = ['--ro-bind', '/', '/'];
  if (view.privateTmp) out.push('--tmpfs', '/tmp');
  // the read-only profile's home: empty, with the toolchains bound back (made read-only last,
  // once every mount point below it has been made)
  for (const h of view.maskedHomes) out.push('--tmpfs', h);
  for (const k of view.homeKeep) out.push('--ro-bind', k, k);
  const write = view.profile === 'workspace-write';
  for (const r of view.roots) out.push(write ? '--bind' : '--ro-bind', r, r);
  if (write) for (const p of view.readOnly) out.push('--ro-bind', p, p);
  // config files read through a copy without their credential lines (home_view.ts): after the
  // roots, so a workspace that is the home shows the copy too
  for (const s of view.homeScrubbed ?? []) out.push('--ro-bind', s.copy, s.path);
  // An empty tmpfs, then made read-only: writes there fail instead of vanishing with the sandbox.
  for (const d of view.hideDirs) out.push('--tmpfs', d, '--remount-ro', d);
  // /dev/null bound without device access: opening the file fails (EACCES), reading shows nothing.
  for (const f of view.hideFiles) out.push('--ro-bind', '/dev/null', f);
  for (const h of view.maskedHomes) out.push('--remount-ro', h);
  out.push('--dev', '/dev', '--proc', '/proc');
  // kernel settings (hostname, core_pattern, …) are files here: writable to uid 0 without any capability
  out.push('--ro-bind', '/proc/sys', '/proc/sys', '--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger');
  // A new PID namespace: no other process's /proc/<pid>/environ; when bwrap dies, its init dies
  // and the kernel kills every process left inside, including ones that left our process group.
  out.push('--unshare-pid');
  if (!view.network) out.push('--unshare-net');
  // Running as root would keep every capability (and let a command unmount the hiding mounts).
  out.push('--cap-drop', 'ALL');
  out.push('--die-with-parent', '--new-session');
  if (opts.infoFd !== undefined) out.push('--info-fd', String(opts.infoFd));
  // no unix-domain sockets (seccomp.ts): agents, buses and daemons stay out of reach
  if (opts.seccompFd !== undefined) out.push('--seccomp', String(opts.seccompFd));
  out.push('--chdir', cwd, '--', command, ...args);
  return out;
}
