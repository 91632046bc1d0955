// What a session/new or session/load answer tells the status line beyond its id: the model (from
// the standard `model` config option, by its display name), and the OS sandbox the agent runs
// commands in (`_meta["cxl/sandbox"]`, sent by cxl acp). Foreign agents send neither or only the first.
import type { SessionConfigOption, SessionInfo } from '@agentclientprotocol/sdk';
import { isSandboxState, META_SANDBOX, META_UNATTENDED } from '../../core/protocol_names.ts';
import type { SandboxView } from './views.ts';

/** The session's current model as a person reads it: the selected value's name, else the value. */
export function modelOf(options: SessionConfigOption[] | null | undefined): string | undefined {
  const opt = options?.find((o) => o.category === 'model' && o.type === 'select');
  if (!opt || opt.type !== 'select' || typeof opt.currentValue !== 'string') return undefined;
  const values = opt.options.flatMap((x) => ('options' in x ? x.options : [x]));
  const name = values.find((v) => v.value === opt.currentValue)?.name;
  return name && name.trim() !== '' ? name : opt.currentValue;
}

export function sandboxOf(meta: Record<string, unknown> | null | undefined): SandboxView | undefined {
  const v = meta?.[META_SANDBOX] as { state?: unknown; reason?: unknown } | undefined;
  if (!v || typeof v !== 'object' || !isSandboxState(v.state)) return undefined;
  return { state: v.state, ...(typeof v.reason === 'string' && v.reason !== '' ? { reason: v.reason } : {}) };
}

/** A session an unattended run or mission unit wrote (cxl acp marks them on session/list), not one a person had. */
export function isUnattended(s: SessionInfo): boolean {
  return s._meta?.[META_UNATTENDED] === true;
}

/** A person's sessions first, then the runs and units (each newest first): the picker shows them as two sections. */
export function pickerOrder(sessions: SessionInfo[]): SessionInfo[] {
  const byTime = [...sessions].sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  return [...byTime.filter((s) => !isUnattended(s)), ...byTime.filter(isUnattended)];
}

/**
 * The session `--continue` resumes: the newest of the person's that has a title (cxl names a
 * session after its first prompt or `!` line, so an untitled one was opened and left), else the
 * newest of theirs; an unattended run's only when there is nothing else.
 */
export function newestSession(sessions: SessionInfo[]): SessionInfo | undefined {
  const byTime = pickerOrder(sessions);
  return byTime.find((s) => !isUnattended(s) && typeof s.title === 'string' && s.title.trim() !== '') ?? byTime.find((s) => !isUnattended(s)) ?? byTime[0];
}
