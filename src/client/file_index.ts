// The workspace's files for @-mentions: listed with find_files' own engines and filter (no
// .gitignore'd files, nothing under heavy directories, nothing quarantined or on the read-approve
// list), once, then again when asked after the listing has aged. The UI filters it per keystroke.
import { findBuiltin, findFilesRipgrep } from '../core/local_fs/find_files.ts';
import { findRipgrep } from '../core/local_fs/ripgrep.ts';
import { DEFAULT_FS_POLICY } from '../core/fs_policy.ts';
import { confine } from '../core/paths.ts';
import { defaultPathMatcher } from '../core/quarantine.ts';
import type { FileIndexView } from './state.ts';

/** Paths kept at most: a mention list of more is no help, and memory stays bounded. */
export const MAX_INDEXED_FILES = 200_000;
/** A listing older than this is redone when the @ list opens again. */
export const FILE_INDEX_TTL_MS = 15_000;

export interface FileIndexOptions {
  /** The ripgrep binary; null for the in-process walk; undefined: find it (@vscode/ripgrep). */
  rg?: string | null;
  ttlMs?: number;
}

/** Every file find_files would list under `root`, root-relative, in find_files' order. */
export async function listWorkspaceFiles(root: string, rg: string | null, signal?: AbortSignal): Promise<string[]> {
  const ctx = { root, policy: DEFAULT_FS_POLICY, matcher: defaultPathMatcher };
  const dir = confine(root, '.');
  return rg ? await findFilesRipgrep(ctx, rg, dir, '**', signal) : findBuiltin(ctx, dir, '**', signal);
}

export class FileIndex {
  readonly #root: string;
  readonly #onChange: (v: FileIndexView) => void;
  readonly #opts: FileIndexOptions;
  #view: FileIndexView = { paths: [], loading: false, truncated: false };
  #listedAt = 0;
  #running: Promise<void> | undefined;
  #abort = new AbortController();

  constructor(root: string, onChange: (v: FileIndexView) => void, opts: FileIndexOptions = {}) {
    this.#root = root;
    this.#onChange = onChange;
    this.#opts = opts;
  }

  get view(): FileIndexView {
    return this.#view;
  }

  #set(v: FileIndexView): void {
    this.#view = v;
    this.#onChange(v);
  }

  /** List the files unless a listing is running or recent; resolves when the current one is done. */
  refresh(now = Date.now()): Promise<void> {
    if (this.#running) return this.#running;
    if (this.#listedAt > 0 && now - this.#listedAt < (this.#opts.ttlMs ?? FILE_INDEX_TTL_MS)) return Promise.resolve();
    this.#set({ ...this.#view, loading: true });
    this.#running = (async () => {
      try {
        const rg = this.#opts.rg !== undefined ? this.#opts.rg : await findRipgrep();
        const all = await listWorkspaceFiles(this.#root, rg, this.#abort.signal);
        const truncated = all.length > MAX_INDEXED_FILES;
        this.#set({ paths: truncated ? all.slice(0, MAX_INDEXED_FILES) : all, loading: false, truncated });
      } catch (err) {
        if (this.#abort.signal.aborted) return;
        this.#set({ ...this.#view, loading: false, error: `could not list the workspace files: ${err instanceof Error ? err.message : String(err)}` });
      } finally {
        this.#listedAt = Date.now();
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  dispose(): void {
    this.#abort.abort();
  }
}
