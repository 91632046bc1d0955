// Temporary directories a test file makes, canonical (realpath: macOS's /tmp is a link), removed
// together when the file ends. Each file holds its own: under Deno every file shares one process,
// and a helper module is evaluated once for all of them.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export class TempDirs {
  readonly #dirs: string[] = [];

  /** A new empty directory under the system's temp dir, named from `prefix`. */
  make(prefix: string): string {
    const d = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
    this.#dirs.push(d);
    return d;
  }

  removeAll(): void {
    for (const d of this.#dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  }
}
