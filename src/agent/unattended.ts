// One unattended prompt (`cxl run`): the tool loop on workspace-backed tools with no approver,
// tool-call progress and compactions as lines on a stream, the model's last message as the
// answer, and the token use of the run.
import { isToolError, toToolError, ToolError } from '../core/errors.ts';
import { describeCompaction, type UsageReport } from './context/session_context.ts';
import { howToConfigure } from './providers/select.ts';
import type { ChatMessage } from './providers/types.ts';
import type { AgentSetup } from './setup.ts';
import { callView } from './acp/tool_report.ts';
import { modelName, resolveTool } from './tools/tool_names.ts';
import { runTurn, type StopReason } from './loop/turn.ts';

export interface RunUsage {
  /** the context at the last request, and the window */
  last?: UsageReport;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  compactions: number;
}

export interface UnattendedResult {
  answer: string;
  stopReason: StopReason;
  error?: string;
  usage?: RunUsage;
}

/** The line `cxl run` ends with on stderr. */
export function describeUsage(u: RunUsage): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const ctx = u.last ? `context ${u.last.real ? '' : '~'}${n(u.last.used)} of ${n(u.last.size)} tokens (${Math.round((100 * u.last.used) / u.last.size)}%)` : 'no model request';
  const counted = u.promptTokens || u.completionTokens ? `; ${n(u.promptTokens)} prompt + ${n(u.completionTokens)} completion tokens in all` : '; the server reported no token counts';
  return `${ctx}; ${u.requests} model request${u.requests === 1 ? '' : 's'}${u.requests ? counted : ''}${u.compactions ? `; ${u.compactions} compaction${u.compactions === 1 ? '' : 's'}` : ''}`;
}

export async function runUnattended(setup: AgentSetup, task: string, o: { signal: AbortSignal; progress: (line: string) => void }): Promise<UnattendedResult> {
  if (!setup.provider) return { answer: '', stopReason: 'end_turn', error: howToConfigure(undefined, setup.providerProblem ?? 'no model provider is configured.') };
  const tools = await setup.buildLocalTools(setup.defaultMode, (n) => o.progress(`cxl run: ${n}\n`));
  try {
    const history: ChatMessage[] = [
      { role: 'system', content: setup.systemPrompt(setup.cwd) },
      { role: 'user', content: task },
    ];
    let last = '';
    let answer = '';
    const context = setup.newContext({
      forget: (paths) => tools.forgetReads(paths),
      onUsage: () => {},
      onWarning: (text) => o.progress(`cxl run: ${text}\n`),
      onCompaction: (phase, r) => {
        if (phase === 'started') o.progress('cxl run: compacting the context: the model is summarising the older part…\n');
        else if (phase !== 'cancelled') o.progress(`cxl run: ${describeCompaction(r)}\n`);
      },
    });
    const usage = (): RunUsage => ({ last: context.last, ...context.totals });
    const res = await runTurn({
      provider: setup.provider,
      history,
      tools: () => tools.specs().map((t) => ({ name: modelName(t), description: t.description, parameters: t.inputSchema })),
      maxTurns: setup.maxTurns,
      signal: o.signal,
      onText: async (t) => {
        last += t;
      },
      onThought: async () => {},
      onNotice: (t) => o.progress(`cxl run: ${t}\n`),
      context,
      runTool: async (call) => {
        // text before a tool call is narration, not the answer
        if (last.trim()) o.progress(`${last.trim()}\n`);
        last = '';
        const specs = tools.specs();
        const spec = resolveTool(specs, call.name);
        let args: Record<string, unknown> = {};
        let bad: ToolError | undefined;
        try {
          const parsed: unknown = call.arguments.trim() ? JSON.parse(call.arguments) : {};
          if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) bad = new ToolError('bad_args', `The arguments of ${call.name} must be a JSON object. Call it again with an object.`);
          else args = parsed as Record<string, unknown>;
        } catch (err) {
          bad = new ToolError('bad_args', `The arguments of ${call.name} are not valid JSON (${err instanceof Error ? err.message : String(err)}). Call it again with a JSON object.`);
        }
        const { title } = callView(tools, spec, call.name, args);
        o.progress(`→ ${title}\n`);
        if (!spec) bad = new ToolError('unknown_tool', `There is no tool \`${call.name}\`. Available: ${specs.map(modelName).join(', ')}.`);
        if (bad) {
          o.progress(`✗ ${title}: ${bad.code}: ${bad.message}\n`);
          return JSON.stringify(bad.toJSON());
        }
        const reads: string[] = [];
        const onLedger = (p: string, how: 'read' | 'write') => {
          if ((how === 'read' || spec!.name === 'write_file') && !reads.includes(p)) reads.push(p);
        };
        try {
          const out = (await tools.call(spec!, args, { signal: o.signal, onLedger })).forModel;
          o.progress(`✓ ${title}\n`);
          return { content: out, reads };
        } catch (err) {
          const te = o.signal.aborted ? new ToolError('cancelled', 'The run was stopped.') : toToolError(err);
          if (!isToolError(err) && !o.signal.aborted) o.progress(`cxl run: tool ${call.name} crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
          o.progress(`✗ ${title}: ${te.code}: ${te.message}\n`);
          return JSON.stringify(te.toJSON());
        }
      },
    });
    answer = last;
    if (res.error) {
      const e = res.error;
      return { answer, stopReason: res.stopReason, error: e.kind === 'unreachable' || e.kind === 'model_not_found' ? howToConfigure(setup.provider, e.message) : e.message, usage: usage() };
    }
    return { answer, stopReason: res.stopReason, usage: usage() };
  } finally {
    await tools.close();
  }
}
