// The config options' slice of the store as their requests use it: the options as the agent last
// said them, the session's mode and how a mode is switched.
import type { SessionConfigOption, SessionMode, SessionModeState } from '@agentclientprotocol/sdk';
import type { Notices } from '../session/link.ts';
import type { StoreCell } from '../session/store_cell.ts';
import { modesOf, withCurrentMode, type ModeSource } from './config_options.ts';

/** The fields the config options and modes add to the store's state. */
export interface ConfigSlice {
  /** The agent's session modes (for cxl acp: its envelopes), in its order: its `mode` config option's values, else its `modes`. */
  modes: SessionMode[];
  /** How a mode is switched: through that config option, or session/set_mode. */
  modeSource?: ModeSource;
  /** The session's config options (mode, model, effort, …) as the agent last said them. */
  configOptions: SessionConfigOption[];
}

/**
 * The config options' part of the store (`store.config`); `mode` is the session's own field. What
 * the options say of the models is joined in by the store (`setConfigOptions`, `setSessionConfig`).
 */
export class ConfigStore {
  constructor(private readonly cell: StoreCell<ConfigSlice & { mode?: string }>) {}

  /** The modes a session offers (session/new or load) and the current one. */
  setModes(modes: SessionMode[], current?: string): void {
    this.cell.set({ modes, mode: current ?? this.cell.getState().mode, modeSource: modes.length ? { kind: 'modes' } : undefined });
  }

  /** A session/new, load or resume answer: its options, its modes from the `mode` option or else its `modes` field. */
  setSession(configOptions: SessionConfigOption[] | null | undefined, modes: SessionModeState | null | undefined): void {
    const m = modesOf(configOptions, modes);
    this.cell.set({ configOptions: configOptions ?? [], modes: m.modes, mode: m.current ?? this.cell.getState().mode, modeSource: m.source });
  }

  /** The full set of config options, as config_option_update and set_config_option's answer give it. */
  setOptions(configOptions: SessionConfigOption[]): void {
    const m = modesOf(configOptions, undefined);
    // an agent that offers modes only through `modes` keeps them when its options change
    if (m.source) this.cell.set({ configOptions, modes: m.modes, mode: m.current ?? this.cell.getState().mode, modeSource: m.source });
    else this.cell.set({ configOptions });
  }

  /** The agent accepted a mode switch (or said it switched): both views of the mode follow. */
  setMode(mode: string): void {
    this.cell.set({ mode, configOptions: withCurrentMode(this.cell.getState().configOptions, mode) });
  }
}

/** What of the store the config and mode requests use. */
export interface ConfigShelf extends Notices {
  getState(): ConfigSlice & { mode?: string };
  /** the options, with what they say of the models (the store's join) */
  setConfigOptions(configOptions: SessionConfigOption[]): void;
  readonly config: ConfigStore;
}
