// Where a key goes. Each read from the terminal is split into keys and pastes (input.ts); each goes
// to the view that has the keys now (views/focus.ts): to its handler for the binding the key names
// in keys.ts, else to the handler of a binding that works anywhere, else (a key no binding names)
// to the view's editing. A table, not a chain of cases: a view's keys live in its own file.
import { useStdin, type Key } from 'ink';
import { useEffect, useRef } from 'react';
import type { ClientStore } from '../client/state.ts';
import type { Controller } from './controller.ts';
import { cleanPaste, InputDecoder, type InputEvent } from './input.ts';
import { matchAction } from './keys.ts';
import { backgroundFromAnswer } from './terminal_background.ts';
import { themeFromTerminal } from './theme.ts';
import type { UiState } from './ui_state.ts';
import { focusedView } from './views/focus.ts';
import { typed } from './views/approval_arming.ts';
import { globalKeys } from './views/global.ts';
import type { ExternalEditor, PromptStore, ViewContext } from './views/view.ts';

export interface KeyboardParts {
  store: ClientStore;
  controller: Controller;
  /** The latest UI state (updated as each key is handled, before React renders). */
  ui(): UiState;
  setUi(f: (u: UiState) => UiState): void;
  prompts?: PromptStore;
  editor?: ExternalEditor;
  /** The background asked at start got no answer in time: one that comes later sets the theme. */
  lateBackground?: boolean;
}

export class Keyboard {
  readonly #decoder = new InputDecoder();
  #heldTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  #backgroundTaken = false;

  /** `parts()` is read at each key, so the latest store and controller are used. */
  constructor(private readonly parts: () => KeyboardParts) {}

  /** One raw event from Ink (a run of text, one escape sequence, or part of one): the keys and pastes in it, in order. */
  read(raw: string): void {
    this.#handle(this.#decoder.feed(raw));
  }

  #handle(events: InputEvent[]): void {
    clearTimeout(this.#heldTimer);
    for (const ev of events) {
      if (ev.kind === 'paste') this.#paste(ev.text);
      else if (ev.kind === 'key') this.#key(ev.name, ev.input, ev.key);
      // focus reports (DECSET 1004): whether a notification is needed
      else if (ev.kind === 'focus') this.parts().setUi((u) => (u.focused === ev.focused ? u : { ...u, focused: ev.focused }));
      // any other report (a late answer to a query) is not input
      else this.#report(ev.text);
    }
    // a lone Esc, a sequence cut between reads, a paste whose end marker never comes: decided
    // when their time is up
    const due = this.#decoder.deadline();
    if (due !== undefined) this.#heldTimer = setTimeout(() => this.#handle(this.#decoder.expire()), Math.max(0, due - Date.now()) + 1);
  }

  dispose(): void {
    clearTimeout(this.#heldTimer);
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }

  #context(): ViewContext {
    const { store, controller, ui, setUi, prompts, editor } = this.parts();
    return {
      store,
      controller,
      prompts,
      editor,
      state: store.getState(),
      ui,
      setUi,
      schedule: (name, ms, fn) => {
        clearTimeout(this.#timers.get(name));
        this.#timers.set(name, setTimeout(fn, ms));
      },
    };
  }

  /** The background colour asked at start, answered after the wait: the theme it says, from the next frame. */
  #report(text: string): void {
    if (!this.parts().lateBackground || this.#backgroundTaken) return;
    const theme = backgroundFromAnswer(text);
    if (theme === undefined) return;
    this.#backgroundTaken = true;
    if (themeFromTerminal(theme)) this.parts().setUi((u) => ({ ...u }));
  }

  #paste(raw: string): void {
    const text = cleanPaste(raw);
    const ctx = this.#context();
    focusedView(ctx.state, ctx.ui()).paste?.(text, ctx);
    ctx.setUi((u) => typed(u));
  }

  #key(name: string | undefined, input: string, key: Key): void {
    const { ui, setUi } = this.parts();
    // the hint above the composer goes at the next key
    if (ui().hint !== undefined) setUi((x) => ({ ...x, hint: undefined }));
    const base = this.#context();
    const view = focusedView(base.state, base.ui());
    const ctx = { ...base, name, input, key };
    const action = matchAction(view.focus, name);
    // eslint-disable-next-line no-control-regex
    const typing = input !== '' && !key.ctrl && !key.meta && !key.escape && !/[\u0000-\u001f\u007f]/.test(input) && (view.isTyping?.(ctx, action) ?? true);
    if (action === undefined) view.edit?.(ctx);
    else (view.keys[action] ?? globalKeys[action])?.(ctx);
    // after the key is handled: whatever it was checked against was the typing before it
    if (typing) setUi((u) => typed(u));
  }
}

/**
 * The screen's keyboard: Ink's raw input (in raw mode) goes to the view that has the keys. Raw,
 * not through Ink's useInput: its key object cannot tell Backspace from Delete.
 */
export function useKeyboard(parts: KeyboardParts): void {
  const latest = useRef(parts);
  latest.current = parts;
  const keyboard = useRef<Keyboard | undefined>(undefined);
  keyboard.current ??= new Keyboard(() => latest.current);
  const { setRawMode, internal_eventEmitter: events } = useStdin();
  useEffect(() => {
    setRawMode(true);
    const read = (raw: string) => keyboard.current?.read(raw);
    events.on('input', read);
    return () => {
      events.off('input', read);
      setRawMode(false);
      keyboard.current?.dispose();
    };
  }, [events, setRawMode]);
}
