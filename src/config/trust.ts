// Trust in a project folder, recorded outside the project. A cloned repository's own
// configuration (`.contenox/agents.toml`, the chain it names, its commands) can start programs
// (MCP servers), send secrets (`{{env:…}}` headers) and widen what runs unasked, so none of it
// applies until the person trusts the folder. Trust is bound to the content: the record keeps a
// hash of what was trusted (and the text, to show what changed), and a changed configuration is
// untrusted again until the person looks at it. What the configuration starts or reads from the
// project (an MCP server's script, a remote service's OpenAPI file: bound_files.ts) is part of
// that content: replacing the script is a change like editing agents.toml.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import parseToml from '@iarna/toml/parse-string.js';
import { readRecord, UNCHANGED, updateRecord } from '../core/platform/json_record.ts';
import { nodeCrypto } from '../core/platform/runtime.ts';
import { boundFiles } from './bound_files.ts';

export type TrustState =
  /** the folder has no project configuration: nothing to trust */
  | 'none'
  /** the project's configuration is the user's own (the folder is the home directory) */
  | 'own'
  | 'trusted'
  /** trusted for this run only (`--trust-project`, CXL_TRUST_PROJECT=1), not recorded */
  | 'trusted-for-run'
  | 'untrusted'
  /** trusted once, but the configuration changed since */
  | 'changed';

/** What a project folder's configuration is made of, as read now. */
export interface ProjectMaterial {
  /** the folder, real path */
  dir: string;
  /**
   * project-relative path → text, every file the project's configuration consists of or starts
   * (a folder ends in `/`; a text starting with NUL stands for the file: absent, binary, not read)
   */
  files: Record<string, string>;
  /** which of `files` the configuration starts or reads rather than is (an MCP server's script) */
  runs: string[];
  /** sha256 over the files (names and contents), `sha256:<hex>` */
  hash: string;
}

export interface TrustRecord {
  trustedAt: string;
  hash: string;
  /** the texts trusted (each up to TEXT_KEPT bytes), to show what changed later */
  files: Record<string, string | null>;
  /** each file's sha256, to name what changed (records written before it have none) */
  sums?: Record<string, string>;
}

export interface ProjectTrust {
  state: TrustState;
  material: ProjectMaterial | null;
  /** the record of what was trusted, for `changed` */
  record?: TrustRecord;
  /** the trust store is damaged or unreadable, so nothing counts as trusted: what to tell the person */
  storeProblem?: string;
}

/** Texts longer than this are kept as their hash only: a change is named, not shown. */
const TEXT_KEPT = 64 * 1024;
/** A project configuration bigger than this is not hashed whole: it is simply untrusted. */
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_COMMAND_FILES = 200;

export const TRUST_ENV = 'CXL_TRUST_PROJECT';

/** `~/.contenox/trusted_folders.json`: the user's own config dir, outside every project. */
export function trustStorePath(home: string): string {
  return path.join(home, '.contenox', 'trusted_folders.json');
}

function realDir(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** The real path of `file` when it resolves outside `dir` (a link out), else undefined. */
function outside(dir: string, file: string): string | undefined {
  let real: string;
  try {
    real = fs.realpathSync.native(file);
  } catch {
    return undefined; // a dangling link reads as nothing
  }
  const rel = path.relative(dir, real);
  return rel.startsWith('..') || path.isAbsolute(rel) ? real : undefined;
}

function readText(file: string): string | null {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return null;
    if (st.size > MAX_FILE_BYTES) return `\u0000too large: ${st.size} bytes, sha256 ${nodeCrypto().createHash('sha256').update(fs.readFileSync(file)).digest('hex')}`;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function parsed(tomlText: string): Record<string, unknown> | null {
  try {
    return parseToml(tomlText) as Record<string, unknown>;
  } catch {
    return null; // the loader reports the syntax error; the text itself is hashed
  }
}

/** The chain files a project's agents.toml names (top level and agent sections), project-relative. */
function namedChains(dir: string, doc: Record<string, unknown>): string[] {
  const chains: unknown[] = [doc.chain];
  const agents = doc.agents;
  if (agents && typeof agents === 'object') for (const a of Object.values(agents)) chains.push((a as Record<string, unknown> | null)?.chain);
  const base = path.join(dir, '.contenox');
  return chains.filter((c): c is string => typeof c === 'string' && c !== '').map((c) => path.relative(dir, path.resolve(base, c)));
}

/**
 * The project's configuration files as they are now, or null when the folder has none. `bind`:
 * also what it starts from the folder (not for the home folder, whose configuration is the
 * person's own and never asked about).
 */
export function projectMaterial(dir: string, bind = true): ProjectMaterial | null {
  const real = realDir(dir);
  const files: Record<string, string> = {};
  let runs: Record<string, string> = {};
  const toml = readText(path.join(real, '.contenox', 'agents.toml'));
  if (toml !== null) {
    files['.contenox/agents.toml'] = toml;
    const doc = parsed(toml);
    for (const rel of doc ? namedChains(real, doc) : []) {
      const t = readText(path.join(real, rel));
      files[rel] = t ?? '\u0000missing';
    }
    if (doc && bind) runs = boundFiles(real, doc);
  }
  const commands = path.join(real, '.contenox', 'commands');
  let names: string[] = [];
  try {
    names = fs.readdirSync(commands).filter((n) => n.endsWith('.md')).sort().slice(0, MAX_COMMAND_FILES);
  } catch {
    // no project commands
  }
  for (const n of names) {
    const file = path.join(commands, n);
    const out = outside(real, file);
    // a command's text goes to the model: one that is a link out of the project is not read
    const t = out !== undefined ? `\u0000not read: it links outside the project (to ${out})` : readText(file);
    if (t !== null) files[`.contenox/commands/${n}`] = t;
  }
  if (Object.keys(files).length === 0) return null;
  for (const [rel, text] of Object.entries(runs)) if (!Object.hasOwn(files, rel)) files[rel] = text;
  return { dir: real, files, runs: Object.keys(runs).filter((r) => files[r] === runs[r]).sort(), hash: hashFiles(files) };
}

function sha256(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('hex');
}

/**
 * The files that differ from what was trusted: changed, added or gone. A record written before
 * per-file sums were kept names a file it kept only as a hash as changed when it cannot tell.
 */
export function changedFiles(record: TrustRecord, material: ProjectMaterial): string[] {
  const names = [...new Set([...Object.keys(record.files), ...Object.keys(material.files)])].sort();
  return names.filter((n) => {
    const now = material.files[n];
    if (now === undefined || !Object.hasOwn(record.files, n)) return true;
    const sum = record.sums?.[n];
    if (sum !== undefined) return sum !== sha256(now);
    const was = record.files[n];
    return was === null || was !== now;
  });
}

function hashFiles(files: Record<string, string>): string {
  const h = nodeCrypto().createHash('sha256');
  for (const name of Object.keys(files).sort()) h.update(name).update('\u0000').update(files[name]).update('\u0000');
  return `sha256:${h.digest('hex')}`;
}

interface Store {
  version: 1;
  folders: Record<string, TrustRecord>;
}

const STORE_SHOWN = 'the trust store';

/** The store as written, or why it is not one: a store that is not this shape trusts nothing and is never rewritten over. */
function validStore(doc: unknown): Store | { damaged: string } {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { damaged: 'not a JSON object' };
  const d = doc as Record<string, unknown>;
  if (d.version !== 1) return { damaged: `version ${JSON.stringify(d.version)}, not 1` };
  const folders = d.folders;
  // an array would take a folder's record as a property and write it as [] again: nothing recorded
  if (!folders || typeof folders !== 'object' || Array.isArray(folders)) return { damaged: '"folders" is not an object of folder → record' };
  for (const [dir, r] of Object.entries(folders as Record<string, unknown>)) {
    const rec = r as Record<string, unknown> | null;
    if (!rec || typeof rec !== 'object' || typeof rec.hash !== 'string' || typeof rec.trustedAt !== 'string' || !rec.files || typeof rec.files !== 'object') return { damaged: `the record of ${dir} is not {trustedAt, hash, files}` };
  }
  return d as unknown as Store;
}

/**
 * The store as it is now, and what is wrong with it when it cannot be read: absent is empty; a
 * damaged or unreadable one trusts nothing, and says so (the caller shows it), never silently.
 */
export function readTrustStore(home: string): { folders: Record<string, TrustRecord>; problem?: string } {
  const file = trustStorePath(home);
  try {
    const got = readRecord(file, validStore);
    if (got.state === 'ok') return { folders: got.value.folders };
    if (got.state === 'absent') return { folders: {} };
    return { folders: {}, problem: `${file} is damaged (${got.why}), so no folder counts as trusted; \`cxl trust\` in a folder keeps it aside (${path.basename(file)}.damaged-…) and starts a new one` };
  } catch (err) {
    return { folders: {}, problem: `${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}), so no folder counts as trusted; fix its permissions` };
  }
}

/** What a change to the store did besides: a damaged store kept aside (said to the person). */
export interface StoreChange {
  /** the damaged store moved aside: where it is now, and what was wrong */
  aside?: { file: string; why: string };
}

/**
 * Changes the store under its lock (two `cxl trust` at once each keep the other's record; a
 * revoke is never undone by a trust that read the store before it). A damaged store is moved
 * aside, never written over; one that cannot be read is refused.
 */
async function changeStore(home: string, fn: (folders: Record<string, TrustRecord>) => boolean): Promise<StoreChange & { changed: boolean }> {
  let changed = false;
  const r = await updateRecord(
    trustStorePath(home),
    validStore,
    (cur) => {
      const store: Store = cur ?? { version: 1, folders: {} };
      changed = fn(store.folders);
      return changed ? store : UNCHANGED;
    },
    { shown: STORE_SHOWN, mode: 0o600, onDamaged: 'set-aside', pretty: true },
  );
  return { changed, ...(r.aside ? { aside: r.aside } : {}) };
}

export interface TrustOptions {
  home: string;
  /** trust the project for this run without recording it (`--trust-project`, CXL_TRUST_PROJECT=1) */
  forRun?: boolean;
}

/** Whether a folder's project configuration may apply, and what it is. */
export function projectTrust(dir: string, o: TrustOptions): ProjectTrust {
  const own = realDir(dir) === realDir(o.home);
  const material = projectMaterial(dir, !own);
  if (!material) return { state: 'none', material: null };
  if (own) return { state: 'own', material };
  const { folders, problem } = readTrustStore(o.home);
  const record = Object.hasOwn(folders, material.dir) ? folders[material.dir] : undefined;
  const said = problem ? { storeProblem: problem } : {};
  if (record && record.hash === material.hash) return { state: 'trusted', material, record };
  if (o.forRun) return { state: 'trusted-for-run', material, ...(record ? { record } : {}), ...said };
  return record ? { state: 'changed', material, record, ...said } : { state: 'untrusted', material, ...said };
}

export function applies(state: TrustState): boolean {
  return state === 'own' || state === 'trusted' || state === 'trusted-for-run';
}

/**
 * Records trust in the folder's configuration as it is now. `shown`: the hash of what the person
 * was shown; a configuration that changed since is not trusted (they would trust what they did
 * not see). Returns what was trusted (null: nothing to trust).
 */
export async function trustFolder(dir: string, home: string, shown?: string): Promise<(ProjectMaterial & StoreChange) | null> {
  const material = projectMaterial(dir);
  if (!material) return null;
  if (shown !== undefined && shown !== material.hash) throw new Error(`the configuration in ${material.dir} changed while it was shown; look at it again before trusting it.`);
  const files: Record<string, string | null> = {};
  const sums: Record<string, string> = {};
  for (const [k, v] of Object.entries(material.files)) {
    files[k] = Buffer.byteLength(v) <= TEXT_KEPT ? v : null;
    sums[k] = sha256(v);
  }
  const record: TrustRecord = { trustedAt: new Date().toISOString(), hash: material.hash, files, sums };
  const done = await changeStore(home, (folders) => {
    folders[material.dir] = record;
    return true;
  });
  return { ...material, ...(done.aside ? { aside: done.aside } : {}) };
}

/** The trusted folders, by path. */
export function listTrusted(home: string): { folders: { dir: string; trustedAt: string }[]; problem?: string } {
  const { folders, problem } = readTrustStore(home);
  const list = Object.entries(folders)
    .map(([dir, r]) => ({ dir, trustedAt: r.trustedAt }))
    .sort((a, b) => a.dir.localeCompare(b.dir));
  return { folders: list, ...(problem ? { problem } : {}) };
}

/** Removes the folder's trust. `changed`: whether there was any. */
export async function revokeFolder(dir: string, home: string): Promise<StoreChange & { changed: boolean }> {
  const key = realDir(dir);
  return changeStore(home, (folders) => {
    if (!Object.hasOwn(folders, key)) return false;
    delete folders[key];
    return true;
  });
}

/** Whether the environment asks to trust the project for this run. */
export function trustFromEnv(env: Record<string, string | undefined>): boolean {
  const v = env[TRUST_ENV];
  return v === '1' || v === 'true' || v === 'yes';
}

/** What a person is told when a folder's own configuration is not applied; undefined when nothing is held back. */
export function untrustedNotice(p: { state: TrustState; dir?: string; material: ProjectMaterial | null; record?: TrustRecord; storeProblem?: string }): string | undefined {
  if (p.state !== 'untrusted' && p.state !== 'changed') return undefined;
  const files = Object.keys(p.material?.files ?? {}).join(', ');
  const store = p.storeProblem ? ` (${p.storeProblem}.)` : '';
  if (p.state === 'changed' && p.record && p.material) {
    const changed = changedFiles(p.record, p.material);
    return `This folder's own configuration (${files}) changed since you trusted it (${changed.join(', ') || 'its content'}), so your trust no longer holds and it is not applied: none of its MCP servers start, none of its {{env:…}} values are filled, your own configuration decides. Look at the change with \`cxl trust --show\`, then run \`cxl trust\` here to trust it again.${store}`;
  }
  const why = p.state === 'changed' ? 'changed since you trusted it' : 'is not trusted';
  return `This folder's own configuration (${files}) ${why}, so it is not applied: none of its MCP servers start, none of its {{env:…}} values are filled, your own configuration decides. Read it, then run \`cxl trust\` here to apply it (\`cxl trust --show\` shows what it would change).${store}`;
}
