// The keys of agents.toml and their types. A parsed TOML document is checked here and turned
// into a ConfigData in the engine's own shapes (bare grants become `{ grant }` tables, durations
// become milliseconds). Every problem is collected with its key path; nothing half-loads.
import { parseDuration } from '../core/duration.ts';
import { ENVELOPE_NAME, GRANTS, type EnvelopeRule, type EnvelopeSpec, type Grant, type GrantSpec, type PathAxisSpec, type ShellAxisSpec } from '../core/envelope/index.ts';
import { CORE_TOOLSETS } from '../core/registry/builtin_toolsets.ts';
import { SANDBOX_MODES, type SandboxMode } from '../core/shell/sandbox/settings.ts';
import { ENV_PATTERN } from '../core/shell/env.ts';
import { checkHeaders, checkRemoteTools, type RemoteToolSpec } from './remote_tools_schema.ts';
import { TOOLSET_ENTRY } from './toolset_list.ts';

export type { RemoteToolSpec };

export interface McpServerSpec {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  /** sent with every request to `url`; values may hold `{{env:NAME}}` */
  headers?: Record<string, string>;
}

/** A toolset's name → its tools_policies (the keys core/registry/builtin_toolsets.ts names). */
export type ToolsPolicies = Partial<Record<string, Record<string, string>>>;

/** One level of configuration, as validated. */
export interface ConfigData {
  default_envelope?: string;
  default_agent?: string;
  model?: string;
  provider?: string;
  chain?: string;
  /** the toolsets sessions offer (`*`, a name, `!name`); replaces the chain task's list */
  tools?: string[];
  vars?: Record<string, string>;
  tools_policies?: ToolsPolicies;
  envelopes?: Record<string, EnvelopeSpec>;
  mcp_servers?: Record<string, McpServerSpec>;
  remote_tools?: Record<string, RemoteToolSpec>;
  /** the model's context window in tokens, when the server does not say (or to use less) */
  context_window?: number;
  /** share of the window past which a request is compacted (default 0.7) */
  compact_threshold?: number;
  /** model-request timeouts, as written (durations; checked here, read by the agent setup) */
  connect_timeout?: string | number;
  first_byte_timeout?: string | number;
  idle_timeout?: string | number;
  /** the terminal UI's colours: `auto` (ask the terminal), `dark` or `light` */
  theme?: string;
  /** the memory file names tried in each folder, first found wins (default AGENTS.md, CLAUDE.md, GEMINI.md) */
  memory_files?: string[];
  agents?: Record<string, ConfigData>;
  /** the model writes tool calls as `<tool_call>` text its server does not parse (read them as calls) */
  inline_tool_calls?: boolean;
  /** the envelope `cxl run` and `cxl mission fire` use when no --envelope is given (docs/missions.md) */
  default_mission_envelope?: string;
  /** how many mission units may be open at once on this machine (default 8; 0: no cap) */
  fleet_max_parallel?: number;
  /** the bytes one session's checkpoints may keep (default 1073741824: 1 GiB); past it changes are made but not checkpointed */
  checkpoint_session_bytes?: number;
  /** the terminal UI, when an approval waits or a turn ends unseen: bell and desktop notification (auto), the bell alone, or off */
  notify?: NotifyConfig;
  /** the terminal UI keeps the terminal title on the session's state */
  terminal_title?: boolean;
  /** what a trusted project's configuration may do beyond the defaults (the user's own file only) */
  trust?: ProjectAllowances;
}

/** `[trust]`: what the person lets a trusted project's configuration change. */
export interface ProjectAllowances {
  /** a project envelope may set `shell.sandbox = "off"` */
  projects_may_disable_sandbox?: boolean;
  /** a project's chain may leave local_shell without a command policy */
  projects_may_drop_command_policy?: boolean;
}

/** The values of `notify` (the UI reads the same three, src/ui/notify.ts). */
export const NOTIFY_VALUES = ['auto', 'bell', 'off'] as const;
export type NotifyConfig = (typeof NOTIFY_VALUES)[number];

export const TRUST_KEYS = ['projects_may_disable_sandbox', 'projects_may_drop_command_policy'] as const;

export interface Problem {
  /** the key path the problem is about */
  path: string[];
  message: string;
}

type Obj = Record<string, unknown>;

const TOP_KEYS = ['default_envelope', 'default_agent', 'model', 'provider', 'chain', 'tools', 'vars', 'tools_policies', 'envelopes', 'mcp_servers', 'remote_tools', 'context_window', 'compact_threshold', 'connect_timeout', 'first_byte_timeout', 'idle_timeout', 'inline_tool_calls', 'theme', 'notify', 'terminal_title', 'default_mission_envelope', 'fleet_max_parallel', 'checkpoint_session_bytes', 'memory_files', 'agents', 'trust'];
const TIMEOUT_KEYS = ['connect_timeout', 'first_byte_timeout', 'idle_timeout'] as const;
const ENVELOPE_KEYS = ['extends', 'description', 'default_action', 'files', 'shell', 'missions', 'tools', 'always_deny', 'always_allow'];
const PATH_AXIS_KEYS = ['grant', 'timeout', 'on_timeout', 'deny_paths', 'approve_paths'];
const SHELL_AXIS_KEYS = ['grant', 'timeout', 'on_timeout', 'blacklist', 'prefix_allowlist', 'ask_always', 'substitution', 'sandbox', 'network', 'env'];
const GRANT_KEYS = ['grant', 'timeout', 'on_timeout'];
const MISSIONS_KEYS = ['fire', 'answer'];
const RULE_KEYS = ['tool', 'path', 'program', 'reason'];
const MCP_KEYS = ['command', 'args', 'env', 'url', 'headers'];
const POLICY_KEYS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(CORE_TOOLSETS.map((t) => [t.name, t.policyKeys]));

/** `*`, `<toolset>` or `<toolset>.<tool>` */
export const TOOL_PATTERN = /^(?:\*|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_.:-]+)?)$/;

const dotted = (path: string[]) => path.join('.');

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (v instanceof Date) return 'a date';
  if (typeof v === 'object') return 'a table';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a float';
  return `a ${typeof v}`;
}

function isTable(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

class Checker {
  readonly problems: Problem[] = [];

  fail(path: string[], message: string): undefined {
    this.problems.push({ path, message });
    return undefined;
  }

  wrongType(path: string[], expected: string, got: unknown): undefined {
    return this.fail(path, `\`${dotted(path)}\` must be ${expected}, got ${typeName(got)}${typeof got === 'string' || typeof got === 'number' ? ` (${JSON.stringify(got)})` : ''}.`);
  }

  /** Flags keys outside `valid`; returns whether the value is a table at all. */
  table(path: string[], v: unknown, valid: readonly string[], what: string): v is Obj {
    if (!isTable(v)) {
      this.wrongType(path, `a table (${what})`, v);
      return false;
    }
    for (const k of Object.keys(v)) {
      if (!valid.includes(k)) {
        this.fail([...path, k], `unknown key \`${k}\` in ${path.length ? `[${dotted(path)}]` : 'the top level'}; valid keys: ${valid.join(', ')}.`);
      }
    }
    return true;
  }

  str(path: string[], v: unknown): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return this.wrongType(path, 'a string', v);
    return v;
  }

  strList(path: string[], v: unknown): string[] | undefined {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) return this.wrongType(path, 'an array of strings', v);
    const out: string[] = [];
    v.forEach((x, i) => {
      if (typeof x !== 'string' || x.trim() === '') this.wrongType([...path, String(i)], 'a non-empty string', x);
      else out.push(x.trim());
    });
    return out;
  }

  duration(path: string[], v: unknown): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'number' && typeof v !== 'string') return this.wrongType(path, 'a duration (`30s`, `5m`, or seconds as a number)', v);
    const ms = parseDuration(v);
    if (ms === undefined) return this.fail(path, `\`${dotted(path)}\` = ${JSON.stringify(v)} is not a duration; write e.g. "30s", "5m", "1h" or a number of seconds.`);
    return ms;
  }

  /**
   * How long an ask waits: a duration, or "never" (an unattended unit's ask then waits for its
   * answer however long it takes; Infinity here).
   */
  askTimeout(path: string[], v: unknown): number | undefined {
    if (typeof v === 'string' && v.trim() === 'never') return Number.POSITIVE_INFINITY;
    return this.duration(path, v);
  }

  /** `on_timeout`: what an unanswered ask becomes; "deny" is the only verdict cxl lets time give. */
  onTimeout(path: string[], v: unknown): void {
    if (v === undefined || v === 'deny') return;
    this.fail(path, `\`${dotted(path)}\` = ${JSON.stringify(v)}: an ask nobody answers in time is denied, and "deny" is the only value; remove the key or write on_timeout = "deny".`);
  }

  grantWord(path: string[], v: unknown): Grant | undefined {
    if (typeof v !== 'string') return this.wrongType(path, `one of ${GRANTS.join(', ')}`, v);
    if (!(GRANTS as readonly string[]).includes(v)) return this.fail(path, `\`${dotted(path)}\` = ${JSON.stringify(v)} is not a grant; expected one of ${GRANTS.join(', ')}.`);
    return v as Grant;
  }

  /** `"approve"` or `{ grant = "approve", timeout = "30s" }` */
  grant(path: string[], v: unknown): GrantSpec | undefined {
    if (v === undefined) return undefined;
    if (typeof v === 'string') {
      const g = this.grantWord(path, v);
      return g ? { grant: g } : undefined;
    }
    if (!isTable(v)) return this.wrongType(path, `a grant (${GRANTS.join(' | ')}, or a table { grant, timeout })`, v);
    this.table(path, v, GRANT_KEYS, 'a grant');
    if (v.grant === undefined) return this.fail([...path, 'grant'], `\`${dotted(path)}\` is a table without \`grant\`; add grant = "allow" | "approve" | "deny".`);
    const g = this.grantWord([...path, 'grant'], v.grant);
    const t = this.askTimeout([...path, 'timeout'], v.timeout);
    this.onTimeout([...path, 'on_timeout'], v.on_timeout);
    if (!g) return undefined;
    return t === undefined ? { grant: g } : { grant: g, timeoutMs: t };
  }

  /**
   * What both axis kinds share: a bare grant word (`shell = "deny"`, which replaces the parent's
   * whole axis), or a table of `valid` keys whose `grant` and `timeout` are read here; the caller
   * reads its own keys when the result is not bare.
   */
  axis(path: string[], v: unknown, valid: readonly string[], what: string): (PathAxisSpec & ShellAxisSpec) | undefined {
    if (v === undefined) return undefined;
    if (typeof v === 'string') {
      const g = this.grantWord(path, v);
      return g ? { bare: true, grant: { grant: g } } : undefined;
    }
    if (!this.table(path, v, valid, what)) return undefined;
    const out: PathAxisSpec & ShellAxisSpec = {};
    if (v.grant !== undefined) {
      const g = this.grantWord([...path, 'grant'], v.grant);
      if (g) out.grant = { grant: g };
    }
    const t = this.askTimeout([...path, 'timeout'], v.timeout);
    if (t !== undefined) out.timeoutMs = t;
    this.onTimeout([...path, 'on_timeout'], v.on_timeout);
    return out;
  }

  pathAxis(path: string[], v: unknown): PathAxisSpec | undefined {
    const out = this.axis(path, v, PATH_AXIS_KEYS, 'an axis: grant, timeout, deny_paths, approve_paths');
    if (!out || out.bare) return out;
    const t = v as Obj;
    const d = this.strList([...path, 'deny_paths'], t.deny_paths);
    if (d) out.deny_paths = d;
    const ap = this.strList([...path, 'approve_paths'], t.approve_paths);
    if (ap) out.approve_paths = ap;
    return out;
  }

  shellAxis(path: string[], v: unknown): ShellAxisSpec | undefined {
    const out = this.axis(path, v, SHELL_AXIS_KEYS, 'the shell axis');
    if (!out || out.bare) return out;
    const t = v as Obj;
    for (const k of ['blacklist', 'prefix_allowlist', 'ask_always'] as const) {
      const l = this.strList([...path, k], t[k]);
      if (!l) continue;
      if (k !== 'prefix_allowlist') {
        const bad = l.find((x) => /\s/.test(x));
        if (bad !== undefined) {
          this.fail([...path, k], `\`${dotted([...path, k])}\` lists programs, and "${bad}" is not one; put a command prefix in prefix_allowlist, or name the program ("${bad.split(/\s+/)[0]}").`);
          continue;
        }
      }
      out[k] = l;
    }
    const s = this.grant([...path, 'substitution'], t.substitution);
    if (s) out.substitution = s;
    if (t.sandbox !== undefined) {
      if (typeof t.sandbox === 'string' && (SANDBOX_MODES as readonly string[]).includes(t.sandbox)) out.sandbox = t.sandbox as SandboxMode;
      else this.fail([...path, 'sandbox'], `\`${dotted([...path, 'sandbox'])}\` must be ${SANDBOX_MODES.map((m) => `"${m}"`).join(', ')}; got ${typeof t.sandbox === 'string' ? JSON.stringify(t.sandbox) : typeName(t.sandbox)}.`);
    }
    if (t.network !== undefined) {
      if (typeof t.network === 'boolean') out.network = t.network;
      else this.fail([...path, 'network'], `\`${dotted([...path, 'network'])}\` must be true or false; got ${typeName(t.network)}.`);
    }
    const env = this.strList([...path, 'env'], t.env);
    if (env) {
      const bad = env.find((x) => !ENV_PATTERN.test(x));
      if (bad !== undefined) this.fail([...path, 'env'], `\`${dotted([...path, 'env'])}\` lists environment variable names (or a prefix ending in *, such as "MYAPP_*"), and ${JSON.stringify(bad)} is not one.`);
      else out.env = env;
    }
    return out;
  }

  rules(path: string[], v: unknown): EnvelopeRule[] | undefined {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) return this.wrongType(path, 'an array of rules ({ tool, path, program, reason })', v);
    const out: EnvelopeRule[] = [];
    v.forEach((r, i) => {
      const p = [...path, String(i)];
      if (!this.table(p, r, RULE_KEYS, 'a rule: tool, path, program, reason')) return;
      let tool: string | string[] | undefined;
      if (r.tool === undefined) tool = '*';
      else if (typeof r.tool === 'string') tool = r.tool;
      else if (Array.isArray(r.tool) && r.tool.every((t) => typeof t === 'string')) tool = r.tool as string[];
      else this.wrongType([...p, 'tool'], 'a tool pattern or an array of them', r.tool);
      for (const t of tool === undefined ? [] : Array.isArray(tool) ? tool : [tool]) {
        if (!TOOL_PATTERN.test(t)) this.fail([...p, 'tool'], `\`${t}\` is not a tool pattern; write "*", "<toolset>" or "<toolset>.<tool>".`);
      }
      const rule: EnvelopeRule = { tool: tool ?? '*' };
      const pathGlob = this.str([...p, 'path'], r.path);
      if (pathGlob !== undefined) rule.path = pathGlob;
      const program = this.str([...p, 'program'], r.program);
      if (program !== undefined) rule.program = program;
      const reason = this.str([...p, 'reason'], r.reason);
      if (reason !== undefined) rule.reason = reason;
      if (rule.path === undefined && rule.program === undefined && rule.tool === '*') {
        this.fail(p, `rule ${i + 1} of \`${dotted(path)}\` names no path, no program and every tool; narrow it with path, program or tool.`);
      }
      out.push(rule);
    });
    return out;
  }

  envelope(path: string[], v: unknown): EnvelopeSpec | undefined {
    if (!this.table(path, v, ENVELOPE_KEYS, 'an envelope')) return undefined;
    const out: EnvelopeSpec = {};
    const ext = this.str([...path, 'extends'], v.extends);
    if (ext !== undefined) {
      if (!ENVELOPE_NAME.test(ext)) this.fail([...path, 'extends'], `\`extends = "${ext}"\` is not an envelope name (lower-case letters, digits, _ and -).`);
      else out.extends = ext;
    }
    const desc = this.str([...path, 'description'], v.description);
    if (desc !== undefined) out.description = desc;
    const da = this.grant([...path, 'default_action'], v.default_action);
    if (da) out.default_action = da;
    if (v.files !== undefined && this.table([...path, 'files'], v.files, ['read', 'write'], 'files.read and files.write')) {
      const files: NonNullable<EnvelopeSpec['files']> = {};
      const r = this.pathAxis([...path, 'files', 'read'], v.files.read);
      if (r) files.read = r;
      const w = this.pathAxis([...path, 'files', 'write'], v.files.write);
      if (w) files.write = w;
      out.files = files;
    }
    const sh = this.shellAxis([...path, 'shell'], v.shell);
    if (sh) out.shell = sh;
    if (v.missions !== undefined && this.table([...path, 'missions'], v.missions, MISSIONS_KEYS, 'missions.fire and missions.answer')) {
      const missions: NonNullable<EnvelopeSpec['missions']> = {};
      const f = this.grant([...path, 'missions', 'fire'], v.missions.fire);
      if (f) missions.fire = f;
      const a = this.grant([...path, 'missions', 'answer'], v.missions.answer);
      if (a) missions.answer = a;
      out.missions = missions;
    }
    if (v.tools !== undefined) {
      if (!isTable(v.tools)) this.wrongType([...path, 'tools'], 'a table of tool pattern = grant', v.tools);
      else {
        const tools: Record<string, GrantSpec> = {};
        for (const [pat, g] of Object.entries(v.tools)) {
          if (!TOOL_PATTERN.test(pat)) {
            this.fail([...path, 'tools', pat], `\`${pat}\` is not a tool pattern; write "*", "<toolset>" or "<toolset>.<tool>" (quote it: "github.create_issue" = "approve").`);
            continue;
          }
          const spec = this.grant([...path, 'tools', pat], g);
          if (spec) tools[pat] = spec;
        }
        out.tools = tools;
      }
    }
    const ad = this.rules([...path, 'always_deny'], v.always_deny);
    if (ad) out.always_deny = ad;
    const aa = this.rules([...path, 'always_allow'], v.always_allow);
    if (aa) out.always_allow = aa;
    return out;
  }

  policies(path: string[], v: unknown): ToolsPolicies | undefined {
    if (v === undefined) return undefined;
    if (!this.table(path, v, Object.keys(POLICY_KEYS), `tools_policies of ${Object.keys(POLICY_KEYS).join(', ')}`)) return undefined;
    const out: ToolsPolicies = {};
    for (const [toolset, keys] of Object.entries(POLICY_KEYS) as [string, readonly string[]][]) {
      const t = v[toolset];
      if (t === undefined) continue;
      if (!this.table([...path, toolset], t, keys, `the policy keys of ${toolset}`)) continue;
      const vals: Record<string, string> = {};
      for (const [k, x] of Object.entries(t)) {
        if (!keys.includes(k)) continue;
        // Policy values are strings (docs/local-fs.md, "tools_policies.local_fs"); integers and string lists are accepted and
        // stored as the strings they stand for.
        if (typeof x === 'string') vals[k] = x;
        else if (typeof x === 'number' && Number.isInteger(x)) vals[k] = String(x);
        else if (typeof x === 'boolean') vals[k] = String(x);
        else if (Array.isArray(x) && x.every((e) => typeof e === 'string')) vals[k] = x.join(',');
        else this.wrongType([...path, toolset, k], 'a string (numbers as strings, lists comma-separated)', x);
      }
      out[toolset] = vals;
    }
    return out;
  }

  mcpServers(path: string[], v: unknown): Record<string, McpServerSpec> | undefined {
    if (v === undefined) return undefined;
    if (!isTable(v)) return this.wrongType(path, 'a table of [mcp_servers.<name>]', v);
    const out: Record<string, McpServerSpec> = {};
    for (const [name, s] of Object.entries(v)) {
      const p = [...path, name];
      if (!/^[A-Za-z0-9_-]+$/.test(name)) {
        this.fail(p, `\`${name}\` is not a server name (letters, digits, _ and -); it becomes the toolset name of its tools.`);
        continue;
      }
      if (!this.table(p, s, MCP_KEYS, 'an MCP server: command, args, env, url, headers')) continue;
      const spec: McpServerSpec = {};
      const command = this.str([...p, 'command'], s.command);
      if (command !== undefined) spec.command = command;
      const args = this.strListAllowEmpty([...p, 'args'], s.args);
      if (args) spec.args = args;
      if (s.env !== undefined) {
        if (!isTable(s.env)) this.wrongType([...p, 'env'], 'a table of NAME = "value"', s.env);
        else {
          const env: Record<string, string> = {};
          for (const [k, x] of Object.entries(s.env)) {
            if (typeof x !== 'string') this.wrongType([...p, 'env', k], 'a string', x);
            else env[k] = x;
          }
          spec.env = env;
        }
      }
      const url = this.str([...p, 'url'], s.url);
      if (url !== undefined) spec.url = url;
      if (s.headers !== undefined) {
        const headers = checkHeaders(this, [...p, 'headers'], s.headers);
        if (s.url === undefined) this.fail([...p, 'headers'], `\`headers\` go with \`url\` (an HTTP server); a \`command\` server takes \`env\` instead.`);
        else if (headers) spec.headers = headers;
      }
      if (spec.command === undefined && spec.url === undefined && s.command === undefined && s.url === undefined) {
        this.fail(p, `[${dotted(p)}] needs \`command\` (a program to spawn) or \`url\` (an HTTP endpoint).`);
      }
      out[name] = spec;
    }
    return out;
  }

  /** context_window, compact_threshold and the model-request timeouts */
  modelRequests(path: string[], v: Obj, out: ConfigData): void {
    const cw = v.context_window;
    if (cw !== undefined) {
      const m = typeof cw === 'number' || typeof cw === 'string' ? /^(\d+)(k)?$/i.exec(String(cw).trim()) : null;
      const n = m ? Number(m[1]) * (m[2] ? 1024 : 1) : NaN;
      if (!Number.isSafeInteger(n) || n < 1024) this.fail([...path, 'context_window'], `\`context_window\` = ${JSON.stringify(cw)} is not a window size; write a whole number of tokens of at least 1024 (e.g. 32768, or "32k").`);
      else out.context_window = n;
    }
    const ct = v.compact_threshold;
    if (ct !== undefined) {
      if (typeof ct !== 'number' || !(ct >= 0.1 && ct <= 0.95)) this.fail([...path, 'compact_threshold'], `\`compact_threshold\` = ${JSON.stringify(ct)} must be a share of the window between 0.1 and 0.95 (default 0.7).`);
      else out.compact_threshold = ct;
    }
    for (const k of TIMEOUT_KEYS) {
      const ms = this.duration([...path, k], v[k]);
      if (ms !== undefined) out[k] = v[k] as string | number;
    }
  }

  strListAllowEmpty(path: string[], v: unknown): string[] | undefined {
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return this.wrongType(path, 'an array of strings', v);
    return v as string[];
  }

  data(path: string[], v: Obj, allowAgents: boolean): ConfigData {
    const keys = allowAgents ? TOP_KEYS : TOP_KEYS.filter((k) => k !== 'agents' && k !== 'trust');
    this.table(path, v, keys, allowAgents ? 'agents.toml' : 'an agent section');
    const out: ConfigData = {};
    for (const k of ['default_envelope', 'default_agent', 'model', 'provider', 'chain', 'default_mission_envelope'] as const) {
      const s = this.str([...path, k], v[k]);
      if (s !== undefined) out[k] = s;
    }
    const theme = this.str([...path, 'theme'], v.theme);
    if (theme !== undefined) {
      if (['auto', 'dark', 'light'].includes(theme)) out.theme = theme;
      else this.fail([...path, 'theme'], `\`theme = "${theme}"\` is not a theme: write "auto" (ask the terminal), "dark" or "light".`);
    }
    const memory = this.strListAllowEmpty([...path, 'memory_files'], v.memory_files);
    if (memory !== undefined) {
      const bad = memory.find((n) => !/^[^/\\\u0000]+$/.test(n) || n === '.' || n === '..');
      if (bad !== undefined) this.fail([...path, 'memory_files'], `\`memory_files\` names files, not paths: ${JSON.stringify(bad)} is not a file name (e.g. "AGENTS.md").`);
      else out.memory_files = memory;
    }
    for (const k of ['default_envelope', 'default_mission_envelope'] as const) {
      if (out[k] !== undefined && !ENVELOPE_NAME.test(out[k])) {
        this.fail([...path, k], `\`${k} = "${out[k]}"\` is not an envelope name (lower-case letters, digits, _ and -).`);
      }
    }
    if (v.fleet_max_parallel !== undefined) {
      const n = v.fleet_max_parallel;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) this.fail([...path, 'fleet_max_parallel'], `\`fleet_max_parallel\` = ${JSON.stringify(n)} must be a whole number of units (0: no cap; default 8).`);
      else out.fleet_max_parallel = n;
    }
    if (v.checkpoint_session_bytes !== undefined) {
      const n = v.checkpoint_session_bytes;
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) this.fail([...path, 'checkpoint_session_bytes'], `\`checkpoint_session_bytes\` = ${JSON.stringify(n)} must be a whole number of bytes, 1 or more (default 1073741824: 1 GiB).`);
      else out.checkpoint_session_bytes = n;
    }
    if (v.vars !== undefined) {
      if (!isTable(v.vars)) this.wrongType([...path, 'vars'], 'a table of NAME = "value"', v.vars);
      else {
        const vars: Record<string, string> = {};
        for (const [k, x] of Object.entries(v.vars)) {
          if (typeof x === 'string') vars[k] = x;
          else if (typeof x === 'number' || typeof x === 'boolean') vars[k] = String(x);
          else this.wrongType([...path, 'vars', k], 'a string', x);
        }
        out.vars = vars;
      }
    }
    const tools = this.strListAllowEmpty([...path, 'tools'], v.tools);
    if (tools) {
      const bad = tools.filter((t) => !TOOLSET_ENTRY.test(t));
      if (bad.length) this.fail([...path, 'tools'], `\`tools\` entries are "*", a toolset name or "!name" (one taken out); ${bad.map((b) => JSON.stringify(b)).join(', ')} ${bad.length > 1 ? 'are' : 'is'} none of these.`);
      else out.tools = tools;
    }
    const tp = this.policies([...path, 'tools_policies'], v.tools_policies);
    if (tp) out.tools_policies = tp;
    if (v.envelopes !== undefined) {
      if (!isTable(v.envelopes)) this.wrongType([...path, 'envelopes'], 'a table of [envelopes.<name>]', v.envelopes);
      else {
        const envs: Record<string, EnvelopeSpec> = {};
        for (const [name, e] of Object.entries(v.envelopes)) {
          if (!ENVELOPE_NAME.test(name)) {
            this.fail([...path, 'envelopes', name], `\`${name}\` is not an envelope name: use lower-case letters, digits, _ and -, starting with a letter or digit.`);
            continue;
          }
          const spec = this.envelope([...path, 'envelopes', name], e);
          if (spec) envs[name] = spec;
        }
        out.envelopes = envs;
      }
    }
    const mcp = this.mcpServers([...path, 'mcp_servers'], v.mcp_servers);
    if (mcp) out.mcp_servers = mcp;
    const remote = checkRemoteTools(this, [...path, 'remote_tools'], v.remote_tools);
    if (remote) out.remote_tools = remote;
    this.modelRequests(path, v, out);
    if (v.inline_tool_calls !== undefined) {
      if (typeof v.inline_tool_calls === 'boolean') out.inline_tool_calls = v.inline_tool_calls;
      else this.wrongType([...path, 'inline_tool_calls'], 'true or false', v.inline_tool_calls);
    }
    if (v.notify !== undefined) {
      if (typeof v.notify === 'string' && (NOTIFY_VALUES as readonly string[]).includes(v.notify)) out.notify = v.notify as NotifyConfig;
      else if (v.notify === false) out.notify = 'off';
      else this.wrongType([...path, 'notify'], `one of ${NOTIFY_VALUES.map((x) => `"${x}"`).join(', ')} (or false)`, v.notify);
    }
    if (v.terminal_title !== undefined) {
      if (typeof v.terminal_title === 'boolean') out.terminal_title = v.terminal_title;
      else this.wrongType([...path, 'terminal_title'], 'true or false', v.terminal_title);
    }
    if (allowAgents && v.trust !== undefined && this.table([...path, 'trust'], v.trust, TRUST_KEYS, 'what a trusted project may change')) {
      const t: ProjectAllowances = {};
      for (const k of TRUST_KEYS) {
        const x = (v.trust as Obj)[k];
        if (x === undefined) continue;
        if (typeof x === 'boolean') t[k] = x;
        else this.wrongType([...path, 'trust', k], 'true or false', x);
      }
      out.trust = t;
    }
    if (allowAgents && v.agents !== undefined) {
      if (!isTable(v.agents)) this.wrongType([...path, 'agents'], 'a table of [agents.<name>]', v.agents);
      else {
        const agents: Record<string, ConfigData> = {};
        for (const [name, a] of Object.entries(v.agents)) {
          if (!isTable(a)) {
            this.wrongType([...path, 'agents', name], 'a table (an agent section)', a);
            continue;
          }
          agents[name] = this.data([...path, 'agents', name], a, false);
        }
        out.agents = agents;
      }
    }
    return out;
  }
}

// Keys that would reach an object's prototype when copied into a plain object.
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

function reservedKeys(v: unknown, path: string[], out: Problem[]): void {
  if (Array.isArray(v)) v.forEach((x, i) => reservedKeys(x, [...path, String(i)], out));
  else if (isTable(v)) {
    for (const k of Object.keys(v)) {
      if (RESERVED.has(k)) out.push({ path: [...path, k], message: `\`${k}\` is a reserved name and cannot be a key (in ${path.length ? `[${dotted(path)}]` : 'the top level'}). Rename it.` });
      else reservedKeys(v[k], [...path, k], out);
    }
  }
}

/** Validates a parsed agents.toml document. */
export function checkConfig(doc: Record<string, unknown>): { data: ConfigData; problems: Problem[] } {
  const reserved: Problem[] = [];
  reservedKeys(doc, [], reserved);
  if (reserved.length) return { data: {}, problems: reserved };
  const c = new Checker();
  const data = c.data([], doc, true);
  return { data, problems: c.problems };
}
