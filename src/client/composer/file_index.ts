// The workspace's files for @-mentions: listed with find_files' own engines and filter (no
// .gitignore'd files, nothing under heavy directories, nothing quarantined or on the read-approve
// list), once, then again when asked after the listing has aged. The UI filters it per keystroke.
import { rgFilesArgs } from '../../core/local_fs/find_files.ts';
import { TraversalFilter, walk } from '../../core/local_fs/filter.ts';
import { findRipgrep, runRipgrep } from '../../core/local_fs/ripgrep.ts';
import { DEFAULT_FS_POLICY } from '../../core/local_fs/policy.ts';
import { confine } from '../../core/paths.ts';
import { defaultPathMatcher } from '../../core/protect/matcher.ts';

/** The workspace's files for @-mentions, as listed once (paths relative to the session root). */
export interface FileIndexView {
  paths: readonly string[];
  /** Still listing (the first time): `paths` is empty or old. */
  loading: boolean;
  /** The listing stopped at its cap. */
  truncated: boolean;
  error?: string;
}

/** Paths kept at most: a mention list of more is no help, and memory stays bounded. */
export const MAX_INDEXED_FILES = 200_000;
/** A listing older than this is redone when the @ list opens again. */
export const FILE_INDEX_TTL_MS = 15_000;

export interface FileIndexOptions {
  /** The ripgrep binary; null for the in-process walk; undefined: find it (@vscode/ripgrep). */
  rg?: string | null;
  ttlMs?: number;
}

/** Paths filtered between two yields to the event loop: the UI keeps drawing while a big tree is listed. */
const CHUNK = 2000;
const yieldNow = () => new Promise<void>((r) => setImmediate(r));

/**
 * Every file find_files would list under `root` (its engines, `rg --files` or the walk, and its
 * TraversalFilter), root-relative, sorted. Unlike the tool it yields to the event loop as it goes.
 */
export async function listWorkspaceFiles(root: string, rg: string | null, signal?: AbortSignal): Promise<string[]> {
  const ctx = { root: confine(root, '.').real, policy: DEFAULT_FS_POLICY, matcher: defaultPathMatcher };
  const filter = new TraversalFilter(ctx, '.');
  const out: string[] = [];
  if (!rg) {
    let n = 0;
    for (const e of walk(ctx, filter, '.', { maxDepth: Infinity, signal })) {
      if (e.kind === 'file') out.push(e.rel);
      if (++n % CHUNK === 0) await yieldNow();
    }
  } else {
    const candidates: string[] = [];
    const withIgnore = new Set<string>();
    await runRipgrep(rg, [...rgFilesArgs(ctx.policy.skipDirs), '--', '.'], ctx.root, (line) => {
      if (!line) return;
      const rel = line.startsWith('./') ? line.slice(2) : line;
      if (rel === '.gitignore' || rel.endsWith('/.gitignore')) withIgnore.add(rel === '.gitignore' ? '.' : rel.slice(0, -'/.gitignore'.length));
      candidates.push(rel);
    }, 'the file list', signal);
    // the listing shows every .gitignore, so no directory needs probing
    filter.knowGitignores(withIgnore);
    for (let i = 0; i < candidates.length; i += CHUNK) {
      for (const rel of candidates.slice(i, i + CHUNK)) if (!filter.file(rel, true)) out.push(rel);
      if (signal?.aborted) break;
      await yieldNow();
    }
  }
  return out.sort();
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
