// What the screen asks of the client (the ACP client implements it): its own few, and each feature's
// slice, one member a feature, as the feature's room of the client declares it (the client hands
// out the room's object itself, so a new feature adds a slice here, not methods on the client).
// The optional parts need a live agent connection; where one is absent (tests, benchmarks) the
// screen says so instead.
import type { ConfigControls } from '../client/config_options/requests.ts';
import type { ElicitationControls } from '../client/elicitation/elicitation_answers.ts';
import type { ForkControls } from '../client/fork/requests.ts';
import type { LoginControls } from '../client/login/requests.ts';
import type { ModelControls } from '../client/models/requests.ts';
import type { PermissionControls } from '../client/permissions/permission_answers.ts';
import type { RewindControls } from '../client/rewind/requests.ts';
import type { ShellControls } from '../client/shell/requests.ts';
import type { TrustControls } from '../client/trust/requests.ts';

export interface Controller {
  send(text: string): void;
  /** Ctrl+C: every pending approval answered `cancelled`, then session/cancel. */
  cancel(): void;
  quit(): void;
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

  // each feature's slice, as its room of the client declares it
  /** /rewind, /undo, Esc Esc: the way back. */
  readonly rewind?: RewindControls;
  /** /fork: a new session with this one's history. */
  readonly fork?: ForkControls;
  /** /model: the session's models. */
  readonly models?: ModelControls;
  /** Shift+Tab, /mode, /config: the session's modes and config options. */
  readonly config?: ConfigControls;
  /** /login and the login picker. */
  readonly login?: LoginControls;
  /** /trust and the trust prompt. */
  readonly trust?: TrustControls;
  /** `!line`: the person's own shell. */
  readonly shell?: ShellControls;
  /** The approval's keys: the agent's permission requests answered. */
  readonly permissions?: PermissionControls;
  /** The form's keys: the agent's forms answered. */
  readonly elicitation?: ElicitationControls;
}
