// A session's tools behind one gate: tools_policies (inside each toolset: path confinement and
// the command checker) → the envelope's decision → an approval with the diff or the steps → run.
// Attached MCP tools skip tools_policies and meet only the envelope's tools patterns and
// default_action.
import path from 'node:path';
import { buildApprovalDiff, type MutatingTool } from '../core/approval_diff.ts';
import { decide, type CallFacts, type CompiledEnvelope, type Decision } from '../core/envelope.ts';
import { ToolError } from '../core/errors.ts';
import type { ReadLedger } from '../core/ledger.ts';
import type { LocalFsToolset } from '../core/local_fs/toolset.ts';
import type { LocalShell } from '../core/shell/local_shell.ts';
import type { ToolSpec, Toolset } from '../core/tool.ts';
import type { EffectiveConfig } from '../config/load.ts';
import type { McpToolset } from './mcp.ts';
import type { ApprovalAnswer, ApprovalRequest, CallHooks, SessionTools } from './tools.ts';

/** The hooks of the call running now (terminals and read-approvals reach it through here). */
export interface HookRef {
  current?: CallHooks;
}

export interface SessionToolsOptions {
  toolsets: Toolset[];
  mcp: McpToolset[];
  fs?: LocalFsToolset;
  shell?: LocalShell;
  config: EffectiveConfig;
  mode: string;
  ledger: ReadLedger;
  hooks: HookRef;
  root: string;
  /** a capability the client lacks for this tool: refused before anything else is asked */
  missing?: (spec: ToolSpec) => ToolError | undefined;
}

const WRITE_TOOLS = new Set(['write_file', 'edit_file', 'sed']);
// programs whose first word is a subcommand: an allow for the session covers `git log`, not all of git
const SUBCOMMAND_PROGRAMS = new Set(['git', 'npm', 'npx', 'pnpm', 'yarn', 'cargo', 'go', 'deno', 'docker', 'kubectl', 'make', 'pip', 'pip3', 'python3', 'node', 'apt', 'brew', 'systemctl']);

function shellScope(argv: string[]): string {
  const prog = path.basename(argv[0] ?? '');
  const sub = argv[1];
  return SUBCOMMAND_PROGRAMS.has(prog) && sub && /^[A-Za-z0-9][\w.:-]*$/.test(sub) ? `${prog} ${sub}` : prog;
}

export function createSessionTools(o: SessionToolsOptions): SessionTools {
  let mode = o.mode;
  let envelope: CompiledEnvelope = o.config.envelope(mode);
  const notices: string[] = [];
  const byName = (name: string): Toolset | undefined => o.toolsets.find((t) => t.name === name) ?? o.mcp.find((t) => t.name === name);

  /** The facts the envelope decides on, after tools_policies had their say (they may throw). */
  async function facts(spec: ToolSpec, args: Record<string, unknown>): Promise<{ facts: CallFacts; diffFile?: Awaited<ReturnType<LocalFsToolset['resolve']>>; steps?: string[][] }> {
    const f: CallFacts = { toolset: spec.toolset, tool: spec.name };
    if (spec.toolset === 'local_fs' && o.fs) {
      const raw = typeof args.path === 'string' && args.path !== '' ? args.path : spec.name === 'list_dir' || spec.name === 'find_files' ? '.' : undefined;
      if (raw === undefined) return { facts: f }; // the tool itself reports the missing argument
      const c = await o.fs.resolve(spec.name, raw);
      f.paths = [c.requestedRel];
      f.resolved = [c.rel];
      return { facts: f, diffFile: c };
    }
    if (spec.toolset === 'local_shell' && o.shell) {
      const v = o.shell.check(args);
      if (v && v.verdict === 'refuse') {
        throw new ToolError('policy_refused', `Refused by the command policy: ${v.reason}`, { rule: v.rule, construct: v.construct, position: v.position, step: v.step });
      }
      const command = String(args.command ?? '');
      if (v) {
        const steps = v.steps.map((s) => s.argv);
        f.shell = { command, steps: steps.map((argv) => ({ argv })) };
        return { facts: f, steps };
      }
      // no policy: the line goes to the shell; the envelope sees its words as far as they can be read
      const words = command.trim().split(/\s+/).filter(Boolean);
      const argv = Array.isArray(args.args) ? [command, ...args.args.map(String)] : words;
      f.shell = { command, steps: [{ argv }], ...(Array.isArray(args.args) ? {} : /[|&;<>()$`\\"'*?[\]{}~\n]/.test(command) ? { opaque: 'shell syntax' } : {}) };
      return { facts: f, steps: [argv] };
    }
    return { facts: f };
  }

  async function ask(spec: ToolSpec, args: Record<string, unknown>, d: Decision, got: Awaited<ReturnType<typeof facts>>, hooks: CallHooks): Promise<void> {
    const scopes: string[] = [];
    let scopeLabel = '';
    const req: Omit<ApprovalRequest, 'scopes' | 'scopeLabel'> = { spec, args, rule: d.rule, reason: d.sentence };
    if (spec.toolset === 'local_fs' && got.diffFile) {
      const rel = got.diffFile.rel;
      scopes.push(`local_fs.${WRITE_TOOLS.has(spec.name) ? 'write' : 'read'}:${rel}`);
      scopeLabel = rel;
      if (WRITE_TOOLS.has(spec.name) && o.fs) {
        const ad = await buildApprovalDiff(o.fs.io, got.diffFile, spec.name as MutatingTool, args);
        if (ad.diff !== null && ad.newText !== undefined) req.diff = { path: got.diffFile.real, oldText: ad.isNew ? null : (ad.oldText ?? ''), newText: ad.newText, unified: ad.diff };
      }
    } else if (spec.toolset === 'local_shell' && got.steps) {
      req.steps = got.steps.map((a) => a.join(' '));
      for (const a of got.steps) if (a[0] !== 'cd') scopes.push(`local_shell:${shellScope(a)}`);
      scopeLabel = [...new Set(scopes.map((s) => s.slice('local_shell:'.length)))].join(', ');
    } else {
      scopes.push(`tool:${spec.toolset}.${spec.name}`);
      scopeLabel = `${spec.toolset}.${spec.name}`;
    }
    if (!hooks.approve) {
      throw new ToolError('approval_required', `${spec.toolset}.${spec.name} needs a human's approval (${d.sentence}), and nobody can answer here, so it counts as denied. Do without it, or run it in an interactive session.`);
    }
    let answer: ApprovalAnswer;
    try {
      answer = await hooks.approve({ ...req, scopes, scopeLabel: scopeLabel || spec.name });
    } catch (err) {
      throw new ToolError('rejected', `The approval request failed (${err instanceof Error ? err.message : String(err)}); not run.`);
    }
    if (answer === 'cancelled') throw new ToolError('cancelled', 'The approval was cancelled; not run.');
    if (answer === 'reject' || answer === 'reject_explain') throw new ToolError('rejected', `The user rejected ${spec.toolset}.${spec.name}. Do not retry it as is; ask or try another way.`);
  }

  return {
    specs: () => [...o.toolsets.flatMap((t) => t.list()), ...o.mcp.flatMap((t) => t.list())],
    setMode(m: string) {
      envelope = o.config.envelope(m);
      mode = m;
    },
    async call(spec, args, hooks) {
      const ts = byName(spec.toolset);
      if (!ts) throw new ToolError('unknown_tool', `No toolset ${spec.toolset} in this session.`);
      const lacking = o.missing?.(spec);
      if (lacking) throw lacking;
      o.hooks.current = hooks;
      try {
        const got = await facts(spec, args);
        const d = decide(envelope, got.facts);
        if (d.action === 'deny') {
          throw new ToolError('envelope_denied', `Denied by the session envelope \`${mode}\`: ${d.sentence}. Do without it, or ask the user to switch envelopes.`, { rule: d.rule, envelope: d.envelope });
        }
        if (d.action === 'approve') await ask(spec, args, d, got, hooks);
        if (hooks.signal.aborted) throw new ToolError('cancelled', 'Cancelled before it ran.');
        return await ts.call(spec.name, args, { signal: hooks.signal });
      } finally {
        o.hooks.current = undefined;
      }
    },
    saveLedger: () => o.ledger.toJSON(),
    notices: () => notices.splice(0),
    async close() {
      for (const m of o.mcp) await m.close();
    },
  };
}
