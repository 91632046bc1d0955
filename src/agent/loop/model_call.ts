// The model-call step `cxl acp` and `cxl run` share: offer the session's tools, run the tool loop
// (turn.ts) on a context whose compactions make the tools forget what the model can no longer
// see, check each call the model makes (its arguments parsed, its tool found) and run it through
// the gate, end the turn after a call that asks to, put a provider failure in words the user can
// act on, and count the run's token use. What a driver shows of it (ACP updates, progress lines)
// it does in the callbacks; nothing here knows ACP or a terminal.
import { isToolError, toToolError, ToolError } from '../../core/errors.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { ContextHooks, SessionContext, UsageReport } from '../context/session_context.ts';
import { howToConfigure } from '../providers/select.ts';
import type { ChatMessage, ModelToolCall, Provider, ProviderError, ToolDefinition } from '../providers/types.ts';
import type { CallHooks, ToolOutput, SessionTools } from '../tools/contract.ts';
import { modelName, resolveTool } from '../tools/tool_names.ts';
import { runTurn, type StopReason } from './turn.ts';

/** The tools as the model is offered them. */
export function toolDefinitions(tools: SessionTools): ToolDefinition[] {
  return tools.specs().map((t) => ({ name: modelName(t), description: t.description, parameters: t.inputSchema }));
}

/** A session's context budget whose compactions reach the tools: a file no longer visible must be read again before a write. */
export function sessionContext(newContext: (hooks: ContextHooks) => SessionContext, tools: SessionTools, report: Omit<ContextHooks, 'forget'>): SessionContext {
  return newContext({ ...report, forget: (paths) => tools.forgetReads(paths) });
}

/** One call as the model (or a direct command) made it, checked before anything runs. */
export type CheckedCall = {
  name: string;
  args: Record<string, unknown>;
  /** what a client is shown as the call's input: the raw text when it did not parse */
  rawInput: Record<string, unknown>;
} & (
  | { spec: ToolSpec; error?: undefined }
  /** the arguments are no JSON object, or there is no such tool (then no spec) */
  | { spec?: ToolSpec; error: ToolError }
);

function parseArgs(name: string, raw: string): { args: Record<string, unknown> } | { error: ToolError } {
  try {
    const parsed: unknown = raw.trim() ? JSON.parse(raw) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { args: parsed as Record<string, unknown> };
    return { error: new ToolError('bad_args', `The arguments of ${name} must be a JSON object; got ${raw.slice(0, 100)}. Call it again with an object.`) };
  } catch (err) {
    return { error: new ToolError('bad_args', `The arguments of ${name} are not valid JSON (${err instanceof Error ? err.message : String(err)}). Call it again with a JSON object.`) };
  }
}

/** Finds the tool and parses the arguments; arguments that do not parse are the first error, an unknown tool the next. */
export function checkCall(specs: ToolSpec[], name: string, rawArgs: string | Record<string, unknown>): CheckedCall {
  const spec = resolveTool(specs, name);
  const parsed = typeof rawArgs === 'string' ? parseArgs(name, rawArgs) : { args: rawArgs };
  if ('error' in parsed) return { name, spec, args: {}, rawInput: { raw: rawArgs }, error: parsed.error };
  if (!spec) return { name, args: parsed.args, rawInput: parsed.args, error: new ToolError('unknown_tool', `There is no tool \`${name}\`. Available: ${specs.map(modelName).join(', ')}.`) };
  return { name, spec, args: parsed.args, rawInput: parsed.args };
}

/** How a checked call ended, with the real paths whose content its result showed the model. */
export type CallRun<T> = { ok: true; value: T; reads: string[] } | { ok: false; error: ToolError; reads: string[]; crash?: string };

/**
 * Runs a checked call through the gate and hands its result to `use` (which reports it); a
 * failure of either is a ToolError (`cancelled` when the signal fired: `cancelledText` says so),
 * and one that is not a ToolError also comes back as `crash`, for the log.
 */
export async function runChecked<T>(
  tools: SessionTools,
  spec: ToolSpec,
  args: Record<string, unknown>,
  hooks: Omit<CallHooks, 'onLedger'>,
  cancelledText: string,
  use: (out: ToolOutput) => T | Promise<T>,
): Promise<CallRun<T>> {
  // the files whose content this result shows the model (a write_file's content is in its call)
  const reads: string[] = [];
  const onLedger = (p: string, how: 'read' | 'write') => {
    if ((how === 'read' || spec.name === 'write_file') && !reads.includes(p)) reads.push(p);
  };
  try {
    return { ok: true, value: await use(await tools.call(spec, args, { ...hooks, onLedger })), reads };
  } catch (err) {
    const aborted = hooks.signal.aborted;
    const error = aborted ? new ToolError('cancelled', cancelledText) : toToolError(err);
    const crash = !isToolError(err) && !aborted ? (err instanceof Error ? (err.stack ?? err.message) : String(err)) : undefined;
    return { ok: false, error, reads, ...(crash !== undefined ? { crash } : {}) };
  }
}

/** What the model reads back for one call, and whether the turn ends after its round. */
export interface CallOutcome {
  forModel: string;
  reads: string[];
  /** the user rejected the call and will say why in the next prompt: no more calls this turn */
  stop?: boolean;
}

/** The context and the token counts of a run. */
export interface RunUsage {
  /** the context at the last request, and the window */
  last?: UsageReport;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  compactions: number;
}

export interface ModelCallOptions {
  provider: Provider;
  /** the conversation, system prompt and new user message included; the loop appends to it */
  history: ChatMessage[];
  tools: SessionTools;
  /** tools the driver answers itself, offered beside the session's (the ACP agent's update_plan) */
  extraTools?: ToolDefinition[];
  context: SessionContext;
  maxTurns: number;
  signal: AbortSignal;
  onText(text: string): Promise<void>;
  onThought(text: string): Promise<void>;
  /** a request is being sent again (429, 5xx) */
  onNotice(text: string): void;
  /** the history grew (turn.ts says when); the session store appends what is new */
  checkpoint?: (c: { durable: boolean }) => Promise<void>;
  /** runs one call the model made and reports it the driver's way; never throws */
  runCall(call: ModelToolCall): Promise<CallOutcome>;
}

export interface ModelCallResult {
  stopReason: StopReason;
  /** the provider failure that ended the turn, in words the user can act on */
  error?: string;
  /** that failure as the provider raised it (a client already told why no model answers can say less) */
  failure?: ProviderError;
  usage: RunUsage;
}

/** A provider failure as the user reads it: how to set a model up when none answers. */
export function providerProblem(provider: Provider, e: ProviderError): string {
  // a server that answered with its models: the message lists them and says how to choose; no setup advice
  if (e.models?.length) return e.message;
  return e.kind === 'unreachable' || e.kind === 'model_not_found' ? howToConfigure(provider, e.message) : e.message;
}

const NOT_RUN = JSON.stringify({ code: 'rejected', error: 'Not run: the user rejected an earlier call of this turn.' });

/** Asks the model until it answers without tools, the turn limit is reached, or the turn is cancelled or stopped. */
export async function modelCall(o: ModelCallOptions): Promise<ModelCallResult> {
  let stopped = false;
  const res = await runTurn({
    provider: o.provider,
    history: o.history,
    tools: () => [...toolDefinitions(o.tools), ...(o.extraTools ?? [])],
    maxTurns: o.maxTurns,
    signal: o.signal,
    onText: o.onText,
    onThought: o.onThought,
    onNotice: o.onNotice,
    checkpoint: o.checkpoint,
    context: o.context,
    runTool: async (call) => {
      if (stopped) return NOT_RUN;
      const r = await o.runCall(call);
      if (r.stop) stopped = true;
      return { content: r.forModel, reads: r.reads };
    },
    shouldStop: () => stopped,
  });
  const usage: RunUsage = { last: o.context.last, ...o.context.totals };
  return { stopReason: res.stopReason, ...(res.error ? { error: providerProblem(o.provider, res.error), failure: res.error } : {}), usage };
}
