// The config options' slice of the store as their requests use it: the options as the agent last
// said them, the session's mode and how a mode is switched.
import type { SessionConfigOption, SessionMode } from '@agentclientprotocol/sdk';
import type { Notices } from '../session/link.ts';
import type { ModeSource } from './config_options.ts';

/** The fields the config options and modes add to the store's state. */
export interface ConfigSlice {
  /** The agent's session modes (for cxl acp: its envelopes), in its order: its `mode` config option's values, else its `modes`. */
  modes: SessionMode[];
  /** How a mode is switched: through that config option, or session/set_mode. */
  modeSource?: ModeSource;
  /** The session's config options (mode, model, effort, …) as the agent last said them. */
  configOptions: SessionConfigOption[];
}

/** What of the store the config and mode requests use. */
export interface ConfigShelf extends Notices {
  getState(): ConfigSlice & { mode?: string };
  setConfigOptions(configOptions: SessionConfigOption[]): void;
  setMode(mode: string): void;
}
