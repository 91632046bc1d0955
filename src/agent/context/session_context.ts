// One session's context budget: knows the window, estimates each request before it goes out,
// compacts when it would pass the threshold (compaction.ts has the rules), learns from the
// server's real counts, notices when Ollama read far less than was sent, and reports usage and
// compactions through hooks (ACP updates for `cxl acp`, stderr lines for `cxl run`).
import { DEFAULT_TOKENS_PER_CHAR, type TokenMeter } from './tokens.ts';
import { elideOldResults, latestRoundStart, mechanicalSummary, pathsToForget, replaceWithSummary, summaryCut, writeSummary } from './compaction.ts';
import { MIN_CONTEXT_WINDOW, type WindowChoice } from './window.ts';
import { type ChatMessage, type Provider, ProviderError, type ToolDefinition, type Usage } from '../providers/types.ts';
import { untilAborted } from '../../core/abortable.ts';

/** The default share of the window at which a request is compacted first. */
export const DEFAULT_COMPACT_THRESHOLD = 0.7;

/** An older part smaller than this (estimated tokens) is not sent to be summarised: a summary, its header alone ~40 tokens, would not be shorter. */
export const MIN_SUMMARISED_TOKENS = 150;

export type CompactionTrigger = 'auto' | 'manual' | 'too_long';

export type CompactionPhase = 'started' | 'completed' | 'failed' | 'cancelled';

/** One compaction, as saved with the session and shown to the client. */
export interface CompactionRecord {
  compactionId: string;
  at: string;
  trigger: CompactionTrigger;
  tokensBefore: number;
  tokensAfter: number;
  /** tool results replaced by stubs */
  elided: number;
  /** messages replaced by the summary */
  summarised: number;
  summary?: string;
  /** results of the latest round cut to fit */
  cut: number;
  /** files the read-before-write ledger forgot */
  forgotten: number;
  /** why the summary was written without the model, when it was */
  note?: string;
  /** why a summary was written but not applied (it would not have made the history shorter) */
  summaryDropped?: string;
}

export interface UsageReport {
  used: number;
  size: number;
  /** counted by the server, not estimated */
  real: boolean;
}

export interface ContextHooks {
  /** the read ledger forgets these real paths */
  forget(paths: string[]): void;
  onUsage(u: UsageReport): Promise<void> | void;
  /**
   * `started` comes only before a summary (a model request). A compaction that changed the
   * history ends `completed`; one that started and changed nothing ends `failed` (its summary
   * was not applied: `summaryDropped` says why) or `cancelled` (cancelled mid-summary).
   */
  onCompaction(phase: CompactionPhase, r: CompactionRecord): Promise<void> | void;
  onWarning(text: string): Promise<void> | void;
}

export interface ContextOptions extends ContextHooks {
  provider: Provider | null;
  /** resolved once per provider (its model), on first use */
  window: (provider?: Provider | null) => Promise<WindowChoice>;
  /** shared by the sessions of one provider: its calibration is the provider's */
  meter: TokenMeter;
  /** share of the window (0.1–0.95) past which a request is compacted */
  threshold?: number;
}

/** Room kept for the answer: Ollama's num_ctx and most servers' limits count it. */
function answerRoom(window: number): number {
  return Math.min(4096, Math.floor(window * 0.25));
}

export class SessionContext {
  readonly totals = { requests: 0, promptTokens: 0, completionTokens: 0, compactions: 0 };
  last?: UsageReport;
  #window?: WindowChoice;
  #sentChars = 0;
  #forceNext = false;
  #warnedTruncation = false;
  #n = 0;
  /** the older part whose summary was not applied: the same part is not sent to the model again */
  #dropped: { first: ChatMessage; last: ChatMessage; length: number } | undefined;
  readonly threshold: number;

  constructor(private o: ContextOptions) {
    this.threshold = o.threshold ?? DEFAULT_COMPACT_THRESHOLD;
  }

  /** The session asks another model now: its summaries are written by that one too. */
  useProvider(provider: Provider | null): void {
    this.o = { ...this.o, provider };
    // its window is its own: read again on next use
    this.#window = undefined;
  }

  /** `signal`: the turn waiting; a cancel ends the wait (the shared lookup runs on for others). */
  async window(signal?: AbortSignal): Promise<WindowChoice> {
    if (!this.#window) {
      const provider = this.o.provider;
      const w = await untilAborted(this.o.window(provider), signal);
      // a switch while it was read asks again
      if (provider !== this.o.provider) return this.window(signal);
      this.#window = w;
    }
    return this.#window;
  }

  /** the window in tokens, once known (Ollama's num_ctx) */
  windowTokens(): number | undefined {
    return this.#window?.tokens;
  }

  estimate(history: ChatMessage[], tools: ToolDefinition[]): number {
    return this.o.meter.estimate(history, tools);
  }

  /** Before a request: compacts when it would pass the threshold. */
  async prepare(history: ChatMessage[], tools: ToolDefinition[], signal?: AbortSignal): Promise<void> {
    const w = (await this.window(signal)).tokens;
    const est = this.estimate(history, tools);
    if (this.#forceNext || est > this.threshold * w) {
      this.#forceNext = false;
      await this.compact(history, tools, 'auto', signal);
    }
    this.#sentChars = this.o.meter.requestChars(history, tools);
    // nothing is reported before the request is answered: a request that fails (no server) must
    // not show a context use it never had
  }

  /** After a request (its answer already in `history`). */
  async observe(history: ChatMessage[], tools: ToolDefinition[], usage: Usage | undefined): Promise<void> {
    this.totals.requests++;
    const w = (await this.window()).tokens;
    if (!usage || !(usage.promptTokens > 0)) {
      await this.report({ used: this.estimate(history, tools), size: w, real: false });
      return;
    }
    this.totals.promptTokens += usage.promptTokens;
    this.totals.completionTokens += usage.completionTokens;
    const raw = Math.ceil(this.#sentChars * DEFAULT_TOKENS_PER_CHAR);
    if (this.o.provider?.name === 'ollama' && raw >= 2048 && usage.promptTokens < 0.5 * raw) {
      // Ollama drops the front of a prompt that does not fit num_ctx, and says nothing
      if (!this.#warnedTruncation) {
        this.#warnedTruncation = true;
        await this.o.onWarning(`ollama read only ${usage.promptTokens.toLocaleString('en-US')} tokens of a prompt of about ${raw.toLocaleString('en-US')}: it cut the front of the conversation (the system prompt and tool definitions go first) to fit the window it runs the model with. The next request is compacted to fit; if this repeats, lower context_window (or --context-window) to what the server really holds.`);
      }
      if (usage.promptTokens < w * 0.9) this.#window = { tokens: Math.max(MIN_CONTEXT_WINDOW, usage.promptTokens), source: 'what Ollama really read' };
      this.#forceNext = true;
    } else {
      this.o.meter.calibrate(usage.promptTokens, this.#sentChars);
    }
    await this.report({ used: usage.promptTokens + usage.completionTokens, size: (await this.window()).tokens, real: true });
  }

  /** The server refused the request as too long: learn what it said, compact harder. True when the next try is smaller. */
  async tooLong(history: ChatMessage[], tools: ToolDefinition[], err: ProviderError, signal?: AbortSignal): Promise<boolean> {
    const w = (await this.window(signal)).tokens;
    if (err.limit && err.limit < w) this.#window = { tokens: err.limit, source: 'the limit the server named when it refused a request' };
    if (err.promptTokens) this.o.meter.calibrate(err.promptTokens, this.#sentChars);
    const before = this.estimate(history, tools);
    const r = await this.compact(history, tools, 'too_long', signal);
    return !!r && r.tokensAfter < before;
  }

  /**
   * Compacts `history` in place: elision first, then (past the threshold, on request, or after a
   * refusal) a summary of the older part. Undefined when there was nothing to compact.
   */
  async compact(history: ChatMessage[], tools: ToolDefinition[], trigger: CompactionTrigger, signal?: AbortSignal): Promise<CompactionRecord | undefined> {
    const w = (await this.window(signal)).tokens;
    const meter = this.o.meter;
    const tokensOf = (m: ChatMessage) => meter.messageTokens(m);
    const before = this.estimate(history, tools);
    const threshold = this.threshold * w;
    const hard = trigger === 'too_long';
    const protect = latestRoundStart(history);
    const removed: ChatMessage[] = [];

    // 1. elide old tool results down to half the window (a margin, so this does not run at every request)
    const goal = Math.min(threshold, 0.5 * w) * (hard ? 0.8 : 1);
    const el = elideOldResults(history, protect, tokensOf, before - goal, trigger === 'manual');
    removed.push(...el.removed);

    // 2. still past the threshold: summarise the older part, keep the newest part verbatim
    let summarised = 0;
    let summary: string | undefined;
    let note: string | undefined;
    let summaryDropped: string | undefined;
    let started = false;
    let cut = 0;
    const id = `compaction-${Date.now().toString(36)}-${++this.#n}`;
    const record = (): CompactionRecord => ({
      compactionId: id,
      at: new Date().toISOString(),
      trigger,
      tokensBefore: before,
      tokensAfter: this.estimate(history, tools),
      elided: el.elided.length,
      summarised,
      ...(summary ? { summary } : {}),
      cut,
      forgotten: 0,
      ...(note ? { note } : {}),
      ...(summaryDropped ? { summaryDropped } : {}),
    });
    // stubs pile up in a long session: past 15% of the window they are summarised too, so the
    // history stays short in messages as well as in tokens
    let stubTokens = 0;
    for (let i = 1; i < protect; i++) if (history[i].role === 'tool' && (history[i] as { elided?: true }).elided) stubTokens += tokensOf(history[i]);
    if (trigger !== 'auto' || this.estimate(history, tools) > threshold || stubTokens > 0.15 * w) {
      // asked for: everything before the latest exchange; otherwise keep the newest 30% (20% after a refusal)
      const keep = trigger === 'manual' ? 0 : (trigger === 'auto' ? 0.3 : 0.2) * w;
      let at = summaryCut(history, keep, tokensOf, protect);
      if (trigger === 'manual' && at >= history.length) {
        let lastAsk = history.length - 1;
        while (lastAsk > 1 && !(history[lastAsk].role === 'user' && !(history[lastAsk] as { summary?: true }).summary)) lastAsk--;
        if (lastAsk > 1) at = lastAsk;
      }
      const older = history.slice(1, at);
      const onlyASummary = older.length === 1 && older[0].role === 'user' && older[0].summary;
      const d = this.#dropped;
      const triedAlready = d !== undefined && d.length === older.length && d.first === older[0] && d.last === older[older.length - 1];
      const olderTokens = older.reduce((n, m) => n + tokensOf(m), 0);
      if (older.length && !onlyASummary && !triedAlready && olderTokens >= MIN_SUMMARISED_TOKENS) {
        await this.o.onCompaction('started', record());
        started = true;
        const maxTokens = Math.min(2048, Math.floor(w * 0.2));
        try {
          if (!this.o.provider) throw new Error('no model is configured');
          summary = await writeSummary(this.o.provider, older, { inputChars: Math.floor((0.6 * w - maxTokens - 400) / meter.ratio), maxTokens, contextWindow: w, signal });
          if (!summary) note = 'the model answered with no text';
        } catch (err) {
          if (signal?.aborted) {
            // cancelled mid-summary: keep what was elided, leave the rest as it was
            if (removed.length) return this.finish(history, removed, record());
            await this.o.onCompaction('cancelled', record());
            return undefined;
          }
          note = err instanceof Error ? err.message : String(err);
        }
        if (!summary) summary = mechanicalSummary(older);
        // applied only when it makes the history shorter: a long answer about a short exchange
        // (a /compact early on) would grow the context it was meant to shrink
        const trial = history.slice();
        replaceWithSummary(trial, at, summary);
        const now = this.estimate(history, tools);
        const then = this.estimate(trial, tools);
        if (then < now) {
          removed.push(...replaceWithSummary(history, at, summary));
          summarised = older.length;
        } else {
          const n = older.length === 1 ? 'the earlier message' : `the ${older.length} earlier messages`;
          summaryDropped = `a summary of ${n} would not have been shorter (~${fmt(then - now + olderTokens)} tokens against ~${fmt(olderTokens)}), so ${older.length === 1 ? 'it was' : 'they were'} kept as ${older.length === 1 ? 'it was' : 'they were'}`;
          summary = undefined;
          note = undefined;
          this.#dropped = { first: older[0], last: older[older.length - 1], length: older.length };
        }
      }
    }

    // 3. the latest round alone is too big for the window: cut its largest results
    const limit = w - answerRoom(w);
    let est = this.estimate(history, tools);
    if (est > limit) {
      const round = latestRoundStart(history);
      const order = [...history.keys()].filter((i) => i >= round && history[i].role === 'tool').sort((a, b) => history[b].content.length - history[a].content.length);
      for (const i of order) {
        if (est <= limit) break;
        const m = history[i] as Extract<ChatMessage, { role: 'tool' }>;
        const excess = Math.ceil((est - limit) / meter.ratio) + 200;
        const keepChars = Math.max(200, m.content.length - excess);
        if (keepChars >= m.content.length) continue;
        const { reads: _r, ...rest } = m;
        removed.push(m);
        history[i] = { ...rest, content: `${m.content.slice(0, keepChars)}\n[cut to fit the context window: ${(m.content.length - keepChars).toLocaleString('en-US')} characters dropped. Ask for less at a time (a line range, a narrower search).]` };
        cut++;
        est = this.estimate(history, tools);
      }
    }
    if (!removed.length) {
      if (!started) return undefined;
      // the compaction the hooks saw start changed nothing (its summary was not applied)
      const r = record();
      await this.o.onCompaction('failed', r);
      return r;
    }
    return this.finish(history, removed, record());
  }

  private async finish(history: ChatMessage[], removed: ChatMessage[], r: CompactionRecord): Promise<CompactionRecord> {
    const forget = pathsToForget(removed, history);
    if (forget.length) this.o.forget(forget);
    const done: CompactionRecord = { ...r, forgotten: forget.length };
    this.totals.compactions++;
    await this.o.onCompaction('completed', done);
    const w = (await this.window()).tokens;
    await this.report({ used: done.tokensAfter, size: w, real: false });
    return done;
  }

  private async report(u: UsageReport): Promise<void> {
    this.last = u;
    await this.o.onUsage(u);
  }
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** One line for a person: what a compaction did. */
export function describeCompaction(r: CompactionRecord): string {
  const why = r.trigger === 'manual' ? '/compact' : r.trigger === 'too_long' ? 'the server refused the request as too long' : 'the context passed its threshold';
  if (!r.elided && !r.summarised && !r.cut && r.summaryDropped) return `Context not compacted (${why}): ${r.summaryDropped}.`;
  const parts: string[] = [];
  if (r.elided) parts.push(`elided ${r.elided} old tool result${r.elided === 1 ? '' : 's'}`);
  if (r.summarised) parts.push(`summarised ${r.summarised} earlier message${r.summarised === 1 ? '' : 's'}${r.note ? ` without the model (${r.note})` : ''}`);
  if (r.cut) parts.push(`cut ${r.cut} result${r.cut === 1 ? '' : 's'} that did not fit`);
  if (r.forgotten) parts.push(`${r.forgotten} file${r.forgotten === 1 ? '' : 's'} must be read again before a write`);
  if (r.summaryDropped) parts.push(`no summary: ${r.summaryDropped}`);
  return `Context compacted (${why}): ${r.tokensBefore.toLocaleString('en-US')} → ${r.tokensAfter.toLocaleString('en-US')} tokens; ${parts.join('; ') || 'nothing to do'}.`;
}
