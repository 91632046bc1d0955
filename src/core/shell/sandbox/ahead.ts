// Sandboxes started before their command is known. Starting bubblewrap (namespaces, mounts, a
// fresh /dev and /proc) is most of what a sandboxed command costs (10-20 ms on a slow VM), and an
// agent's commands come a model turn apart: once a command ends, the same sandbox is started
// again for the next one, its shell waiting on a line (launcher.ts, TRAMPOLINE). The next
// command takes it only when it is the sandbox that command would have got now:
// - the same launch key: the bwrap command line (so the same view, built afresh for the new
//   command: a protected name created meanwhile changes it), working directory, environment and
//   limits;
// - every path the view mounts on is still the file or directory it was when the sandbox was
//   started. A mount sits on what was there: a `.env` replaced by a rename in the workspace would
//   take the /dev/null bound over it away (the kernel detaches a mount whose file is renamed
//   over) and show the new one, while the view, built from names, reads the same;
// - the programs it was started with (bwrap, the shell, prlimit: chosen outside every workspace,
//   launch_programs.ts) are still the same files (device, inode, size, change time). The filter
//   needs no check: it comes from this process's memory, through a pipe, at each start.
// Anything else: the one held is stopped and the command starts its own sandbox, as before.
import { lstatSync } from 'node:fs';
import { programMark } from './launch_programs.ts';
import type { Launch } from './launcher.ts';
import type { SandboxView } from './view.ts';

/** A started sandbox as the pool holds it; what runs it (local_terminal.ts) says how to stop it. */
export interface Ahead {
  launch: Launch;
  /** launchMarks() of its launch, read before the sandbox was started */
  marks: string[];
  /** it ended before any command took it (bwrap failed, or was killed) */
  gone(): boolean;
  /** stops it and everything in it; called for one no command takes */
  stop(): void;
}

/** Every path the view mounts on, as the (device, inode) it is now; '-' for one that is gone. */
export function mountMarks(view: SandboxView): string[] {
  const paths = [...view.maskedHomes, ...view.homeKeep, ...view.roots, ...view.readOnly, ...(view.homeScrubbed ?? []).map((s) => s.path), ...view.hideDirs, ...view.hideFiles];
  return paths.map((p) => {
    const st = lstatSync(p, { throwIfNoEntry: false, bigint: true });
    return st ? `${st.dev}:${st.ino}` : '-';
  });
}

/** mountMarks() of the launch's view, then what each program it starts is now. */
export function launchMarks(launch: Pick<Launch, 'view' | 'programs'>): string[] {
  return [...mountMarks(launch.view), ...(launch.programs ?? []).map(programMark)];
}

function sameMarks(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((m, i) => m === b[i]);
}

export interface AheadPoolOptions {
  /** how many are held at once (one per profile in use, say); the oldest is stopped first */
  max?: number;
  /** one not taken within this long is stopped */
  idleMs?: number;
}

export class AheadPool {
  readonly #held = new Map<string, { ahead: Ahead; timer: ReturnType<typeof setTimeout> }>();
  readonly #max: number;
  readonly #idleMs: number;
  /** how many commands took a sandbox started ahead, and how many found one they could not take */
  readonly counts = { taken: 0, refused: 0 };

  constructor(opts: AheadPoolOptions = {}) {
    this.#max = opts.max ?? 2;
    this.#idleMs = opts.idleMs ?? 60_000;
  }

  /** The sandbox started ahead for exactly this launch, taken out of the pool; undefined when there is none it may take. */
  take(launch: Launch): Ahead | undefined {
    if (launch.key === undefined) return undefined;
    const held = this.#held.get(launch.key);
    if (!held) return undefined;
    this.#held.delete(launch.key);
    clearTimeout(held.timer);
    if (held.ahead.gone() || !sameMarks(held.ahead.marks, launchMarks(launch))) {
      this.counts.refused++;
      held.ahead.stop();
      return undefined;
    }
    this.counts.taken++;
    return held.ahead;
  }

  /** Holds `start()`'s sandbox for the next command with this key, in place of one held for it already. */
  hold(key: string, start: () => Ahead | undefined): void {
    this.#drop(key);
    while (this.#held.size >= this.#max) this.#drop(this.#held.keys().next().value as string);
    let ahead: Ahead | undefined;
    try {
      ahead = start();
    } catch {
      return; // the directory went away, say: the next command builds its own and reports why
    }
    if (!ahead) return;
    const timer = setTimeout(() => this.#drop(key), this.#idleMs);
    (timer as { unref?: () => void }).unref?.();
    this.#held.set(key, { ahead, timer });
  }

  /** Stops every one held. */
  clear(): void {
    for (const key of [...this.#held.keys()]) this.#drop(key);
  }

  get size(): number {
    return this.#held.size;
  }

  #drop(key: string): void {
    const held = this.#held.get(key);
    if (!held) return;
    this.#held.delete(key);
    clearTimeout(held.timer);
    held.ahead.stop();
  }
}
