// The macOS Seatbelt (`sandbox-exec -p`) profile for one command, generated from the same view
// as the bubblewrap arguments: reads allowed except the hidden paths, writes only inside the
// roots (workspace-write) minus the wall, plus the per-user temp dir and the few devices every
// program writes; other processes' information denied; unix-socket connections denied but the
// DNS resolver's; the network denied when it is off.
// Untested on macOS hardware: its text is unit-tested on Linux.
import type { SandboxView } from './view.ts';

/** A Seatbelt string literal: backslashes and double quotes escaped; control characters refused. */
export function sbString(s: string): string {
  if (/[\u0000-\u001f\u007f]/.test(s)) throw new Error(`a path with control characters cannot be put in a Seatbelt profile: ${JSON.stringify(s)}`);
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const subpath = (p: string) => `(subpath ${sbString(p)})`;
const literal = (p: string) => `(literal ${sbString(p)})`;

export interface SeatbeltOptions {
  /** writable temp dirs ($TMPDIR, /private/tmp): macOS has no private /tmp per command */
  tempDirs?: readonly string[];
}

export function seatbeltProfile(view: SandboxView, opts: SeatbeltOptions = {}): string {
  const lines = ['(version 1)', '(allow default)'];
  // writes: nowhere, then the roots (workspace-write), temp dirs and devices
  lines.push('(deny file-write*)');
  const writable: string[] = [];
  if (view.profile === 'workspace-write') writable.push(...view.roots.map(subpath));
  writable.push(...(opts.tempDirs ?? []).map(subpath));
  writable.push(literal('/dev/null'), literal('/dev/zero'), literal('/dev/tty'), literal('/dev/dtracehelper'), '(regex #"^/dev/fd/")');
  lines.push(`(allow file-write*\n  ${writable.join('\n  ')})`);
  if (view.profile === 'workspace-write' && view.readOnly.length) {
    lines.push(`(deny file-write*\n  ${view.readOnly.map(subpath).join('\n  ')})`);
  }
  // the read-only profile's home: unreadable but for the toolchains and the roots in it
  if (view.maskedHomes.length) {
    lines.push(`(deny file-read*\n  ${view.maskedHomes.map(subpath).join('\n  ')})`);
    lines.push(`(allow file-read-metadata\n  ${view.maskedHomes.map(literal).join('\n  ')})`);
    const back = [...view.homeKeep.map(subpath), ...view.roots.filter((r) => view.maskedHomes.some((h) => r.startsWith(`${h}/`))).map(subpath)];
    if (back.length) lines.push(`(allow file-read*\n  ${back.join('\n  ')})`);
  }
  // hidden: neither read nor written (subpath covers a file as well as a directory); Seatbelt
  // cannot show a scrubbed copy in a file's place, so such a config file is hidden whole
  const hidden = [...view.hideDirs.map(subpath), ...view.hideFiles.map(literal), ...(view.homeScrubbed ?? []).map((s) => literal(s.path))];
  if (hidden.length) lines.push(`(deny file-read* file-write*\n  ${hidden.join('\n  ')})`);
  // other processes: no environment, arguments or memory of theirs
  lines.push('(deny process-info* (target others))');
  // no unix-domain sockets (agents, launchd's per-session sockets, docker), but the resolver's
  lines.push('(deny network-outbound (remote unix-socket))');
  lines.push(`(allow network-outbound (remote unix-socket (path-literal ${sbString('/private/var/run/mDNSResponder')})))`);
  if (!view.network) lines.push('(deny network*)');
  return `${lines.join('\n')}\n`;
}

/** argv for `sandbox-exec` that runs `command args` inside `view`. */
export function seatbeltArgs(view: SandboxView, command: string, args: readonly string[], opts: SeatbeltOptions = {}): string[] {
  return ['-p', seatbeltProfile(view, opts), command, ...args];
}
