// What every local_fs tool shares: the canonical root, the parsed policy, the session ledger,
// the file IO, and the one gate every path goes through (confinement, quarantine, denied
// substrings, the read-approve list; a hard link counts as the file it links to).
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import type { FileIO } from './file_io.ts';
import { deniedSubstring, type FsPolicy } from './policy.ts';
import type { LedgerUse } from './ledger.ts';
import type { IdentityIndex } from '../protect/identity.ts';
import { classifyConfined } from '../protect/confined_class.ts';
import { confine, relativeTo, rootHolding, type ConfinedPath } from '../paths.ts';
import type { PathMatcher } from '../protect/matcher.ts';

/**
 * How read-approve paths (`.env`, `*.pem`, `*.key`) are answered: `allow` (a human said yes up
 * front, e.g. `cxl tool --yes`), `refuse` (nobody can answer: `approval_required`), or `ask`
 * (the `ask` callback decides; without one it refuses).
 */
export type ApprovalMode = 'ask' | 'refuse' | 'allow';

export interface ApprovalRequest {
  tool: string;
  /** root-relative path */
  path: string;
  reason: string;
}

export type AskApproval = (req: ApprovalRequest) => Promise<boolean>;

export type GrepEngine = 'auto' | 'ripgrep' | 'builtin';

export interface FsContext {
  readonly root: string;
  /** the session's additional directories, canonical (a path there is shown absolute) */
  readonly extra?: readonly string[];
  readonly policy: FsPolicy;
  /** the session's ledger, as this call reports to it */
  readonly ledger: LedgerUse;
  readonly io: FileIO;
  readonly matcher: PathMatcher;
  /** identities of quarantined and read-approve files (hard links to them are them) */
  readonly identity: IdentityIndex;
  /** for a write into an always-ask path: the mode a human saw in the approval (kept only then) */
  readonly approvedMode?: number;
  /** ripgrep binary, or null when absent or the builtin engine is asked for */
  readonly rgPath: string | null;
  /** Confines `p` and applies quarantine, denied substrings and read-approval for `tool`. */
  resolve(tool: string, p: string): Promise<ConfinedPath>;
}

export interface GateOptions {
  root: string;
  /** the session's additional directories, canonical (extra_roots.ts): inside them is inside too */
  extra?: readonly string[];
  policy: FsPolicy;
  matcher: PathMatcher;
  approvals: ApprovalMode;
  ask?: AskApproval;
  /** default: the shared index over the user's home */
  identity?: IdentityIndex;
}

/** The path gate shared by the tools (and usable alone by servers of fs/* requests). */
export async function gatePath(o: GateOptions, tool: string, p: string): Promise<ConfinedPath> {
  const { c, readApprove } = classifyPath(o, tool, p);
  if (readApprove) await answerReadApprove(o, c, readApprove);
  return c;
}

/**
 * The path confined and classified: refused when it is in the quarantine or the policy's denied
 * substrings; `readApprove` when it is on the read-approve list (someone must say yes first).
 */
export function classifyPath(o: Omit<GateOptions, 'approvals'>, tool: string, p: string): { c: ConfinedPath; readApprove?: ApprovalRequest } {
  const c = confine(o.root, p, o.extra);
  // the quarantine looks at absolute forms so a root inside ~/.ssh is covered too; the hard links
  // of protected files are looked for in the root that holds the path (an additional directory's own)
  const { cls, alias } = classifyConfined(c, rootHolding(o.root, o.extra, c.real), o.matcher, o.identity);
  const linked = alias !== undefined ? ` is another name (a hard link) of ${alias}, which` : '';
  if (cls === 'quarantined') {
    throw new ToolError('quarantined', `${c.rel === '.' ? p : c.rel}${linked} is in the credential quarantine; no tool reads or writes it. Work without it.`);
  }
  const denied = deniedSubstring(o.policy, c.requestedRel) ?? deniedSubstring(o.policy, c.rel) ??
    (p.startsWith('/') ? undefined : deniedSubstring(o.policy, p));
  if (denied !== undefined) {
    throw new ToolError('denied_path', `${c.rel} is refused by tools_policies.local_fs._denied_path_substrings (contains "${denied}"). Use another path, or change that policy.`);
  }
  if (cls !== 'read_approve') return { c };
  return { c, readApprove: { tool, path: c.rel, reason: `${alias !== undefined ? `is another name (a hard link) of ${alias}, which ` : ''}matches the read-approve list (.env, *.pem, *.key)` } };
}

/** A path on the read-approve list: allowed up front, asked, or refused when nobody can answer. */
export async function answerReadApprove(o: Pick<GateOptions, 'approvals' | 'ask'>, c: ConfinedPath, req: ApprovalRequest): Promise<void> {
  let ok = false;
  if (o.approvals === 'allow') ok = true;
  else if (o.approvals === 'ask' && o.ask) {
    ok = await o.ask(req);
    if (!ok) throw new ToolError('rejected', `Access to ${c.rel} was rejected by the user. Do without it.`);
  }
  if (!ok) {
    throw new ToolError('approval_required', `${c.rel} ${req.reason} and needs a human's approval, which nobody can give here. Do without it, or rerun with approval (cxl tool --yes).`);
  }
}

/**
 * A traversal (list_dir, a tree grep, find_files) of a directory in one of the session's
 * additional directories runs rooted there: the same filters (.gitignore from that directory
 * down, heavy dirs, the quarantine on absolute paths), and its paths are shown absolute by `shown`.
 * In the workspace it is the context and the path as they are.
 */
export function traversalRoot<C extends Pick<FsContext, 'root' | 'extra'>>(ctx: C, c: ConfinedPath): { ctx: C; dir: ConfinedPath; shown: (rel: string) => string } {
  const r = rootHolding(ctx.root, ctx.extra, c.real);
  if (r === ctx.root) return { ctx, dir: c, shown: (rel) => rel };
  const rel = relativeTo(r, c.real);
  return { ctx: { ...ctx, root: r }, dir: { ...c, rel, requestedRel: rel }, shown: (x) => (x === '.' ? r : path.join(r, x)) };
}

/** lstat of a confined path, or undefined when it does not exist. */
export function lstatOf(c: ConfinedPath): fs.Stats | undefined {
  return fs.lstatSync(c.real, { throwIfNoEntry: false });
}

/** Base name helper that keeps `/` semantics for display. */
export const baseName = (rel: string) => (rel === '.' ? '.' : path.posix.basename(rel));
