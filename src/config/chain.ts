// Chains: JSON files of tasks whose execute_config says which model, provider, tools and
// tools_policies a task runs with. String values may carry `{{var:NAME}}` templates, filled from
// config ([vars], model, provider) and flags; a template left unfilled is an error naming it.
import fs from 'node:fs';
import path from 'node:path';
import { CORE_TOOLSETS } from '../core/registry/builtin_toolsets.ts';
import { BUILTIN, ConfigError } from './load.ts';
import type { ConfigData, ToolsPolicies } from './schema.ts';
import { admitsToolset } from './toolset_list.ts';

export interface ExecuteConfig {
  model: string;
  provider: string;
  tools: string[];
  tools_policies?: ToolsPolicies & Record<string, Record<string, string>>;
}

export interface ChainTask {
  id: string;
  description?: string;
  system_prompt?: string;
  execute_config: ExecuteConfig;
}

export interface Chain {
  id: string;
  description?: string;
  tasks: ChainTask[];
}

/** What the model is told about its tools, once: the agent's system prompt carries it (agent/loop/system_prompt.ts). */
export const TOOL_PREFERENCE_ADDENDUM = `TOOL PREFERENCE
- To read, search, list or edit files, use the local_fs tools (read_file, read_file_range, grep,
  find_files, list_dir, stat_file, count_stats, edit_file, sed, write_file) rather than shell
  equivalents such as cat, head, grep, find, ls or sed -i. The local_fs tools enforce the
  workspace sandbox, the size limits and the read-before-write contract: read a file before you
  change it, and a change is refused if the file moved on since you read it.
- For git, use the git tools (git_status, git_diff, git_log, git_show, git_blame,
  git_branch_list, git_add, git_commit, git_checkout_branch, git_restore) rather than git in
  local_shell: they run in-process and never run programs a repository's config names.
- To query JSON, JSON Lines or YAML, use jq_query (a real jq, read-only) rather than jq in
  local_shell.
- In a Go module, the go_* tools answer where a symbol is declared and used, what implements
  an interface, and what the type checker and go vet say, without building anything.
- Use local_shell for what only a shell can do: running tests and builds, git operations the git
  tools do not offer (push, pull, merge), and inspecting the environment. A command may be refused
  by policy or need the user's approval; if so, adapt rather than retry the same line.`;

/** The built-in default chain: core's toolsets (core/registry/builtin_toolsets.ts), local_fs and local_shell with conservative limits. */
export const DEFAULT_CHAIN: Readonly<Chain> = Object.freeze({
  id: 'default',
  description: 'one agent task with the local file and shell tools, conservative limits',
  tasks: [
    {
      id: 'agent',
      execute_config: {
        model: '{{var:model}}',
        provider: '{{var:provider}}',
        tools: CORE_TOOLSETS.filter((t) => t.defaultChain).map((t) => t.name),
        tools_policies: Object.fromEntries(CORE_TOOLSETS.flatMap((t) => (t.defaultChain?.policy ? [[t.name, { ...t.defaultChain.policy }]] : []))),
      },
    },
  ],
});

const TASK_KEYS = ['id', 'description', 'system_prompt', 'execute_config'];
const EXEC_KEYS = ['model', 'provider', 'tools', 'tools_policies'];
const CHAIN_KEYS = ['id', 'description', 'tasks'];

function fail(file: string, message: string): never {
  throw new ConfigError([{ file, message }]);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the shape of a parsed chain. */
export function checkChain(file: string, doc: unknown): Chain {
  const problems: string[] = [];
  const unknown = (where: string, o: Record<string, unknown>, valid: string[]) => {
    for (const k of Object.keys(o)) if (!valid.includes(k)) problems.push(`${where}: unknown key \`${k}\`; valid keys: ${valid.join(', ')}.`);
  };
  if (!isObj(doc)) fail(file, 'a chain must be a JSON object with `tasks`.');
  const reserved = (v: unknown, where: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => reserved(x, `${where}[${i}]`));
    else if (isObj(v)) {
      for (const k of Object.keys(v)) {
        if (k === '__proto__' || k === 'constructor' || k === 'prototype') problems.push(`${where || 'chain'}: \`${k}\` is a reserved name and cannot be a key.`);
        else reserved(v[k], where ? `${where}.${k}` : k);
      }
    }
  };
  reserved(doc, '');
  if (problems.length) throw new ConfigError(problems.map((message) => ({ file, message })));
  unknown('chain', doc, CHAIN_KEYS);
  if (!Array.isArray(doc.tasks) || doc.tasks.length === 0) fail(file, '`tasks` must be a non-empty array of tasks.');
  doc.tasks.forEach((t: unknown, i: number) => {
    const where = `tasks[${i}]`;
    if (!isObj(t)) {
      problems.push(`${where} must be an object.`);
      return;
    }
    unknown(where, t, TASK_KEYS);
    if (typeof t.id !== 'string' || !t.id) problems.push(`${where}.id must be a non-empty string.`);
    for (const k of ['description', 'system_prompt']) if (t[k] !== undefined && typeof t[k] !== 'string') problems.push(`${where}.${k} must be a string.`);
    const ec = t.execute_config;
    if (!isObj(ec)) {
      problems.push(`${where}.execute_config must be an object {model, provider, tools, tools_policies}.`);
      return;
    }
    unknown(`${where}.execute_config`, ec, EXEC_KEYS);
    for (const k of ['model', 'provider']) if (typeof ec[k] !== 'string') problems.push(`${where}.execute_config.${k} must be a string.`);
    if (!Array.isArray(ec.tools) || !ec.tools.every((x) => typeof x === 'string')) problems.push(`${where}.execute_config.tools must be an array of toolset names.`);
    if (ec.tools_policies !== undefined) {
      if (!isObj(ec.tools_policies)) problems.push(`${where}.execute_config.tools_policies must be an object of toolset → {key: "value"}.`);
      else {
        for (const [ts, pol] of Object.entries(ec.tools_policies)) {
          if (!isObj(pol)) problems.push(`${where}.execute_config.tools_policies.${ts} must be an object of string values.`);
          else for (const [k, v] of Object.entries(pol)) if (typeof v !== 'string') problems.push(`${where}.execute_config.tools_policies.${ts}.${k} must be a string (values are strings, even numbers).`);
        }
      }
    }
  });
  if (problems.length) throw new ConfigError(problems.map((message) => ({ file, message })));
  return doc as unknown as Chain;
}

export function readChainFile(file: string): Chain {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return fail(file, `cannot read the chain: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return fail(file, `malformed JSON: ${(err as Error).message}`);
  }
  return checkChain(file, doc);
}

const TEMPLATE = /\{\{\s*var:([A-Za-z0-9_.-]+)\s*\}\}/g;

/** The vars a config provides: [vars], plus model and provider; flags override. */
export function chainVars(config: ConfigData, flags: Record<string, string> = {}): Record<string, string> {
  const vars: Record<string, string> = {};
  if (config.model !== undefined) vars.model = config.model;
  if (config.provider !== undefined) vars.provider = config.provider;
  Object.assign(vars, config.vars ?? {}, flags);
  return vars;
}

/** Fills every `{{var:NAME}}` of the chain; throws naming each template that has no value. */
export function fillChain(chain: Chain, vars: Record<string, string>, file = `chain ${chain.id}`): Chain {
  const missing: string[] = [];
  const fill = (v: unknown, where: string): unknown => {
    if (typeof v === 'string') {
      return v.replace(TEMPLATE, (m, name: string) => {
        if (Object.hasOwn(vars, name)) return vars[name];
        missing.push(`${where}: template {{var:${name}}} has no value; set ${name} under [vars] in agents.toml or pass --var ${name}=VALUE.`);
        return m;
      });
    }
    if (Array.isArray(v)) return v.map((x, i) => fill(x, `${where}[${i}]`));
    if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, `${where}.${k}`)]));
    return v;
  };
  const out = {
    ...chain,
    tasks: chain.tasks.map((t, i) => fill(t, `tasks[${i}] (${t.id})`) as ChainTask),
  };
  if (missing.length) throw new ConfigError(missing.map((message) => ({ file, message })));
  return out;
}

/**
 * The tools_policies a task runs with: the task's own values, overridden key by key by
 * agents.toml ([tools_policies.*] at every level), so the file a human reviews has the last word.
 * Returns the values and where each came from.
 */
export function taskPolicies(
  task: ChainTask,
  config: ConfigData,
  sources: Map<string, string>,
  chainLabel: string,
): { policies: Record<string, Record<string, string>>; from: Map<string, string> } {
  const policies: Record<string, Record<string, string>> = {};
  const from = new Map<string, string>();
  for (const [ts, vals] of Object.entries(task.execute_config.tools_policies ?? {})) {
    policies[ts] = { ...vals };
    for (const k of Object.keys(vals)) from.set(`${ts}.${k}`, `${chainLabel} task ${task.id}`);
  }
  for (const [ts, vals] of Object.entries(config.tools_policies ?? {}) as [string, Record<string, string>][]) {
    policies[ts] = { ...(policies[ts] ?? {}), ...vals };
    for (const k of Object.keys(vals)) from.set(`${ts}.${k}`, sources.get(`tools_policies.${ts}.${k}`) ?? 'agents.toml');
  }
  return { policies, from };
}

/**
 * The chain the config names (`chain = "file.json"`, relative to the file that set it), else the
 * default. A chain a project's file names must keep local_shell under a command policy (no
 * policy means the line goes to `/bin/sh -c`) unless the person's own file allows projects to
 * drop it (`[trust] projects_may_drop_command_policy`).
 */
export function loadChain(config: ConfigData, sources: Map<string, string>, flags: { chain?: string; vars?: Record<string, string>; projectFile?: string } = {}): { chain: Chain; label: string } {
  let file = flags.chain;
  const setBy = sources.get('chain')?.replace(/ \[agents\.[^\]]*\]$/, '');
  if (file === undefined && config.chain !== undefined) {
    file = setBy && setBy !== BUILTIN ? path.resolve(path.dirname(setBy), config.chain) : config.chain;
  }
  const raw = file === undefined ? (structuredClone(DEFAULT_CHAIN) as Chain) : readChainFile(file);
  const label = file ?? 'built-in default chain';
  const chain = fillChain(raw, chainVars(config, flags.vars), label);
  // agents.toml's `tools` is the file a human reviews: it replaces every task's list
  if (config.tools) for (const task of chain.tasks) task.execute_config.tools = [...config.tools];
  const toolsBy = sources.get('tools')?.replace(/ \[agents\.[^\]]*\]$/, '');
  const byProject = (flags.chain === undefined && setBy !== undefined && setBy === flags.projectFile) || (toolsBy !== undefined && toolsBy === flags.projectFile);
  if (byProject && !config.trust?.projects_may_drop_command_policy) keepsCommandPolicy(chain, config, flags.projectFile!);
  return { chain, label };
}

function keepsCommandPolicy(chain: Chain, config: ConfigData, file: string): void {
  const fromConfig = Object.keys(config.tools_policies?.local_shell ?? {}).length > 0;
  for (const task of chain.tasks) {
    if (!admitsToolset(task.execute_config.tools, 'local_shell') || fromConfig) continue;
    if (Object.keys(task.execute_config.tools_policies?.local_shell ?? {}).length > 0) continue;
    throw new ConfigError([{ file, key: 'chain', message: `the project's chain runs local_shell in task \`${task.id}\` with no command policy, which a project may not do. Give the task tools_policies.local_shell, or set projects_may_drop_command_policy = true under [trust] in your own ~/.contenox/agents.toml.` }]);
  }
}
