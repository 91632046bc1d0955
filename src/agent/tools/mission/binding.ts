// Who a session's mission tools speak for, fixed when its tools are built and never a model
// argument: a unit is bound to its own mission id (its report, plan, ask and finish reach that
// record only), a supervising session to its own session id (it lists, answers and starts the
// units it fired). A session bound to neither is offered no mission tool.
import type { AskStore, Ask, Verdict } from '../../missions/ask_store.ts';
import type { MissionStore } from '../../missions/mission_store.ts';
import type { Mission, Plan, Report } from '../../missions/records.ts';

/** What a unit's mission tools tell the run as they record (progress lines, stream-json events). */
export interface UnitEvents {
  onPlan?(plan: Plan): void;
  onReport?(report: Report): void;
  onAsk?(ask: Ask): void;
  onVerdict?(ask: Ask, v: Verdict): void;
  onFinish?(mission: Mission): void;
}

export interface UnitBinding {
  role: 'unit';
  missionId: string;
  /** where its artifacts are looked up */
  cwd: string;
  agent: string;
  envelope: string;
  sessionId?: string;
  missions: MissionStore;
  asks: AskStore;
  /** how long a question waits for an answer (its ask's deadline) */
  askTimeoutMs: number;
  events?: UnitEvents;
}

/** A unit to start, as the supervisor asks for it. */
export interface FireRequest {
  intent: string;
  agent?: string;
  envelope?: string;
  /**
   * Who asks: the session's model (mission_start), or the person (/mission typed, a direct
   * command: never a model argument). Only an envelope a person names may be wider than the
   * session's (docs/missions.md, "The ceiling").
   */
  by: 'model' | 'person';
}

export interface SupervisorBinding {
  role: 'supervisor';
  sessionId: string;
  missions: MissionStore;
  asks: AskStore;
  /** starts a unit whose parent is this session; throws what refuses it (the fleet cap, an unknown agent) */
  fire(req: FireRequest): Promise<Mission>;
  /** how long mission_start waits for its unit to finish */
  waitMs: number;
}

export type MissionBinding = UnitBinding | SupervisorBinding;
