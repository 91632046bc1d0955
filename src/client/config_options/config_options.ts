// A session's config options as the client reads them: the source of truth when the agent offers
// them (the spec is retiring the `modes` field, and agents such as OpenCode offer modes only as a
// `mode` option), `modes` the fallback. Modes are the select option of category `mode`, models
// the one of category `model` (models.ts); every select or boolean option is listed and set by
// `/config`. Values are matched case-insensitively by id or name; nothing is sent that the agent
// did not offer.
import type { SessionConfigOption, SessionMode, SessionModeState } from '@agentclientprotocol/sdk';

/** How the session's modes are switched: a config option's id, or session/set_mode. */
export type ModeSource = { kind: 'config_option'; configId: string } | { kind: 'modes' };

export interface ModeView {
  modes: SessionMode[];
  current?: string;
  source?: ModeSource;
}

type Select = Extract<SessionConfigOption, { type: 'select' }>;

/** The flat list of a select option's values (groups opened). */
export function selectValues(o: Select): Array<{ value: string; name: string; description?: string | null }> {
  return o.options.flatMap((x) => ('options' in x ? x.options : [x]));
}

function modeOption(options: SessionConfigOption[] | null | undefined): Select | undefined {
  const o = options?.find((x) => x.category === 'mode' && x.type === 'select');
  return o && o.type === 'select' ? o : undefined;
}

/** The modes to show and switch: the `mode` config option when there is one, else the `modes` field. */
export function modesOf(options: SessionConfigOption[] | null | undefined, modes: SessionModeState | null | undefined): ModeView {
  const opt = modeOption(options);
  if (opt) {
    return {
      modes: selectValues(opt).map((v) => ({ id: v.value, name: v.name || v.value, ...(v.description ? { description: v.description } : {}) })),
      current: opt.currentValue,
      source: { kind: 'config_option', configId: opt.id },
    };
  }
  if (modes) return { modes: modes.availableModes, current: modes.currentModeId, source: { kind: 'modes' } };
  return { modes: [] };
}

/** The options with the mode option's current value set to `modeId` (a current_mode_update keeps both views the same). */
export function withCurrentMode(options: SessionConfigOption[], modeId: string): SessionConfigOption[] {
  return options.map((o) => (o.category === 'mode' && o.type === 'select' ? { ...o, currentValue: modeId } : o));
}

/** An option's current value as a person reads it: the value's name for a select, on/off for a boolean. */
export function currentLabel(o: SessionConfigOption): string {
  if (o.type === 'boolean') return o.currentValue ? 'on' : 'off';
  if (o.type !== 'select') return '';
  const v = selectValues(o).find((x) => x.value === o.currentValue);
  return v?.name && v.name !== v.value ? `${v.name} (${v.value})` : o.currentValue;
}

/** `/config`'s listing: one line per option, then its values, the current one marked. */
export function configLines(options: SessionConfigOption[]): string[] {
  const lines: string[] = [];
  for (const o of options) {
    if (o.type !== 'select' && o.type !== 'boolean') continue;
    lines.push(`  ${o.id}  ${o.name}: ${currentLabel(o)}${o.description ? ` · ${o.description}` : ''}`);
    if (o.type === 'boolean') lines.push('      ● on/off');
    else for (const v of selectValues(o)) lines.push(`      ${v.value === o.currentValue ? '●' : '○'} ${v.value}${v.name && v.name !== v.value ? ` (${v.name})` : ''}${v.description ? ` · ${v.description}` : ''}`);
  }
  return lines;
}

/** The option `/config ID` names: by id, else by name, case aside. */
export function findOption(options: SessionConfigOption[], wish: string): SessionConfigOption | undefined {
  const w = wish.toLowerCase();
  return options.find((o) => o.id.toLowerCase() === w) ?? options.find((o) => o.name.toLowerCase() === w);
}

/** The value `/config ID VALUE` means for that option, or why there is none. */
export function matchValue(o: SessionConfigOption, wish: string): { value: string | boolean } | { error: string } {
  const w = wish.trim().toLowerCase();
  if (o.type === 'boolean') {
    if (['on', 'true', 'yes', '1'].includes(w)) return { value: true };
    if (['off', 'false', 'no', '0'].includes(w)) return { value: false };
    return { error: `${o.id} is on or off; got “${wish}”` };
  }
  const values = selectValues(o);
  const hit = values.find((v) => v.value.toLowerCase() === w) ?? values.find((v) => v.name.toLowerCase() === w);
  if (hit) return { value: hit.value };
  return { error: `${o.id} has no value “${wish}”; values: ${values.map((v) => v.value).join(', ')}` };
}
