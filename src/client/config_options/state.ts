// The config options' slice of the store as their requests use it: the options as the agent last
// said them, the session's mode and how a mode is switched.
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import type { Notices } from '../session/link.ts';
import type { ModeSource } from './config_options.ts';

/** What of the store the config and mode requests use. */
export interface ConfigShelf extends Notices {
  getState(): { configOptions: SessionConfigOption[]; mode?: string; modeSource?: ModeSource };
  setConfigOptions(configOptions: SessionConfigOption[]): void;
  setMode(mode: string): void;
}
