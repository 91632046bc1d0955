// The host's log file in the data dir, rotated by size and by age: the current file is moved
// aside (serve.log.<time>) once it passes `maxBytes` or is older than `maxAgeMs`, and moved-aside
// files beyond `keep` or older than `keepMs` are removed. Lines are written synchronously: a
// host that is killed keeps what it logged. Nothing secret is ever given to it.
import fs from 'node:fs';
import path from 'node:path';

export interface LogOptions {
  dir: string;
  /** rotate past this size (default 5 MiB) */
  maxBytes?: number;
  /** rotate a file older than this (default one day) */
  maxAgeMs?: number;
  /** moved-aside files kept (default 5) */
  keep?: number;
  /** moved-aside files older than this are removed (default 14 days) */
  keepMs?: number;
  now?: () => number;
}

export const LOG_NAME = 'serve.log';

export class RotatingLog {
  readonly file: string;
  #fd: number | undefined;
  #size = 0;
  #born = 0;
  readonly #o: Required<Omit<LogOptions, 'dir'>>;

  constructor(readonly dir: string, o: Omit<LogOptions, 'dir'> = {}) {
    this.#o = { maxBytes: o.maxBytes ?? 5 * 1024 * 1024, maxAgeMs: o.maxAgeMs ?? 24 * 3600_000, keep: o.keep ?? 5, keepMs: o.keepMs ?? 14 * 24 * 3600_000, now: o.now ?? Date.now };
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = path.join(dir, LOG_NAME);
    this.#openFile();
    this.#prune();
  }

  #openFile(): void {
    this.#fd = fs.openSync(this.file, 'a', 0o600);
    const st = fs.fstatSync(this.#fd);
    this.#size = st.size;
    this.#born = st.size === 0 ? this.#o.now() : st.birthtimeMs || st.mtimeMs;
  }

  /** One line, with the time. */
  line(text: string): void {
    const out = `${new Date(this.#o.now()).toISOString()} ${text.replace(/[\r\n]+/g, ' ')}\n`;
    if (this.#size > 0 && (this.#size + out.length > this.#o.maxBytes || this.#o.now() - this.#born > this.#o.maxAgeMs)) this.rotate();
    try {
      fs.writeSync(this.#fd!, out);
      this.#size += Buffer.byteLength(out);
    } catch {
      /* a full disk: the host keeps serving without its log */
    }
  }

  rotate(): void {
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    const stamp = new Date(this.#o.now()).toISOString().replace(/[:.]/g, '-');
    try {
      fs.renameSync(this.file, `${this.file}.${stamp}`);
    } catch {
      /* gone already: a new file starts */
    }
    this.#openFile();
    this.#born = this.#o.now();
    this.#prune();
  }

  /** The moved-aside files, newest first. */
  rotated(): string[] {
    return fs
      .readdirSync(this.dir)
      .filter((f) => f.startsWith(`${LOG_NAME}.`))
      .sort()
      .reverse()
      .map((f) => path.join(this.dir, f));
  }

  #prune(): void {
    const now = this.#o.now();
    this.rotated().forEach((f, i) => {
      try {
        if (i >= this.#o.keep || now - fs.statSync(f).mtimeMs > this.#o.keepMs) fs.unlinkSync(f);
      } catch {
        /* taken by another */
      }
    });
  }

  close(): void {
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    this.#fd = undefined;
  }
}
