// The session's model: `/model` (the picker, or a switch by name), `--model` at session/new for an
// agent that is not the built-in one, and `--model` with `--continue`/`--resume`, which wins over
// the model the session was left on. A switch goes through the `model` config option when the
// agent has one, else the older session/set_model.
import * as acp from '@agentclientprotocol/sdk';
import { errorDetail, errorText } from '../connection/request_errors.ts';
import type { SessionLink } from '../session/link.ts';
import { matchModel, modelLabel, modelNames, modelStateOf } from './models.ts';
import type { ModelShelf } from './state.ts';

/** The controller's slice (`controller.models`): /model, the model picker over the session's models (no argument, the store's modelChoices), or a switch to one. */
export interface ModelControls {
  model(arg: string): void | Promise<void>;
}

export class ModelRequests implements ModelControls {
  constructor(
    private readonly link: SessionLink,
    private readonly store: ModelShelf,
    /** the built-in agent, started with --model on its command line (its own model, set by name) */
    private readonly builtin: boolean,
  ) {}

  /** Switch the session's model to the one `wish` names; an unknown name keeps the session and says what there is. */
  async switchTo(wish: string): Promise<boolean> {
    const { conn, sessionId } = this.link;
    const state = this.store.getState().models;
    if (!conn || !sessionId || !state) return false;
    const { hit, candidates } = matchModel(state, wish);
    const keeping = modelLabel(state) ?? 'its default';
    if (!hit) {
      const why = candidates.length > 1 ? `“${wish}” matches several models (${candidates.map((c) => c.id).join(', ')})` : `${this.link.agentName} has no model “${wish}”`;
      this.store.notice('warn', `${why}; the session stays on ${keeping}. Models: ${modelNames(state)}. Switch with /model NAME.`);
      return false;
    }
    if (hit.id === state.current) return true;
    try {
      if (state.source === 'config_option' && state.configId) {
        const r = await conn.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: state.configId, value: hit.id });
        this.store.setConfigOptions(r.configOptions);
        if (!modelStateOf(r.configOptions)) this.store.models.update({ ...state, current: hit.id });
      } else {
        // `models` agents take the unstable session/set_model (gone from the SDK's schema, still answered).
        await conn.agent.request('session/set_model', { sessionId, modelId: hit.id });
        this.store.models.update({ ...state, current: hit.id });
      }
      // the status line names it at once; whether it answers, the agent says (cxl's checks it now)
      this.store.models.chosen();
      this.link.markUsed();
      return true;
    } catch (err) {
      this.store.notice('error', `${this.link.agentName} did not switch to ${hit.id}: ${errorText(err)}. The session stays on ${keeping}.`, errorDetail(err));
      return false;
    }
  }

  /** /model: the picker over the session's models (no argument), or switch to the one named. */
  async model(arg: string): Promise<void> {
    const state = this.store.getState().models;
    this.store.models.offer(undefined);
    if (this.link.sessionId === undefined) return this.store.notice('warn', 'There is no session yet, so there is no model to choose.');
    if (!state || state.available.length === 0) return this.store.notice('info', `${this.link.agentName} does not say which models it offers${this.store.getState().model ? ` (in use: ${this.store.getState().model})` : ''}.`);
    if (arg.trim() === '') return this.store.models.offer({ models: state.available, current: state.current });
    const was = modelLabel(state);
    if (await this.switchTo(arg)) {
      const now = modelLabel(this.store.getState().models) ?? arg;
      if (now !== was) this.store.notice('info', `Model: ${now}.`);
    }
  }

  /**
   * `--model` with `--continue` or `--resume`: the flag wins over the model the session was left
   * on, and the screen says so. The built-in agent was started with it (its own model, set by
   * name); another agent's is matched against what its session offers.
   */
  async flag(want: string): Promise<void> {
    const { conn, sessionId } = this.link;
    const state = this.store.getState().models;
    if (!conn || !sessionId) return;
    const was = modelLabel(state);
    if (!state) return this.store.notice('warn', `${this.link.agentName} does not say which models it offers, so --model ${want} was not passed; the session keeps its own.`);
    const hit = this.builtin ? state.available.find((c) => c.id === want) ?? { id: want, name: want } : matchModel(state, want).hit;
    if (hit && hit.id === state.current) return;
    let ok = false;
    if (this.builtin && state.configId) {
      try {
        const r = await conn.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: state.configId, value: want });
        this.store.setConfigOptions(r.configOptions);
        this.store.models.chosen();
        ok = true;
      } catch (err) {
        this.store.notice('error', `${this.link.agentName} did not switch to ${want} (--model): ${errorText(err)}. The session stays on ${was ?? 'its model'}.`, errorDetail(err));
      }
    } else ok = await this.switchTo(want);
    if (ok) this.store.notice('info', `Model: ${modelLabel(this.store.getState().models) ?? want}, as --model asks${was ? ` (the session was on ${was})` : ''}.`);
  }
}
