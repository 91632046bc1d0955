// What the screen asks of the client (the ACP client implements it). The optional parts need a
// live agent connection; where one is absent (tests, benchmarks) the screen says so instead.
import type { CreateElicitationResponse, RequestPermissionOutcome } from '@agentclientprotocol/sdk';

export interface Controller {
  send(text: string): void;
  /** Ctrl+C: every pending approval answered `cancelled`, then session/cancel. */
  cancel(): void;
  quit(): void;
  /** session/set_mode (Shift+Tab, /mode); settles once the agent has answered. */
  setMode?(modeId: string): void | Promise<void>;
  /** /clear: a new session. */
  newSession?(): void;
  /** /resume: offer this directory's sessions (the store's sessionChoices). */
  listSessions?(): void;
  /** session/load: replay a session into the screen and continue it. */
  loadSession?(id: string): void;
  /** The session picker closed without a choice. */
  dismissSessions?(): void;
  /** List the workspace's files for @-mentions (again, when the listing is old). */
  refreshFiles?(): void;
  /** /config: list the session's config options, or set one (`ID VALUE`). */
  config?(arg: string): void;
  /** /model: the model picker over the session's models (no argument, the store's modelChoices), or switch to one. */
  model?(arg: string): void | Promise<void>;
  /** The login picker: a method was picked, or it was closed; /login opens it. */
  authenticate?(methodId: string): void;
  dismissLogin?(): void;
  login?(): void;
  /** `!line`: the person's own shell runs it (the agent gets its output with the next prompt). */
  shell?(line: string): void;
  /** /rewind, Esc Esc: the prompts to go back to (the rewind picker). */
  rewind?(): void | Promise<void>;
  /** /undo: what going back to before the last prompt would do. */
  undo?(): void | Promise<void>;
  /** The rewind picker's choice: what going back to before prompt `n` would do. */
  rewindPreview?(n: number, restore: 'files' | 'conversation' | 'both'): void | Promise<void>;
  /** The person said yes to the preview; resolves with the prompt gone back to (for the composer). */
  rewindApply?(overwrite: boolean): Promise<string | undefined>;
  dismissRewind?(): void;
  /** /fork: a new session with this one's history. */
  fork?(): void | Promise<void>;
  /** The trust prompt: trust this folder's own configuration (then a new session applies it), close it, open it again (/trust). */
  trustProject?(): void | Promise<void>;
  dismissTrust?(): void;
  offerTrust?(): void;
  /** The approval's keys: the answer to the permission request queued under `key` (only an agent asks). */
  answerPermission?(key: string, outcome: RequestPermissionOutcome): void;
  /** The form's keys: the answer to the elicitation queued under `key` (sent, declined or cancelled). */
  answerElicitation?(key: string, response: CreateElicitationResponse): void;
}
