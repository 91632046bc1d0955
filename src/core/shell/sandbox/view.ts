// What one sandboxed command sees, as data every platform's generator reads (bubblewrap
// arguments on Linux, a Seatbelt profile on macOS): which roots are writable, which protected
// entries inside them stay read-only, which credential paths are hidden, whether /tmp is private
// and the network on. Built from protected_paths.ts only: the `at` names under each home
// directory, and what the workspace scan finds matching the table's globs when the command starts.
import { lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from '../../paths.ts';
import { entriesOf, SERVICE_SOCKETS, type ProtectionTier } from '../../protect/table.ts';
import { scannerFor } from '../../protect/scan.ts';
import { homeView } from './home_view.ts';
import type { SandboxProfile, TerminalSandbox } from './settings.ts';

export interface SandboxView {
  profile: SandboxProfile;
  network: boolean;
  /** the roots, outermost only: writable under workspace-write, read-only under read-only */
  roots: string[];
  /** protected entries inside the writable roots, bound read-only (workspace-write only) */
  readOnly: string[];
  /** hidden directories (an empty read-only tmpfs over each) */
  hideDirs: string[];
  /** hidden files (/dev/null bound over each: opening one fails) */
  hideFiles: string[];
  /** /tmp is a private empty tmpfs (false only when a root is `/`) */
  privateTmp: boolean;
  /** read-only profile: homes replaced by an empty read-only directory (home_view.ts) */
  maskedHomes: string[];
  /** …and the toolchain paths under them bound back read-only */
  homeKeep: string[];
  /** read-only profile: config files in a home shown as a copy without their credential lines (`copy` bound over `path`); absent: none */
  homeScrubbed?: { path: string; copy: string }[];
  /** what the view could not cover, for the tool result */
  notes: string[];
}

export interface ViewInput extends TerminalSandbox {
  /** home directories whose `at` names are hidden (the child's $HOME and this user's) */
  homes: readonly string[];
  /** per-user runtime dirs ($XDG_RUNTIME_DIR, /run/user/UID): hidden whole */
  runtimeDirs?: readonly string[];
  /** more directories hidden whole when they exist (cxl's own data dir, wherever XDG_DATA_HOME puts it) */
  hidden?: readonly string[];
}

const HIDE_TIERS: ProtectionTier[] = ['quarantine', 'read_approve'];

function real(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** True when `p` or one of its ancestors is in `set` (O(depth), for lists of any length). */
function coveredBy(set: ReadonlySet<string>, p: string): boolean {
  for (let cur = p; ; ) {
    if (set.has(cur)) return true;
    const up = path.dirname(cur);
    if (up === cur) return false;
    cur = up;
  }
}

/** Outermost paths only: a path inside another one of the list is dropped. */
function outermost(paths: Iterable<string>): string[] {
  const all = new Set(paths);
  return [...all].filter((p) => !coveredBy(all, path.dirname(p)) || path.dirname(p) === p).sort();
}

/** Hidden by the private /tmp already, unless a root brings it back. */
function underPrivateTmp(p: string, roots: readonly string[]): boolean {
  return isWithin('/tmp', p) && !roots.some((r) => isWithin(r, p));
}

export function buildView(input: ViewInput): SandboxView {
  const roots = outermost(input.roots.map((r) => real(r) ?? r));
  const privateTmp = !roots.includes('/');
  const visible = new Set((input.visible ?? []).map((v) => real(v) ?? v));
  const dirs = new Set<string>();
  const files = new Set<string>();
  const ro = new Set<string>();
  const notes: string[] = [];

  const hide = (p: string, isDir: boolean) => {
    if (privateTmp && underPrivateTmp(p, roots)) return;
    (isDir ? dirs : files).add(p);
  };

  // 1. the home names of the hide tiers (outside the workspace nothing is scanned)
  for (const home of new Set(input.homes.map((h) => real(h)).filter((h): h is string => h !== undefined))) {
    for (const tier of HIDE_TIERS) {
      for (const e of entriesOf(tier)) {
        for (const name of e.at ?? []) {
          const abs = path.join(home, name);
          try {
            lstatSync(abs);
          } catch {
            continue; // a bind over a missing path fails: hide what exists
          }
          const r = real(abs);
          if (!r) continue;
          if (tier === 'read_approve' && visible.has(r)) continue;
          let isDir: boolean;
          try {
            isDir = statSync(r).isDirectory();
          } catch {
            continue;
          }
          hide(r, isDir);
        }
      }
    }
  }

  // 2. where services listen: the runtime dirs whole, the table's sockets one by one
  for (const d of [...(input.runtimeDirs ?? []), ...(input.hidden ?? [])]) {
    const r = real(d);
    if (r && r !== '/' && isDir(r) && !roots.some((root) => isWithin(r, root))) hide(r, true);
  }
  for (const s of SERVICE_SOCKETS) {
    const r = real(s.path);
    if (r && lstatSync(r, { throwIfNoEntry: false })?.isSocket()) hide(r, false);
  }

  // 3. what the scan of each root finds now
  for (const root of roots) {
    const res = scannerFor(root).scan();
    if (res.incomplete) notes.push(`the workspace scan stopped after ${res.dirs} directories; protected files beyond them are not hidden`);
    for (const h of res.hits) {
      if (h.tier === 'quarantine' || h.tier === 'read_approve') {
        if (h.tier === 'read_approve' && visible.has(h.path)) continue;
        hide(h.path, h.kind === 'dir');
      } else if (input.profile === 'workspace-write' && roots.some((r) => isWithin(r, h.path))) {
        ro.add(h.path);
      }
    }
  }

  // 4. the read-only profile sees the home through its toolchain allowlist: what is masked needs
  // no hiding; what is kept comes back without the code that may carry credentials
  const home = input.profile === 'read-only' ? homeView(input.homes, roots, privateTmp) : { masked: [], keep: [], scrubbed: [], withheld: [] };
  for (const w of home.withheld) {
    const r = real(w.path);
    if (r) hide(r, w.dir);
  }
  const masked = new Set(home.masked);
  const shown = new Set([...home.keep, ...roots]);
  const needed = (p: string) => !coveredBy(masked, p) || coveredBy(shown, p);

  const hideDirs = outermost(dirs).filter(needed);
  const hidden = new Set(hideDirs);
  const hideFiles = [...files].filter((f) => !coveredBy(hidden, f) && needed(f)).sort();
  const readOnly = outermost(ro).filter((p) => !coveredBy(hidden, p) && !files.has(p));
  const homeScrubbed = home.scrubbed.filter((s) => !coveredBy(hidden, s.path) && !files.has(s.path));
  return { profile: input.profile, network: input.network, roots, readOnly, hideDirs, hideFiles, privateTmp, maskedHomes: home.masked, homeKeep: home.keep, homeScrubbed, notes };
}
