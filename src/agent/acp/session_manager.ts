// The agent's live sessions: made new, loaded from the store (replayed first) or resumed (not
// replayed), listed, found by id, cancelled, closed one at a time (session/close), deleted, and
// all saved and closed when the agent stops. Knows the client's capabilities from initialize,
// which decide how a session talks to it.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { isToolError } from '../../core/errors.ts';
import { canonicalRoot } from '../../core/paths.ts';
import { ADDITIONAL_DIRS_KEY, sessionAdditionalRoots } from './additional_dirs.ts';
import { META_UNATTENDED } from '../../core/protocol_names.ts';
import type { SessionLog, StoredSession } from '../sessions/store.ts';
import { BlobStore } from '../checkpoints/blob_store.ts';
import { CHECKPOINT_KEY } from '../checkpoints/recorder.ts';
import { ModelCatalog } from './config_options.ts';

/** The ids of the sessions unattended runs and mission units write (agent/units/unit.ts names them `run-…` after their mission). */
const UNIT_SESSION_PREFIX = 'run-';

/** How long a session's answer waits for the server's list of models (a client replays its saved model against it at once). */
const MODELS_WAIT_MS = 1000;
import { badAdditionalDirectory, badCursor, relativeCwd, sessionNotFound, sessionRefused, turnRunning } from './errors.ts';
import { replaySession } from './replay.ts';
import { openSession, type AgentOptions, type LiveSession, type SessionAnswer } from './session.ts';

/** Sessions per session/list page; a longer list ends with nextCursor. */
export const LIST_PAGE = 100;

/** A page's cursor names its last session (not a position), so a session added or removed meanwhile shifts nothing. */
function cursorOf(s: { sessionId: string; updatedAt: string }): string {
  return Buffer.from(JSON.stringify([s.updatedAt, s.sessionId])).toString('base64url');
}

/** Where the page after `cursor` starts in `all` (newest first, as the store lists them). */
function cursorIndex(all: ReadonlyArray<{ sessionId: string; updatedAt: string }>, cursor: string): number {
  let at: unknown;
  try {
    at = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor(cursor);
  }
  if (!Array.isArray(at) || typeof at[0] !== 'string' || typeof at[1] !== 'string') throw badCursor(cursor);
  const [updatedAt, sessionId] = at as [string, string];
  const same = all.findIndex((s) => s.sessionId === sessionId);
  if (same !== -1 && all[same].updatedAt === updatedAt) return same + 1;
  // that session changed or went: the page starts after where it stood (older than it was)
  const next = all.findIndex((s) => s.updatedAt < updatedAt);
  return next === -1 ? all.length : next;
}

/**
 * The client's additionalDirectories on this open, checked against the session's root and kept
 * with it. As the schema says, none given (absent or empty) is none: a client that does not name
 * a directory never finds the agent reaching it because an earlier client did. A refused
 * directory is -32602 naming it and why. True when the list kept with the session changed.
 */
function takeAdditional(stored: StoredSession, given: readonly string[] | null | undefined): boolean {
  const dirs = given ?? [];
  const was = JSON.stringify(stored.extras?.[ADDITIONAL_DIRS_KEY]);
  let root = stored.cwd;
  try {
    root = canonicalRoot(stored.cwd);
  } catch {
    // a cwd that does not exist is refused when the session opens, with its own reason
  }
  try {
    sessionAdditionalRoots(stored, root, dirs);
  } catch (err) {
    if (isToolError(err) && err.code === 'bad_path') throw badAdditionalDirectory(dirs, err.message);
    throw err;
  }
  return JSON.stringify(stored.extras?.[ADDITIONAL_DIRS_KEY]) !== was;
}

export class SessionManager {
  readonly #sessions = new Map<string, LiveSession>();
  /** what the client said it can do, on initialize */
  caps: acp.ClientCapabilities = {};
  /** the provider's models, listed once for every session */
  readonly #catalog: ModelCatalog;

  constructor(private readonly o: AgentOptions) {
    this.#catalog = new ModelCatalog(o.provider);
  }

  /**
   * What every session starts with, started once initialize is answered: the provider's model
   * list. A client asks for its session a round trip later (more when it is busy starting, as the
   * UI is); session/new then finds it asked for or in.
   */
  warm(): void {
    void this.#catalog.refresh();
  }

  /** The session, or the protocol's session-not-found. */
  get(sessionId: string): LiveSession {
    const s = this.#sessions.get(sessionId);
    if (!s) throw sessionNotFound(sessionId);
    return s;
  }

  /** A new stored session (session/new, session/fork) opened live; a broken project config refuses it with its message. */
  async #create(client: acp.AgentContext, stored: StoredSession, mcpServers: acp.McpServer[], caps: acp.ClientCapabilities): Promise<{ sessionId: string } & SessionAnswer> {
    try {
      const live = await this.#open(client, stored, mcpServers, () => this.o.store.create(stored), caps);
      return { sessionId: stored.sessionId, ...live.answer() };
    } catch (err) {
      if (isToolError(err)) throw sessionRefused(stored.cwd, err.message);
      throw err;
    }
  }

  async #open(client: acp.AgentContext, stored: StoredSession, mcpServers: acp.McpServer[], makeLog: () => Promise<SessionLog>, caps: acp.ClientCapabilities): Promise<LiveSession> {
    // the tools start meanwhile; a server slower than this is listed later (config_option_update)
    let timer: ReturnType<typeof setTimeout> | undefined;
    const listed = Promise.race([this.#catalog.refresh(), new Promise<void>((r) => (timer = setTimeout(r, MODELS_WAIT_MS)))]).finally(() => clearTimeout(timer));
    const live = await openSession(this.o, client, caps, stored, mcpServers, makeLog, this.#catalog);
    await listed;
    this.#sessions.set(stored.sessionId, live);
    live.announceSoon();
    return live;
  }

  /** `caps`: the capabilities of the client asking (a host's connections each have their own); default the one client's */
  async create(client: acp.AgentContext, params: acp.NewSessionRequest, caps = this.caps): Promise<SessionAnswer & { sessionId: string }> {
    if (!path.isAbsolute(params.cwd)) throw relativeCwd(params.cwd);
    const cwd = path.resolve(params.cwd);
    const now = new Date().toISOString();
    const stored: StoredSession = { version: 1, sessionId: randomUUID(), cwd, createdAt: now, updatedAt: now, mode: this.o.modesFor(cwd).current, history: [], replay: [], allows: [] };
    takeAdditional(stored, params.additionalDirectories);
    return this.#create(client, stored, params.mcpServers ?? [], caps);
  }

  /** The stored session replayed, then opened again (a live one of the same id is cancelled and its tools closed first). */
  load(client: acp.AgentContext, params: acp.LoadSessionRequest, caps = this.caps): Promise<SessionAnswer> {
    return this.#reopen(client, params, true, caps);
  }

  /** session/resume: the stored session opened again without replaying its history (the client has it). */
  resume(client: acp.AgentContext, params: acp.ResumeSessionRequest, caps = this.caps): Promise<SessionAnswer> {
    return this.#reopen(client, params, false, caps);
  }

  async #reopen(client: acp.AgentContext, params: { sessionId: string; cwd?: string | null; mcpServers?: acp.McpServer[] | null; additionalDirectories?: string[] }, replay: boolean, caps: acp.ClientCapabilities): Promise<SessionAnswer> {
    const old = this.#sessions.get(params.sessionId);
    if (old) {
      old.cancel();
      await old.tools.close();
    }
    // unanswered tool calls answered, compacted when it holds superseded lines (an open log of it closed first)
    const log = await this.o.store.open(params.sessionId);
    if (!log) throw sessionNotFound(params.sessionId);
    const stored = log.session;
    if (params.cwd && path.isAbsolute(params.cwd)) stored.cwd = path.resolve(params.cwd);
    let dirsChanged: boolean;
    try {
      dirsChanged = takeAdditional(stored, params.additionalDirectories);
    } catch (err) {
      await log.close();
      throw err;
    }
    // the whole history is replayed before the response
    if (replay) await replaySession(client, stored, caps);
    const known = this.o.modesFor(stored.cwd);
    if (!known.modes.some((m) => m.id === stored.mode)) stored.mode = known.current;
    let live: LiveSession;
    try {
      live = await this.#open(client, stored, params.mcpServers ?? [], async () => log, caps);
    } catch (err) {
      await log.close();
      // an additional directory kept with the session and refused now: said with what to do
      if (isToolError(err) && err.code === 'bad_path') throw sessionRefused(stored.cwd, err.message);
      throw err;
    }
    // saved now, not at the next prompt: session/list answers what the session was saved with
    if (dirsChanged) await live.persist();
    return live.answer();
  }

  /**
   * session/fork: a new session with this one's history, replay, reads, allows, model and
   * checkpoints (their kept content copied), opened under a new id; the original is left as it
   * was. A session open here is saved first, so the fork starts from what it shows now.
   */
  async fork(client: acp.AgentContext, params: { sessionId: string; cwd: string; mcpServers?: acp.McpServer[]; additionalDirectories?: string[] }, caps = this.caps): Promise<SessionAnswer & { sessionId: string }> {
    if (!path.isAbsolute(params.cwd)) throw relativeCwd(params.cwd);
    const open = this.#sessions.get(params.sessionId);
    let source: StoredSession | undefined;
    if (open) {
      if (open.turn) throw turnRunning();
      await open.persist({ durable: true, endOfTurn: true });
      source = open.stored;
    } else source = await this.o.store.load(params.sessionId);
    if (!source) throw sessionNotFound(params.sessionId);
    const now = new Date().toISOString();
    const cwd = path.resolve(params.cwd);
    // the source's damaged lines are the source's to report, not the fork's
    const { damagedLines: _skipped, ...copy } = structuredClone(source);
    const stored: StoredSession = { ...copy, sessionId: randomUUID(), cwd, createdAt: now, updatedAt: now, ...(source.title ? { title: `${source.title} (fork)` } : {}) };
    if (this.o.checkpointsDir) {
      // checkpoints name files relative to the session root: another root makes them meaningless
      if (cwd === source.cwd) new BlobStore(this.o.checkpointsDir, source.sessionId).copyTo(new BlobStore(this.o.checkpointsDir, stored.sessionId));
      else for (const k of Object.keys(stored.extras ?? {})) if (k.startsWith(CHECKPOINT_KEY)) delete stored.extras![k];
    }
    takeAdditional(stored, params.additionalDirectories);
    const known = this.o.modesFor(cwd);
    if (!known.modes.some((m) => m.id === stored.mode)) stored.mode = known.current;
    return this.#create(client, stored, params.mcpServers ?? [], caps);
  }

  /** Whether a session of this id is open here (a host closes a connection's sessions when it goes). */
  has(sessionId: string): boolean {
    return this.#sessions.has(sessionId);
  }

  /**
   * session/close: the running turn cancelled (given `graceMs` to wind down), the session saved,
   * its tools (MCP servers) stopped; it stays on disk to load later. Unknown ids are not found.
   */
  async close(sessionId: string, graceMs = 1000): Promise<void> {
    const s = this.get(sessionId);
    this.#sessions.delete(sessionId);
    s.cancel();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled([s.running]), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    await s.close();
    await s.tools.close();
  }

  /** session/delete: closed if it is open, then removed from the store (and so from session/list). */
  async delete(sessionId: string): Promise<void> {
    // a session never used leaves no file when it closes: deleting it is still done
    const open = this.#sessions.has(sessionId);
    if (open) await this.close(sessionId);
    if (!(await this.o.store.delete(sessionId)) && !open) throw sessionNotFound(sessionId);
    // its checkpoints go with it
    if (this.o.checkpointsDir) new BlobStore(this.o.checkpointsDir, sessionId).remove();
  }

  /** session/list: a page of the stored sessions, each with the additional directories it was saved with, as the client gave them (none kept: the field is left out, which the schema reads as none). */
  async list(params: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
    const all = await this.o.store.list(params.cwd ?? undefined);
    const from = params.cursor ? cursorIndex(all, params.cursor) : 0;
    const list = all.slice(from, from + LIST_PAGE);
    const more = from + LIST_PAGE < all.length;
    return { ...(more ? { nextCursor: cursorOf(list[list.length - 1]) } : {}), sessions: list.map((s) => ({ sessionId: s.sessionId, cwd: s.cwd, title: s.title ?? null, updatedAt: s.updatedAt, ...(s.additionalDirectories ? { additionalDirectories: s.additionalDirectories } : {}), ...(s.sessionId.startsWith(UNIT_SESSION_PREFIX) ? { _meta: { [META_UNATTENDED]: true } } : {}) })) };
  }

  cancel(sessionId: string): void {
    this.#sessions.get(sessionId)?.cancel();
  }

  /**
   * Every running turn cancelled (its model request aborted, its commands killed through the
   * client while it is there), then every session saved and closed. Turns get `graceMs` to wind
   * down; one that has not by then is saved as it stands, its unanswered calls marked cancelled.
   */
  async shutdown(graceMs = 1000): Promise<void> {
    const all = [...this.#sessions.values()];
    for (const s of all) s.cancel();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
    await Promise.race([Promise.allSettled(all.map((s) => s.running)), grace]);
    clearTimeout(timer);
    for (const s of all) await s.close();
  }
}
