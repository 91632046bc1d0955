// Where jq_query's document comes from: a workspace file, confined and classified exactly as the
// file tools do it (paths.ts confinement, the credential quarantine refused, a hard link to a
// quarantined file refused, the read-approve list asked about in every envelope), its size
// checked before it is read and again after; or the call's own `input`.
import fs from 'node:fs';
import { ToolError } from '../errors.ts';
import { confine, type ConfinedPath } from '../paths.ts';
import { classifyConfined } from '../protect/confined_class.ts';
import { defaultPathMatcher } from '../protect/matcher.ts';

export interface FileSource {
  c: ConfinedPath;
  /** on the read-approve list: the envelope asks before it is read */
  readApprove: boolean;
}

/** The file `p` names under `base`, or the refusal. */
export function fileSource(base: string, p: string): FileSource {
  const c = confine(base, p);
  const { cls } = classifyConfined(c, base, defaultPathMatcher);
  if (cls === 'quarantined') throw new ToolError('quarantined', `jq: ${c.rel} is in the credential quarantine; no tool reads it. Work without it.`);
  if (!c.exists) throw new ToolError('not_found', `jq: ${JSON.stringify(p)} does not exist.`);
  const st = fs.statSync(c.real);
  if (st.isDirectory()) throw new ToolError('is_directory', `jq: ${JSON.stringify(p)} is a directory, not a document; jq_query reads ONE JSON or YAML file.`);
  if (!st.isFile()) throw new ToolError('not_regular', `jq: ${JSON.stringify(p)} is not a regular file.`);
  return { c, readApprove: cls === 'read_approve' };
}

/** The file's text, refused over `max` bytes (by its size first, then by what was read). */
export function readSource(s: FileSource, max: number): string {
  const over = (n: number) => new ToolError('too_large', `jq: ${JSON.stringify(s.c.rel)} is ${n} bytes, over the ${max}-byte input cap; narrow it first, or read the region you need with read_file_range.`);
  const size = fs.statSync(s.c.real).size;
  if (size > max) throw over(size);
  const fd = fs.openSync(s.c.real, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  try {
    const st = fs.fstatSync(fd);
    if (st.ino !== s.c.ino || st.dev !== s.c.dev) throw new ToolError('stale', `jq: ${s.c.rel} was replaced while it was being opened; call again.`);
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    for (let r = 1; r > 0 && n <= max; n += r) r = fs.readSync(fd, buf, n, buf.length - n, null);
    if (n > max) throw over(n);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Inline input as text: a string as given, any other JSON value as JSON. */
export function inlineText(v: unknown, max: number): string {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  const n = Buffer.byteLength(text);
  if (n > max) throw new ToolError('too_large', `jq: the inline input is ${n} bytes, over the ${max}-byte input cap; save it to a file and pass path, or narrow it.`);
  return text;
}
