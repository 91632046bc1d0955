// One unattended prompt (`cxl run`): the shared model-call step (loop/model_call.ts) on
// workspace-backed tools with no approver, each call and compaction as a line on the progress
// stream, the model's last message as the answer, and the token use of the run.
import type { ToolError } from '../core/errors.ts';
import { describeCompaction } from './context/session_context.ts';
import { howToConfigure } from './providers/select.ts';
import type { ModelToolCall } from './providers/types.ts';
import type { AgentSetup } from './setup.ts';
import { callView } from './acp/tool_report.ts';
import type { SessionTools } from './tools/contract.ts';
import { checkCall, modelCall, runChecked, sessionContext, type CallOutcome, type RunUsage } from './loop/model_call.ts';
import type { StopReason } from './loop/turn.ts';

export type { RunUsage };

export interface UnattendedResult {
  answer: string;
  stopReason: StopReason;
  error?: string;
  usage?: RunUsage;
}

type Progress = (line: string) => void;

/** The line `cxl run` ends with on stderr. */
export function describeUsage(u: RunUsage): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const ctx = u.last ? `context ${u.last.real ? '' : '~'}${n(u.last.used)} of ${n(u.last.size)} tokens (${Math.round((100 * u.last.used) / u.last.size)}%)` : 'no model request';
  const counted = u.promptTokens || u.completionTokens ? `; ${n(u.promptTokens)} prompt + ${n(u.completionTokens)} completion tokens in all` : '; the server reported no token counts';
  return `${ctx}; ${u.requests} model request${u.requests === 1 ? '' : 's'}${u.requests ? counted : ''}${u.compactions ? `; ${u.compactions} compaction${u.compactions === 1 ? '' : 's'}` : ''}`;
}

/** One call the model made, as progress lines: `→ title`, then `✓ title` or `✗ title: code: message`. */
async function runCall(tools: SessionTools, call: ModelToolCall, signal: AbortSignal, progress: Progress): Promise<CallOutcome> {
  const checked = checkCall(tools.specs(), call.name, call.arguments);
  const { title } = callView(tools, checked.spec, call.name, checked.args);
  progress(`→ ${title}\n`);
  const failed = (e: ToolError, reads: string[]): CallOutcome => {
    progress(`✗ ${title}: ${e.code}: ${e.message}\n`);
    return { forModel: JSON.stringify(e.toJSON()), reads };
  };
  if (checked.error) return failed(checked.error, []);
  const r = await runChecked(tools, checked.spec, checked.args, { signal }, 'The run was stopped.', (out) => {
    progress(`✓ ${title}\n`);
    return out.forModel;
  });
  if (r.ok) return { forModel: r.value, reads: r.reads };
  if (r.crash !== undefined) progress(`cxl run: tool ${call.name} crashed: ${r.crash}\n`);
  return failed(r.error, r.reads);
}

export async function runUnattended(setup: AgentSetup, task: string, o: { signal: AbortSignal; progress: Progress }): Promise<UnattendedResult> {
  if (!setup.provider) return { answer: '', stopReason: 'end_turn', error: howToConfigure(undefined, setup.providerProblem ?? 'no model provider is configured.') };
  const tools = await setup.buildLocalTools(setup.defaultMode, (n) => o.progress(`cxl run: ${n}\n`));
  try {
    // text before a tool call is narration, not the answer: only the last message is
    let last = '';
    const context = sessionContext(setup.newContext, tools, {
      onUsage: () => {},
      onWarning: (text) => o.progress(`cxl run: ${text}\n`),
      onCompaction: (phase, r) => {
        if (phase === 'started') o.progress('cxl run: compacting the context: the model is summarising the older part…\n');
        else if (phase !== 'cancelled') o.progress(`cxl run: ${describeCompaction(r)}\n`);
      },
    });
    const res = await modelCall({
      provider: setup.provider,
      history: [
        { role: 'system', content: setup.systemPrompt(setup.cwd) },
        { role: 'user', content: task },
      ],
      tools,
      context,
      maxTurns: setup.maxTurns,
      signal: o.signal,
      onText: async (t) => {
        last += t;
      },
      onThought: async () => {},
      onNotice: (t) => o.progress(`cxl run: ${t}\n`),
      runCall: (call) => {
        if (last.trim()) o.progress(`${last.trim()}\n`);
        last = '';
        return runCall(tools, call, o.signal, o.progress);
      },
    });
    return { answer: last, stopReason: res.stopReason, ...(res.error !== undefined ? { error: res.error } : {}), usage: res.usage };
  } finally {
    await tools.close();
  }
}
