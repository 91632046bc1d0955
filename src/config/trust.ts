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
import { replaceFileSync } from '../core/platform/atomic_file.ts';
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

function readStore(home: string): Store {
  try {
    const doc = JSON.parse(fs.readFileSync(trustStorePath(home), 'utf8')) as Store;
    if (doc && doc.version === 1 && doc.folders && typeof doc.folders === 'object') return doc;
  } catch {
    // absent or damaged: nothing is trusted (a damaged store never trusts more)
  }
  return { version: 1, folders: {} };
}

function writeStore(home: string, store: Store): void {
  const file = trustStorePath(home);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  replaceFileSync(file, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
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
  const record = readStore(o.home).folders[material.dir];
  if (record && record.hash === material.hash) return { state: 'trusted', material, record };
  if (o.forRun) return { state: 'trusted-for-run', material, ...(record ? { record } : {}) };
  return record ? { state: 'changed', material, record } : { state: 'untrusted', material };
}

export function applies(state: TrustState): boolean {
  return state === 'own' || state === 'trusted' || state === 'trusted-for-run';
}

/**
 * Records trust in the folder's configuration as it is now. `shown`: the hash of what the person
 * was shown; a configuration that changed since is not trusted (they would trust what they did
 * not see). Returns what was trusted (null: nothing to trust).
 */
export function trustFolder(dir: string, home: string, shown?: string): ProjectMaterial | null {
  const material = projectMaterial(dir);
  if (!material) return null;
  if (shown !== undefined && shown !== material.hash) throw new Error(`the configuration in ${material.dir} changed while it was shown; look at it again before trusting it.`);
  const store = readStore(home);
  const files: Record<string, string | null> = {};
  const sums: Record<string, string> = {};
  for (const [k, v] of Object.entries(material.files)) {
    files[k] = Buffer.byteLength(v) <= TEXT_KEPT ? v : null;
    sums[k] = sha256(v);
  }
  store.folders[material.dir] = { trustedAt: new Date().toISOString(), hash: material.hash, files, sums };
  writeStore(home, store);
  return material;
}

/** The trusted folders, by path. */
export function listTrusted(home: string): { dir: string; trustedAt: string }[] {
  return Object.entries(readStore(home).folders)
    .map(([dir, r]) => ({ dir, trustedAt: r.trustedAt }))
    .sort((a, b) => a.dir.localeCompare(b.dir));
}

/** Removes the folder's trust. Returns whether there was any. */
export function revokeFolder(dir: string, home: string): boolean {
  const store = readStore(home);
  const key = realDir(dir);
  if (!Object.hasOwn(store.folders, key)) return false;
  delete store.folders[key];
  writeStore(home, store);
  return true;
}

/** Whether the environment asks to trust the project for this run. */
export function trustFromEnv(env: Record<string, string | undefined>): boolean {
  const v = env[TRUST_ENV];
  return v === '1' || v === 'true' || v === 'yes';
}

/** What a person is told when a folder's own configuration is not applied; undefined when nothing is held back. */
export function untrustedNotice(p: { state: TrustState; dir?: string; material: ProjectMaterial | null; record?: TrustRecord }): string | undefined {
  if (p.state !== 'untrusted' && p.state !== 'changed') return undefined;
  const files = Object.keys(p.material?.files ?? {}).join(', ');
  if (p.state === 'changed' && p.record && p.material) {
    const changed = changedFiles(p.record, p.material);
    return `This folder's own configuration (${files}) changed since you trusted it (${changed.join(', ') || 'its content'}), so your trust no longer holds and it is not applied: none of its MCP servers start, none of its {{env:…}} values are filled, your own configuration decides. Look at the change with \`cxl trust --show\`, then run \`cxl trust\` here to trust it again.`;
  }
  const why = p.state === 'changed' ? 'changed since you trusted it' : 'is not trusted';
  return `This folder's own configuration (${files}) ${why}, so it is not applied: none of its MCP servers start, none of its {{env:…}} values are filled, your own configuration decides. Read it, then run \`cxl trust\` here to apply it (\`cxl trust --show\` shows what it would change).`;
}
