// A session's tools behind the gate pipeline (src/core/gate/gate.ts): each call planned by its
// toolset → the envelope → an approval with the diff or the steps → run. Attached MCP tools skip
// tools_policies and meet only the envelope's tools patterns and default_action. A tool whose
// client capability is missing is refused before anything is asked.
import { plainOutput, schemaView } from '../../core/contract/schema_plan.ts';
import type { EffectRecorder, RunReports, Toolset } from '../../core/contract/toolset.ts';
import { withCeiling } from '../../core/envelope/index.ts';
import { Gate, type Approver } from '../../core/gate/gate.ts';
import { envelopeSandbox } from '../../core/shell/sandbox/settings.ts';
import type { ToolError } from '../../core/errors.ts';
import type { ReadLedger } from '../../core/local_fs/ledger.ts';
import type { SessionAllows } from '../../core/gate/session_allows.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { EffectiveConfig } from '../../config/load.ts';
import type { McpToolset } from './mcp.ts';
import type { CallHooks, SessionTools } from './contract.ts';

export interface SessionToolsOptions {
  toolsets: Toolset[];
  mcp: McpToolset[];
  config: EffectiveConfig;
  mode: string;
  /** a unit's ceiling (docs/missions.md, "The ceiling"): the envelope of the session whose model fired it */
  ceiling?: string;
  ledger: ReadLedger;
  allows: SessionAllows;
  /** the workspace root shell words resolve from when the command policy names no dir */
  root: string;
  /** false for `cxl -p`: nobody answers, so approve counts as deny at once */
  approvalsPossible: boolean;
  /** what such a refusal tells the model and the person to do instead */
  nobodyHint?: string;
  /** a capability the client lacks for this tool: refused before anything else is asked */
  missing?: (spec: ToolSpec) => ToolError | undefined;
  /** how long an ask waits when the envelope's rule names no timeout (an unattended unit's: 30 min) */
  askTimeoutMs?: number;
  /** the session's checkpoints: the gate records every call with effects through them */
  effects?: EffectRecorder;
}

// a call whose client gave no way to answer: an ask is a rejection the model reads
const nobody: Approver = async () => ({ outcome: 'reject', reason: 'nobody is there to answer' });

/** The call's own hooks as the gate hands them to the run (no slot shared between calls). */
function reportsOf(hooks: CallHooks): RunReports {
  const { onTerminal, onLedger } = hooks;
  return { ...(onTerminal ? { terminal: onTerminal } : {}), ...(onLedger ? { ledger: onLedger } : {}) };
}

export function createSessionTools(o: SessionToolsOptions): SessionTools {
  // a unit's calls are decided by its envelope and its ceiling both (the stricter wins)
  const envelopeOf = (mode: string) => (o.ceiling === undefined ? o.config.envelope(mode) : withCeiling(o.config.envelope(mode), o.config.envelope(o.ceiling)));
  const gate = new Gate({ envelope: envelopeOf(o.mode), session: o.allows, root: o.root, ...(o.effects ? { effects: o.effects } : {}), ...(o.askTimeoutMs !== undefined ? { defaultTimeoutMs: o.askTimeoutMs } : {}), ...(o.nobodyHint ? { nobodyHint: o.nobodyHint } : {}) });
  const all: Toolset[] = [...o.toolsets, ...o.mcp];
  for (const t of all) gate.add(t);
  const byName = (name: string) => all.find((t) => t.name === name);
  return {
    specs: () => all.flatMap((t) => t.list()),
    view: (spec, args) => byName(spec.toolset)?.view?.(spec.name, args) ?? schemaView(spec, args),
    setMode(m: string) {
      gate.envelope = envelopeOf(m);
    },
    envelope: () => gate.envelope,
    async call(spec, args, hooks) {
      const lacking = o.missing?.(spec);
      if (lacking) throw lacking;
      const approver = o.approvalsPossible ? (hooks.approve ?? nobody) : undefined;
      const r = await gate.call(`${spec.toolset}.${spec.name}`, args, { signal: hooks.signal, ...(approver ? { approver } : {}), ...(hooks.direct ? { direct: true as const } : {}), reports: reportsOf(hooks) });
      return byName(spec.toolset)?.output?.(spec.name, r.result) ?? plainOutput(r.result);
    },
    sandbox() {
      const { mode, network } = envelopeSandbox(gate.envelope.resolved.shell);
      const sandboxed = all.find((t) => t.sandboxState);
      return sandboxed?.sandboxState?.(mode, network) ?? { state: 'off' as const, reason: 'this session offers no local_shell' };
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
