// A session's tools behind the gate pipeline (src/core/gate/gate.ts): tools_policies and confinement →
// the envelope → an approval with the diff or the steps → run. Attached MCP tools skip
// tools_policies and meet only the envelope's tools patterns and default_action. A tool whose
// client capability is missing is refused before anything is asked.
import { Gate } from '../../core/gate/gate.ts';
import { LocalShell } from '../../core/shell/local_shell.ts';
import { envelopeSandbox } from '../../core/shell/sandbox/settings.ts';
import type { ToolError } from '../../core/errors.ts';
import type { ReadLedger } from '../../core/local_fs/ledger.ts';
import type { SessionAllows } from '../../core/gate/session_allows.ts';
import type { ToolSpec, Toolset } from '../../core/tool.ts';
import type { EffectiveConfig } from '../../config/load.ts';
import type { McpToolset } from './mcp.ts';
import type { CallHooks, SessionTools } from './contract.ts';

/** The hooks of the call running now (terminals and approvals reach it through here). */
export interface HookRef {
  current?: CallHooks;
}

export interface SessionToolsOptions {
  toolsets: Toolset[];
  mcp: McpToolset[];
  config: EffectiveConfig;
  mode: string;
  ledger: ReadLedger;
  allows: SessionAllows;
  hooks: HookRef;
  root: string;
  /** false for `cxl run`: nobody answers, so approve counts as deny */
  approvalsPossible: boolean;
  /** a capability the client lacks for this tool: refused before anything else is asked */
  missing?: (spec: ToolSpec) => ToolError | undefined;
  /** the gate, when the caller built it first (local_fs's read-approve hook needs it) */
  gate?: Gate;
}

export function makeGate(o: { config: EffectiveConfig; mode: string; allows: SessionAllows; hooks: HookRef; root: string; approvalsPossible: boolean }): Gate {
  return new Gate({
    envelope: o.config.envelope(o.mode),
    session: o.allows,
    root: o.root,
    ...(o.approvalsPossible
      ? {
          approver: async (req, signal) => {
            const approve = o.hooks.current?.approve;
            if (!approve) return { outcome: 'reject' as const, reason: 'nobody is there to answer' };
            return approve(req, signal);
          },
        }
      : {}),
  });
}

export function createSessionTools(o: SessionToolsOptions): SessionTools {
  const gate = o.gate ?? makeGate(o);
  for (const t of [...o.toolsets, ...o.mcp]) gate.add(t);
  o.ledger.onRecord = (p, how) => o.hooks.current?.onLedger?.(p, how);
  return {
    specs: () => [...o.toolsets.flatMap((t) => t.list()), ...o.mcp.flatMap((t) => t.list())],
    setMode(m: string) {
      gate.envelope = o.config.envelope(m);
    },
    async call(spec, args, hooks) {
      const lacking = o.missing?.(spec);
      if (lacking) throw lacking;
      o.hooks.current = hooks;
      try {
        const r = await gate.call(`${spec.toolset}.${spec.name}`, args, { signal: hooks.signal });
        return r.result;
      } finally {
        o.hooks.current = undefined;
      }
    },
    sandbox() {
      const sh = o.toolsets.find((t): t is LocalShell => t instanceof LocalShell);
      if (!sh) return { state: 'off' as const, reason: 'this session offers no local_shell' };
      const { mode, network } = envelopeSandbox(gate.envelope.resolved.shell);
      return sh.sandboxState(mode, network);
    },
    saveLedger: () => o.ledger.toJSON(),
    forgetReads(paths) {
      for (const p of paths) o.ledger.forget(p);
    },
    ledgerChanges: () => o.ledger.takeChanges(),
    saveAllows: () => gate.session.toJSON(),
    async close() {
      for (const m of o.mcp) await m.close();
    },
  };
}
