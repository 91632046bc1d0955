// Ids for missions, reports and asks: short enough to type (`cxl approvals respond a-mb7k2x9q3f`),
// sortable by creation time as strings (the newest first is a reverse sort of a directory), and
// checked before any becomes part of a path.
import { nodeCrypto } from '../../core/platform/runtime.ts';

export type IdKind = 'm' | 'a' | 'r';

const ID_RE = /^[mar]-[0-9a-z]{8,24}$/;

/** `m-` + the time in base 36 (8 characters until 2059) + 4 random characters. */
export function newId(kind: IdKind): string {
  const rand = nodeCrypto().randomBytes(4).readUInt32BE(0).toString(36).padStart(7, '0').slice(-4);
  return `${kind}-${Date.now().toString(36).padStart(8, '0')}${rand}`;
}

/** An id of this kind, safe to join into a path. */
export function isId(id: string, kind: IdKind): boolean {
  return ID_RE.test(id) && id[0] === kind;
}
