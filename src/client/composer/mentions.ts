// @-mentions in a prompt become ACP content blocks: each `@path` (or `@"path with spaces"`) that
// names a regular file inside the session root is sent along with the text, embedded as a
// `resource` when the agent takes embedded context and the file is small text, else as a
// `resource_link` the agent can read through fs/read_text_file. A quarantined file is never
// attached; one on the read-approve list (.env, keys) only as a link, so reading it still asks.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { confine } from '../../core/paths.ts';
import { classifyPath } from '../../core/protect/matcher.ts';

/** Files embedded at most this big; larger ones are linked. */
export const MAX_EMBED_BYTES = 256 * 1024;

export interface Mention {
  /** As written after the @ (quotes removed). */
  path: string;
  start: number;
  end: number;
}

/** Every `@word` that starts a word (not an e-mail address), with closing punctuation left off. */
export function findMentions(text: string): Mention[] {
  const out: Mention[] = [];
  const re = /(^|[\s(])@(?:"([^"\n]+)"|([^\s"]+))/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const start = m.index + m[1].length;
    if (m[2] !== undefined) {
      out.push({ path: m[2], start, end: start + m[2].length + 3 });
      continue;
    }
    const raw = m[3].replace(/[.,;:!?)\]}'`]+$/, '');
    if (raw === '') continue;
    out.push({ path: raw, start, end: start + 1 + raw.length });
  }
  return out;
}

export interface MentionOptions {
  root: string;
  /** The agent advertised promptCapabilities.embeddedContext. */
  embed: boolean;
}

interface Resolved {
  abs: string;
  rel: string;
  size: number;
  readApprove: boolean;
}

function resolve(root: string, p: string): Resolved | undefined {
  try {
    const c = confine(root, p);
    const cls = classifyPath(c.lexical, c.real, c.rel);
    if (cls === 'quarantined') return undefined;
    const st = fs.statSync(c.real);
    if (!st.isFile()) return undefined;
    return { abs: c.real, rel: c.rel, size: st.size, readApprove: cls === 'read_approve' };
  } catch {
    // outside the root, missing, unreadable: it stays plain text
    return undefined;
  }
}

function textOf(abs: string, size: number): string | undefined {
  if (size > MAX_EMBED_BYTES) return undefined;
  try {
    const buf = fs.readFileSync(abs);
    if (buf.includes(0)) return undefined;
    const text = buf.toString('utf8');
    return text.includes('\uFFFD') ? undefined : text;
  } catch {
    return undefined;
  }
}

/** The prompt as ACP blocks: the text as typed, then one block per file it mentions (once each). */
export function promptBlocks(text: string, o: MentionOptions): ContentBlock[] {
  const blocks: ContentBlock[] = [{ type: 'text', text }];
  const seen = new Set<string>();
  for (const m of findMentions(text)) {
    const r = resolve(o.root, m.path);
    if (!r || seen.has(r.abs)) continue;
    seen.add(r.abs);
    const uri = pathToFileURL(r.abs).href;
    const body = o.embed && !r.readApprove ? textOf(r.abs, r.size) : undefined;
    if (body !== undefined) blocks.push({ type: 'resource', resource: { uri, text: body, mimeType: 'text/plain' } });
    else blocks.push({ type: 'resource_link', uri, name: r.rel, size: r.size });
  }
  return blocks;
}
