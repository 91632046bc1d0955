// A session's config options and modes as the person changes them: Shift+Tab and /mode (through
// the `mode` config option when the session has one, else session/set_mode) and /config (every
// option, one option, or set one). The store follows once the agent accepts.
import * as acp from '@agentclientprotocol/sdk';
import { errorDetail, errorText } from '../connection/request_errors.ts';
import type { SessionLink } from '../session/link.ts';
import { configLines, currentLabel, findOption, matchValue } from './config_options.ts';
import type { ConfigShelf } from './state.ts';

/** The controller's slice (`controller.config`): the session's modes and config options. */
export interface ConfigControls {
  /** session/set_mode (Shift+Tab, /mode); settles once the agent has answered. */
  setMode(modeId: string): void | Promise<void>;
  /** /config: list the session's config options, or set one (`ID VALUE`). */
  config(arg: string): void | Promise<void>;
}

export class ConfigRequests implements ConfigControls {
  constructor(
    private readonly link: SessionLink,
    private readonly store: ConfigShelf,
  ) {}

  /** Shift+Tab, /mode: the status line follows once the agent accepts. */
  async setMode(modeId: string): Promise<void> {
    const { conn, sessionId } = this.link;
    if (!conn || !sessionId || this.link.exited) return;
    const source = this.store.getState().modeSource;
    try {
      if (source?.kind === 'config_option') {
        const r = await conn.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: source.configId, value: modeId });
        if (this.link.sessionId === sessionId) this.store.setConfigOptions(r.configOptions);
      } else {
        await conn.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId });
        if (this.link.sessionId === sessionId) this.store.config.setMode(modeId);
      }
    } catch (err) {
      this.store.notice('error', `${this.link.agentName} did not switch to mode ${modeId}: ${errorText(err)}. The session stays in ${this.store.getState().mode ?? 'its mode'}.`, errorDetail(err));
    }
  }

  /** /config: every option and its values (no argument), one option (`ID`), or set one (`ID VALUE`). */
  async config(arg: string): Promise<void> {
    const { conn, sessionId } = this.link;
    const options = this.store.getState().configOptions;
    if (!conn || sessionId === undefined) return this.store.notice('warn', 'There is no session yet, so there is nothing to configure.');
    if (options.length === 0) return this.store.notice('info', `${this.link.agentName} offers no config options for this session.`);
    const [id, ...rest] = arg.trim().split(/\s+/);
    if (!id) return this.store.info(`config options of ${this.link.agentName}`, [...configLines(options), 'Set one with /config ID VALUE.']);
    const opt = findOption(options, id);
    if (!opt) return this.store.notice('warn', `${this.link.agentName} has no config option “${id}”. Options: ${options.map((o) => o.id).join(', ')}.`);
    if (rest.length === 0) return this.store.info(`config option ${opt.id}`, configLines([opt]));
    const v = matchValue(opt, rest.join(' '));
    if ('error' in v) return this.store.notice('warn', `${v.error}.`);
    try {
      const r = opt.type === 'boolean'
        ? await conn.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: opt.id, type: 'boolean', value: v.value as boolean })
        : await conn.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: opt.id, value: v.value as string });
      if (this.link.sessionId !== sessionId) return;
      this.store.setConfigOptions(r.configOptions);
      const now = r.configOptions.find((o) => o.id === opt.id);
      this.store.notice('info', `${opt.name}: ${now ? currentLabel(now) : String(v.value)}.`);
    } catch (err) {
      this.store.notice('error', `${this.link.agentName} did not set ${opt.id} to ${String(v.value)}: ${errorText(err)}.`, errorDetail(err));
    }
  }
}
