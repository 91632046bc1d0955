// The form the agent asks the person to fill in (elicitation/create, form mode): Tab/↓ and
// Shift+Tab/↑ move between fields, text is typed into the field that has the keys, ←/→ choose
// in a list, Space ticks a yes/no or an item of a multi-select, Enter checks and sends, Esc
// declines (Ctrl+C cancels, with the turn). The answer goes to the client through the controller.
import type { FieldValue } from '../../client/elicitation/elicitation.ts';
import { checkForm } from '../../client/elicitation/elicitation.ts';
import type { ClientState, PendingElicitation } from '../../client/state.ts';
import { elicitationRows, type FormDraft } from '../elicitation_rows.ts';
import type { UiState } from '../ui_state.ts';
import type { KeyContext, View, ViewContext } from './view.ts';

/** The draft of the form on screen: the one being edited, or a fresh one from the form's defaults. */
function draftOf(e: PendingElicitation, ui: UiState): FormDraft {
  return ui.form?.key === e.key ? ui.form : { key: e.key, field: 0, item: 0, values: { ...e.initial } };
}

function edit(ctx: ViewContext, f: (d: FormDraft, e: PendingElicitation) => FormDraft): void {
  const e = ctx.state.elicitations[0];
  if (e) ctx.setUi((u) => ({ ...u, form: f(draftOf(e, u), e) }));
}

const move = (by: number) => (ctx: KeyContext) => edit(ctx, (d, e) => ({ ...d, field: Math.max(0, Math.min(e.fields.length - 1, d.field + by)), item: 0, error: undefined }));

function setValue(d: FormDraft, name: string, v: FieldValue): FormDraft {
  return { ...d, values: { ...d.values, [name]: v }, error: undefined };
}

/** ←/→: the previous or next choice of a list, or the highlighted item of a multi-select. */
const choose = (by: number) => (ctx: KeyContext) =>
  edit(ctx, (d, e) => {
    const f = e.fields[d.field];
    if (!f || f.choices.length === 0) return d;
    if (f.kind === 'multi') return { ...d, item: (d.item + by + f.choices.length) % f.choices.length };
    const i = f.choices.findIndex((c) => c.value === d.values[f.name]);
    const next = i === -1 ? (by > 0 ? 0 : f.choices.length - 1) : (i + by + f.choices.length) % f.choices.length;
    return setValue(d, f.name, f.choices[next].value);
  });

/** Text into a text or number field. */
function type(ctx: ViewContext, text: string): void {
  edit(ctx, (d, e) => {
    const f = e.fields[d.field];
    if (!f || (f.kind !== 'text' && f.kind !== 'number' && f.kind !== 'integer')) return d;
    return setValue(d, f.name, `${typeof d.values[f.name] === 'string' ? d.values[f.name] : ''}${text.replace(/[\r\n]+/g, ' ')}`);
  });
}

/** Space: ticks a yes/no or the highlighted item; in a text field it is a space. */
function tick(ctx: KeyContext): void {
  edit(ctx, (d, e) => {
    const f = e.fields[d.field];
    if (!f) return d;
    if (f.kind === 'boolean') return setValue(d, f.name, d.values[f.name] !== true);
    if (f.kind === 'multi') {
      const v = f.choices[d.item]?.value;
      const picked = Array.isArray(d.values[f.name]) ? (d.values[f.name] as string[]) : [];
      if (v === undefined) return d;
      return setValue(d, f.name, picked.includes(v) ? picked.filter((x) => x !== v) : f.choices.map((c) => c.value).filter((x) => x === v || picked.includes(x)));
    }
    return d;
  });
  const f = ctx.state.elicitations[0]?.fields[draftOf(ctx.state.elicitations[0], ctx.ui()).field];
  if (f && f.kind !== 'boolean' && f.kind !== 'multi') type(ctx, ' ');
}

function send(ctx: KeyContext): void {
  const e = ctx.state.elicitations[0];
  if (!e) return;
  const d = draftOf(e, ctx.ui());
  const r = checkForm(e.fields, d.values);
  if ('error' in r) return ctx.setUi((u) => ({ ...u, form: { ...d, field: r.field, error: r.error } }));
  ctx.setUi((u) => ({ ...u, form: undefined }));
  ctx.controller.elicitation?.answer(e.key, { action: 'accept', content: r.content });
}

function backspace(ctx: ViewContext): void {
  edit(ctx, (d, e) => {
    const f = e.fields[d.field];
    const v = f && d.values[f.name];
    return f && typeof v === 'string' && f.kind !== 'choice' ? setValue(d, f.name, [...v].slice(0, -1).join('')) : d;
  });
}

export const elicitationView: View = {
  focus: 'form',
  keys: {
    form_next: move(1),
    form_prev: move(-1),
    form_choose_prev: choose(-1),
    form_choose_next: choose(1),
    form_tick: tick,
    form_send: send,
    form_decline: (ctx) => {
      const e = ctx.state.elicitations[0];
      ctx.setUi((u) => ({ ...u, form: undefined }));
      if (e) ctx.controller.elicitation?.answer(e.key, { action: 'decline' });
    },
  },
  edit: (ctx) => {
    const { name, input, key } = ctx;
    if (name === 'backspace') backspace(ctx);
    else if (input && !key.ctrl && !key.meta && !key.escape) type(ctx, input);
  },
  paste: (text, ctx) => type(ctx, text),
  panel: (s: ClientState, ui: UiState, width: number, room: number) => {
    const e = s.elicitations[0];
    return e ? elicitationRows(e, draftOf(e, ui), s.agent.name ?? s.agent.label, width, Math.max(6, room - 3)) : [];
  },
};
