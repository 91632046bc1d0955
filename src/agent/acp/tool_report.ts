// How a tool call looks to an ACP client: its title, kind and locations as its toolset says
// (the plan's view, through SessionTools), the text content of its result, and a file change as
// ACP diff content: the window around the change with the line it starts at (`cxl/startLine`),
// and the call's location at the first changed line, so every client numbers lines as the file does.
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { META_START_LINE, type StartLineMeta } from '../../core/protocol_names.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { SessionTools } from '../tools/contract.ts';

const MAX_SHOWN = 64 * 1024;

/** Title, kind and locations of a call; a name no tool has is shown as it was called. */
export function callView(tools: SessionTools, spec: ToolSpec | undefined, name: string, args: Record<string, unknown>): { title: string; kind: acp.ToolKind; locations: acp.ToolCallLocation[] } {
  return spec ? tools.view(spec, args) : { title: name, kind: 'other', locations: [] };
}

export function textContent(text: string): acp.ToolCallContent {
  const shown = text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}\n… (${text.length - MAX_SHOWN} more characters)` : text;
  return { type: 'content', content: { type: 'text', text: shown } };
}

/** A file change as its toolset or approval describes it (texts may be a window starting at `startLine`). */
export interface ChangeShown {
  path: string;
  oldText: string | null;
  newText: string;
  startLine?: number;
  cut?: boolean;
}

/** The change as ACP diff content, its path absolute, its first line in `_meta`. */
export function diffContent(cwd: string, d: ChangeShown): acp.ToolCallContent {
  const meta: Record<string, StartLineMeta> = d.startLine !== undefined && d.startLine > 1 ? { [META_START_LINE]: d.startLine } : {};
  return { type: 'diff', path: path.resolve(cwd, d.path), oldText: d.oldText, newText: d.newText, ...(Object.keys(meta).length ? { _meta: meta } : {}) };
}

/** The note a change whose diff stops before the change does carries beside it. */
export function cutNote(d: ChangeShown): acp.ToolCallContent | undefined {
  return d.cut ? textContent('The diff above stops before the change does: the change runs on past the lines a diff holds. Read the file to see the rest.') : undefined;
}

/** The file line of the first line the change touches. */
export function firstChangedLine(d: ChangeShown): number {
  const a = (d.oldText ?? '').split('\n');
  const b = d.newText.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return (d.startLine ?? 1) + i;
}

/** The call's locations with the changed file at its first changed line (added when the call named it nowhere). */
export function locationsAt(cwd: string, locations: acp.ToolCallLocation[], d: ChangeShown): acp.ToolCallLocation[] {
  const file = path.resolve(cwd, d.path);
  const at = { path: file, line: firstChangedLine(d) };
  return locations.some((l) => l.path === file) ? locations.map((l) => (l.path === file ? at : l)) : [...locations, at];
}
