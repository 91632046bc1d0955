// Loading agents.toml, weakest first: built-in defaults, ~/.contenox/agents.toml,
// .contenox/agents.toml in the project (only once the person trusts the folder: trust.ts), then
// the [agents.<name>] section of the agent in use (from each file, in the same order). Every
// effective value remembers where it came from. A problem anywhere fails the whole load:
// nothing half-loads. A trusted project still cannot redefine a shipped envelope, turn the
// sandbox off or drop the command policy unless the person's own file allows it ([trust]).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import parseToml from '@iarna/toml/parse-string.js';
import { buildEnvelope, compileEnvelope, resolveEnvelope, type CompiledEnvelope, type EnvelopeSpec, type ResolvedEnvelope } from '../core/envelope/index.ts';
import { DEFAULT_ENVELOPE, FLOOR_RULES, SHIPPED_ENVELOPES } from '../core/envelope/shipped.ts';
import { isToolError } from '../core/errors.ts';
import { checkConfig, type ConfigData, type Problem, type ProjectAllowances } from './schema.ts';
import { applies, projectTrust, trustFromEnv, type ProjectTrust } from './trust.ts';
import { keyLines, locateKey } from './source_lines.ts';

export const BUILTIN = 'built-in defaults';

/** One problem of one file, located. */
export interface ConfigIssue {
  file: string;
  line?: number;
  col?: number;
  key?: string;
  message: string;
}

export class ConfigError extends Error {
  readonly issues: ConfigIssue[];

  constructor(issues: ConfigIssue[]) {
    super(issues.map(formatIssue).join('\n'));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

export function formatIssue(i: ConfigIssue): string {
  const where = i.line !== undefined ? `${i.file}:${i.line}:${i.col ?? 1}` : i.file;
  return `${where}: ${i.message}`;
}

/** The built-in layer: the shipped envelopes and the model the seed names. */
export const BUILTIN_CONFIG: Readonly<ConfigData> = Object.freeze({
  default_envelope: DEFAULT_ENVELOPE,
  model: 'qwen3:8b',
  provider: 'ollama',
  envelopes: structuredClone(SHIPPED_ENVELOPES) as Record<string, EnvelopeSpec>,
});

/** Reads and validates one agents.toml. Throws ConfigError naming file, line and column. */
export function readConfigFile(file: string, text?: string): ConfigData {
  let src: string;
  try {
    src = text ?? fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([{ file, message: `cannot read: ${(err as Error).message}` }]);
  }
  return parseConfigText(file, src);
}

export function parseConfigText(file: string, src: string): ConfigData {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(src) as Record<string, unknown>;
  } catch (err) {
    const e = err as { line?: number; col?: number; message?: string };
    const first = String(e.message ?? err).split('\n')[0].replace(/ at row \d+, col \d+, pos \d+:?$/, '');
    throw new ConfigError([{ file, line: (e.line ?? 0) + 1, col: (e.col ?? 0) + 1, message: `malformed TOML: ${first}` }]);
  }
  const { data, problems } = checkConfig(doc);
  if (problems.length) throw new ConfigError(locate(file, src, problems));
  return data;
}

function locate(file: string, src: string, problems: Problem[]): ConfigIssue[] {
  const lines = keyLines(src);
  return problems.map((p) => {
    const at = locateKey(lines, p.path);
    return { file, line: at?.line, col: at?.col, key: p.path.join('.'), message: p.message };
  });
}

// ── merging with provenance ────────────────────────────────────────────────────────────────

export type Sources = Map<string, string>;

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How a value at `path` merges over what is there (docs/config.md, "Inheritance"). */
function mergeKind(path: string[]): 'concat' | 'axis' | 'atomic' | 'table' {
  const [top, , k2, k3] = path;
  if (top === 'envelopes') {
    if (path.length === 3 && (k2 === 'always_deny' || k2 === 'always_allow')) return 'concat';
    if (path.length === 3 && k2 === 'shell') return 'axis';
    if (path.length === 4 && k2 === 'files' && (k3 === 'read' || k3 === 'write')) return 'axis';
    if (path.length === 3 && k2 === 'default_action') return 'atomic';
    if (path.length === 4 && k2 === 'tools') return 'atomic';
    if (path.length === 4 && k2 === 'shell' && k3 === 'substitution') return 'atomic';
  }
  if ((top === 'mcp_servers' || top === 'remote_tools') && path.length === 2) return 'atomic';
  return 'table';
}

function dropSources(sources: Sources, prefix: string): void {
  for (const k of [...sources.keys()]) if (k === prefix || k.startsWith(`${prefix}.`) || k.startsWith(`${prefix}[`)) sources.delete(k);
}

function recordLeaves(sources: Sources, key: string, v: unknown, source: string, offset = 0): void {
  if (Array.isArray(v)) {
    if (v.length && v.every((x) => typeof x !== 'object')) {
      sources.set(key, source);
      return;
    }
    v.forEach((x, i) => sources.set(`${key}[${i + offset}]`, source));
    if (!v.length) sources.set(key, source);
    return;
  }
  if (isPlain(v) && !('grant' in v && Object.keys(v).every((k) => k === 'grant' || k === 'timeoutMs'))) {
    for (const [k, x] of Object.entries(v)) if (k !== 'bare') recordLeaves(sources, `${key}.${k}`, x, source);
    return;
  }
  sources.set(key, source);
}

/** Merges `incoming` (one level) into `into` in place. */
function mergeInto(into: Record<string, unknown>, incoming: Record<string, unknown>, path: string[], source: string, sources: Sources): void {
  for (const [k, v] of Object.entries(incoming)) {
    if (v === undefined) continue;
    const p = [...path, k];
    const key = p.join('.');
    const kind = mergeKind(p);
    const cur = into[k];
    if (kind === 'concat' && Array.isArray(cur) && Array.isArray(v)) {
      recordLeaves(sources, key, v, source, cur.length);
      into[k] = [...cur, ...v];
    } else if (kind === 'atomic' || !isPlain(v) || !isPlain(cur) || (kind === 'axis' && (v as { bare?: boolean }).bare)) {
      dropSources(sources, key);
      recordLeaves(sources, key, v, source);
      into[k] = structuredClone(v);
    } else {
      if (kind === 'axis') delete cur.bare; // a table over a bare grant keeps the grant and refines it
      mergeInto(cur, v, p, source, sources);
    }
  }
}

// ── the effective configuration ────────────────────────────────────────────────────────────

export interface LoadOptions {
  /** the project directory (default: process.cwd()) */
  cwd?: string;
  /** the home directory (default: $HOME, else os.homedir()) */
  home?: string;
  /** the agent whose [agents.<name>] section applies (default: default_agent, if set) */
  agent?: string;
  /** layers applied last, e.g. from flags: [source label, data] */
  overrides?: [string, ConfigData][];
  /** trust the project's configuration for this run without recording it (`--trust-project`) */
  trustProject?: boolean;
  /** where CXL_TRUST_PROJECT is read (default: this process's environment) */
  env?: Record<string, string | undefined>;
  /** the project's configuration as the caller already resolved it (projectConfig): not resolved again */
  project?: ProjectConfig;
}

/** The project's configuration and whether it applies. */
export interface ProjectConfig extends ProjectTrust {
  /** the project folder as given */
  dir: string;
  /** its agents.toml, applied or not */
  file: string;
}

export type EnvelopeOrigin = 'built-in' | 'user' | 'project';

export interface EffectiveConfig {
  /** the merged values (without the agents sections) */
  data: ConfigData;
  /** key path → where it came from (a file, a file's [agents.x] section, or built-in defaults) */
  sources: Sources;
  /** the files read, weakest first */
  files: string[];
  /** the agent section applied, if any */
  agent?: string;
  /** every `[agents.<name>]` the files define, sorted */
  agents: string[];
  envelopes: Record<string, EnvelopeSpec>;
  defaultEnvelope: string;
  /** the named envelope (default: the configured default), resolved and compiled */
  envelope(name?: string): CompiledEnvelope;
  /** the project's configuration: applied (trusted) or not, and why */
  project: ProjectConfig;
  /** who defined an envelope: shipped, the person's own file, or the project */
  origin(envelope: string): EnvelopeOrigin;
  /** an envelope's name as shown wherever it is in force: `acme (project)` for a project's own */
  shownName(envelope: string): string;
}

export function homeDir(home?: string): string {
  return home ?? process.env.HOME ?? os.homedir();
}

/** The project folder's configuration and whether it applies (trust.ts). */
export function projectConfig(opts: Pick<LoadOptions, 'cwd' | 'home' | 'trustProject' | 'env'> = {}): ProjectConfig {
  const dir = path.resolve(opts.cwd ?? process.cwd());
  const forRun = opts.trustProject ?? trustFromEnv(opts.env ?? process.env);
  return { dir, file: path.join(dir, '.contenox', 'agents.toml'), ...projectTrust(dir, { home: homeDir(opts.home), forRun }) };
}

/** The config files that apply, weakest first (only those that exist; the project's only when trusted). */
export function configFiles(opts: { home?: string }, project: ProjectConfig): string[] {
  const user = path.join(homeDir(opts.home), '.contenox', 'agents.toml');
  const out: string[] = [];
  if (fs.existsSync(user)) out.push(user);
  if (applies(project.state) && project.state !== 'own' && fs.existsSync(project.file)) out.push(project.file);
  return out;
}

export function loadConfig(opts: LoadOptions = {}): EffectiveConfig {
  const project = opts.project ?? projectConfig(opts);
  const files = configFiles(opts, project);
  const layers: [string, ConfigData][] = [];
  const issues: ConfigIssue[] = [];
  for (const f of files) {
    try {
      // the project's file is read as the text its trust was checked on, not read again
      const trusted = f === project.file ? project.material?.files['.contenox/agents.toml'] : undefined;
      layers.push([f, readConfigFile(f, trusted)]);
    } catch (err) {
      if (err instanceof ConfigError) issues.push(...err.issues);
      else throw err;
    }
  }
  if (issues.length) throw new ConfigError(issues);
  try {
    return mergeLayers(layers, { ...opts, project });
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(err.issues.map(locateInFile));
    throw err;
  }
}

/** Adds line and column to an issue raised after merging (an unknown parent, a bad default). */
function locateInFile(i: ConfigIssue): ConfigIssue {
  if (i.line !== undefined || i.key === undefined) return i;
  const file = i.file.replace(/ \[agents\.[^\]]*\]$/, '');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return i;
  }
  const at = locateKey(keyLines(text), i.key.split('.'));
  return at ? { ...i, file, line: at.line, col: at.col } : i;
}

/** Merges validated layers over the built-in defaults and checks the result as a whole. */
export function mergeLayers(layers: [string, ConfigData][], opts: Pick<LoadOptions, 'agent' | 'overrides'> & { project?: ProjectConfig } = {}): EffectiveConfig {
  const project: ProjectConfig = opts.project ?? { dir: '', file: '', state: 'none', material: null };
  const own = layers.filter(([f]) => f !== project.file).map(([, l]) => l.trust ?? {});
  const allowances: ProjectAllowances = Object.assign({}, ...own);
  const projectLayer = layers.find(([f]) => f === project.file);
  if (projectLayer) {
    const limits = projectLimits(projectLayer[0], projectLayer[1], allowances);
    if (limits.length) throw new ConfigError(limits);
  }
  const sources: Sources = new Map();
  const data: Record<string, unknown> = {};
  mergeInto(data, structuredClone(BUILTIN_CONFIG) as Record<string, unknown>, [], BUILTIN, sources);
  for (const [src, layer] of layers) {
    const { agents: _agents, ...rest } = layer;
    mergeInto(data, rest as Record<string, unknown>, [], src, sources);
  }
  const agent = opts.agent ?? (data.default_agent as string | undefined);
  const known = [...new Set(layers.flatMap(([, l]) => Object.keys(l.agents ?? {})))].sort();
  if (agent !== undefined) {
    const found = layers.filter(([, l]) => l.agents && Object.hasOwn(l.agents, agent));
    if (!found.length) {
      throw new ConfigError([{ file: layers.map(([f]) => f).join(', ') || BUILTIN, message: `no [agents.${agent}] section in any config file${known.length ? `; defined agents: ${known.join(', ')}` : ''}. Add one or pick another agent.` }]);
    }
    for (const [src, l] of found) mergeInto(data, l.agents![agent] as Record<string, unknown>, [], `${src} [agents.${agent}]`, sources);
  }
  for (const [src, layer] of opts.overrides ?? []) mergeInto(data, layer as Record<string, unknown>, [], src, sources);

  const cfg = data as ConfigData;
  const envelopes = cfg.envelopes ?? {};
  const defaultEnvelope = cfg.default_envelope ?? DEFAULT_ENVELOPE;
  // Resolve every envelope now, so an unknown parent, a cycle or a bad default fails the load;
  // compile (the glob lists) only the ones a session asks for.
  const resolved = new Map<string, ResolvedEnvelope>();
  const compiled = new Map<string, CompiledEnvelope>();
  const issues: ConfigIssue[] = [];
  for (const name of Object.keys(envelopes)) {
    try {
      resolved.set(name, resolveEnvelope(name, envelopes, FLOOR_RULES));
    } catch (err) {
      if (!isToolError(err)) throw err;
      issues.push({ file: sources.get(`envelopes.${name}.extends`) ?? firstSource(sources, `envelopes.${name}`), key: `envelopes.${name}.extends`, message: err.message });
    }
  }
  if (!Object.hasOwn(envelopes, defaultEnvelope)) {
    issues.push({ file: sources.get('default_envelope') ?? BUILTIN, key: 'default_envelope', message: `default_envelope = "${defaultEnvelope}" names no envelope; defined: ${Object.keys(envelopes).sort().join(', ')}.` });
  }
  // both become toolsets of that name: one would hide the other's tools
  for (const name of Object.keys(cfg.remote_tools ?? {})) {
    if (Object.hasOwn(cfg.mcp_servers ?? {}, name)) {
      issues.push({ file: firstSource(sources, `remote_tools.${name}`), key: `remote_tools.${name}`, message: `[remote_tools.${name}] and [mcp_servers.${name}] share a name, and each becomes the toolset \`${name}\`; rename one.` });
    }
  }
  if (issues.length) throw new ConfigError(issues);
  const origin = (name: string): EnvelopeOrigin => {
    const src = firstSource(sources, `envelopes.${name}`).replace(/ \[agents\.[^\]]*\]$/, '');
    return src === BUILTIN ? 'built-in' : src === project.file ? 'project' : 'user';
  };
  return {
    data: cfg,
    sources,
    files: layers.map(([f]) => f),
    agent,
    agents: known,
    envelopes,
    defaultEnvelope,
    project,
    origin,
    shownName: (name) => (origin(name) === 'project' ? `${name} (project)` : name),
    envelope(name = defaultEnvelope) {
      let e = compiled.get(name);
      if (!e) {
        const r = resolved.get(name);
        if (!r) return buildEnvelope(name, envelopes, FLOOR_RULES); // throws the unknown-envelope error
        e = compileEnvelope(r);
        compiled.set(name, e);
      }
      return e;
    },
  };
}

/**
 * What a trusted project's own file may not do: redefine an envelope cxl ships (a project adds
 * its own under a new name), turn a command sandbox off, pass more of the person's environment to
 * commands (shell.env), or set [trust] (the person's file only).
 */
function projectLimits(file: string, layer: ConfigData, allow: ProjectAllowances): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (layer.trust) issues.push({ file, key: 'trust', message: '[trust] says what a project may change, so only your own ~/.contenox/agents.toml can set it; remove it from the project.' });
  const sections: [string, ConfigData][] = [['', layer], ...Object.entries(layer.agents ?? {}).map(([a, d]): [string, ConfigData] => [`agents.${a}.`, d])];
  for (const [prefix, data] of sections) {
    for (const [name, spec] of Object.entries(data.envelopes ?? {})) {
      if (Object.hasOwn(SHIPPED_ENVELOPES, name)) {
        issues.push({ file, key: `${prefix}envelopes.${name}`, message: `a project cannot redefine the shipped envelope \`${name}\`; add its own under a new name instead (e.g. [envelopes.project-${name}] with extends = "${name}").` });
      }
      if (spec.shell?.env?.length) {
        issues.push({ file, key: `${prefix}envelopes.${name}.shell.env`, message: "a project cannot pass more of your environment to commands; list the variables under shell.env of an envelope in your own ~/.contenox/agents.toml." });
      }
      if (spec.shell?.sandbox === 'off' && !allow.projects_may_disable_sandbox) {
        issues.push({ file, key: `${prefix}envelopes.${name}.shell.sandbox`, message: 'a project cannot turn the command sandbox off. If you want to let it, set projects_may_disable_sandbox = true under [trust] in your own ~/.contenox/agents.toml.' });
      }
    }
  }
  return issues;
}

function firstSource(sources: Sources, prefix: string): string {
  for (const [k, v] of sources) if (k === prefix || k.startsWith(`${prefix}.`)) return v;
  return BUILTIN;
}
