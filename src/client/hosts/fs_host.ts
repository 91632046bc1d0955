// Serves the agent's fs/read_text_file and fs/write_text_file from this machine's disk, through
// the same confinement and credential quarantine as the local tools: nothing outside the session
// root and the additional directories the client gave the session, never a quarantined file, and the read-approve list (.env, keys) only after the user says
// so; a hard link counts as the file it links to.
import { Buffer } from 'node:buffer';
import { RequestError } from '@agentclientprotocol/sdk';
import { ToolError } from '../../core/errors.ts';
import { additionalRoots } from '../../core/local_fs/extra_roots.ts';
import { WorkspaceFileIO } from '../../core/local_fs/file_io.ts';
import { classifyConfined } from '../../core/protect/confined_class.ts';
import { IdentityIndex } from '../../core/protect/identity.ts';
import { canonicalRoot, confine, rootHolding, type ConfinedPath } from '../../core/paths.ts';
import { defaultPathMatcher } from '../../core/protect/matcher.ts';
import { lineRange } from './line_range.ts';

/**
 * Whole-file reads over this are refused, and so is a range whose text is: the agent should ask
 * for a (smaller) range with line/limit. Under the 32 MiB an ACP message may carry, with room
 * for JSON escaping.
 */
export const MAX_SERVED_READ_BYTES = 16 * 1024 * 1024;

/** The largest file a range is cut from (it is read whole to find the lines). */
export const MAX_RANGED_FILE_BYTES = 1024 * 1024 * 1024;

/** Asks the user whether the agent may read a read-approve file; true = allowed. */
export type AskRead = (rel: string) => Promise<boolean>;

/** JSON-RPC error for a refusal; `data.code` carries the stable ToolError code. */
export function toRequestError(err: unknown): RequestError {
  if (err instanceof RequestError) return err;
  // "Resource not found" is the ACP wording for -32002; agents match on it to tell a missing
  // file (a new file) from a failed read.
  if (err instanceof ToolError && err.code === 'not_found') return new RequestError(-32002, `Resource not found: ${err.message}`, { code: err.code });
  if (err instanceof ToolError) return new RequestError(-32603, err.message, { code: err.code });
  return RequestError.internalError(undefined, err instanceof Error ? err.message : String(err));
}

// The agent being served may run commands that make hard links where this process cannot see
// them (its own shell, another terminal), so the scans here are redone after a few seconds.
const IDENTITY_MAX_AGE_MS = 3000;

export class FsHost {
  readonly root: string;
  /** the session's additional directories, checked and canonical (none unless the client gives the agent some) */
  readonly extra: readonly string[];
  readonly #io: WorkspaceFileIO;
  readonly #ask: AskRead;
  readonly #identity = new IdentityIndex({ maxAgeMs: IDENTITY_MAX_AGE_MS });

  /** `extra`: the additional directories the session was given (absolute); each is checked as the agent checks it, a bad one throws `bad_path` with why. */
  constructor(root: string, ask: AskRead, extra: readonly string[] = []) {
    this.root = canonicalRoot(root);
    this.extra = extra.length ? additionalRoots(extra, { root: this.root }) : [];
    this.#io = new WorkspaceFileIO(this.root, this.extra);
    this.#ask = ask;
  }

  /** The path confined to the root, refused when quarantined; `readApprove`: only after the user says so. */
  #confine(p: string): { cp: ConfinedPath; readApprove: boolean } {
    const cp = confine(this.root, p, this.extra);
    const { cls, alias } = classifyConfined(cp, rootHolding(this.root, this.extra, cp.real), defaultPathMatcher, this.#identity);
    if (cls === 'quarantined') {
      const linked = alias !== undefined ? ` is another name (a hard link) of ${alias}, which` : '';
      throw new ToolError('quarantined', `${cp.rel}${linked} is in the credential quarantine; the client never serves it. Work without that file.`);
    }
    return { cp, readApprove: cls === 'read_approve' };
  }

  async readTextFile(p: string, line?: number | null, limit?: number | null): Promise<string> {
    try {
      const { cp, readApprove } = this.#confine(p);
      if (readApprove && !(await this.#ask(cp.rel))) {
        throw new ToolError('rejected', `The user declined to let the agent read ${cp.rel}.`);
      }
      const ranged = line != null || limit != null;
      const snap = await this.#io.read(cp, { maxBytes: ranged ? MAX_RANGED_FILE_BYTES : MAX_SERVED_READ_BYTES });
      if (!ranged) return snap.bytes.toString('utf8');
      const text = lineRange(snap.bytes, line, limit);
      // a range of a big file can still be too much for one answer
      if (Buffer.byteLength(text) > MAX_SERVED_READ_BYTES) throw new ToolError('too_large', `Lines ${line ?? 1}${limit != null ? `-${(line ?? 1) + limit - 1}` : ' to the end'} of ${cp.rel} are over ${MAX_SERVED_READ_BYTES} bytes, more than one answer carries. Ask for fewer lines (a smaller limit).`, { limit: MAX_SERVED_READ_BYTES });
      return text;
    } catch (err) {
      throw toRequestError(err);
    }
  }

  async writeTextFile(p: string, content: string): Promise<void> {
    try {
      const { cp } = this.#confine(p);
      let expect: string | null = null;
      if (cp.exists) expect = (await this.#io.read(cp, { maxBytes: Number.MAX_SAFE_INTEGER })).sha256;
      await this.#io.write(cp, Buffer.from(content, 'utf8'), { expectSha256: expect });
    } catch (err) {
      throw toRequestError(err);
    }
  }
}

