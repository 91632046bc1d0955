// Units a session fires (`/mission`, the mission_start tool): each is a mission recorded here
// (the sweep, the fleet cap, the envelope it must name, and the session's envelope as its ceiling
// unless a person named one) and run by a process of its own, `cxl mission fire --mission ID`,
// started detached from this one with its output in the mission's unit.log. So a unit outlives
// the session and the UI that fired it: its asks wait in `cxl approvals` when nobody here is left
// to answer them. A unit process that dies before it takes its record over has the record
// finished `derailed`, saying where its log is.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import type { CompiledEnvelope } from '../../core/envelope/index.ts';
import { ToolError } from '../../core/errors.ts';
import { childProcess } from '../../core/platform/runtime.ts';
import type { Mission } from '../missions/records.ts';
import type { FireRequest, SupervisorBinding } from '../tools/mission/binding.ts';
import { missionEnvelope, startMission, withinCeiling, type MissionStores } from '../units/lifecycle.ts';

export interface FleetOptions {
  stores: MissionStores;
  /** argv that starts this program (`node …/bin/cxl.js`); none: units cannot be started here */
  self?: string[];
  /** the model flags a unit runs with (the agent's own: --provider, --model, …) */
  unitFlags: string[];
  defaultEnvelope?: string;
  fleetMax: number;
  /** the agents a unit may be: run and every [agents.<name>] */
  agents: string[];
  /** an envelope of the configuration of a session rooted at `cwd`, by name (throws for an unknown one) */
  envelope(cwd: string, name: string): CompiledEnvelope;
  log(msg: string): void;
}

/** Where the unit is started from, as the session knows it. */
export interface FiringSession {
  sessionId: string;
  cwd: string;
  /** the session's envelope: the unit's when neither the request nor the configuration names one */
  envelope: string;
  envelopes: string[];
}

/** How long mission_start waits for its unit's verdict. */
export const START_WAIT_MS = 15 * 60 * 1000;

export class Fleet {
  constructor(readonly o: FleetOptions) {}

  get stores(): MissionStores {
    return this.o.stores;
  }

  /** The agent a /mission names: the first word when it is one of the agents and more words follow. */
  splitAgent(words: string[]): { agent?: string; intent: string } {
    if (words.length > 1 && this.o.agents.includes(words[0])) return { agent: words[0], intent: words.slice(1).join(' ') };
    return { intent: words.join(' ') };
  }

  async fire(req: FireRequest, from: FiringSession): Promise<Mission> {
    if (!this.o.self) throw new ToolError('bad_args', 'mission units cannot be started from this agent: it cannot tell which program it is. Run `cxl mission fire --wait` instead.');
    const agent = req.agent ?? 'run';
    if (!this.o.agents.includes(agent)) throw new ToolError('bad_args', `no agent "${agent}"; the agents are ${this.o.agents.join(', ')} (an [agents.<name>] section of agents.toml is one).`);
    const envelope = missionEnvelope(req.envelope, this.o.defaultEnvelope, from.envelopes, from.envelope);
    // the person who types `/mission --envelope X` grants X; what the model asks for, or what
    // nobody named, gets at most the session's envelope, which stays the unit's ceiling
    const ceiling = req.by === 'person' && req.envelope !== undefined ? undefined : from.envelope;
    if (ceiling !== undefined) {
      const how = req.by === 'person' ? `name it yourself (/mission --envelope ${envelope} …) to grant it` : `ask the user to fire it themselves (/mission --envelope ${envelope} …)`;
      withinCeiling(envelope, ceiling, from.envelopes, (name) => this.o.envelope(from.cwd, name), how);
    }
    const m = await startMission(this.o.stores, { intent: req.intent, agent, envelope, ...(ceiling !== undefined ? { ceiling } : {}), cwd: from.cwd, parentSessionId: from.sessionId }, this.o.fleetMax);
    this.#start(m);
    return m;
  }

  /** Starts the unit's process, detached, its output in the mission's unit.log. */
  #start(m: Mission): void {
    const log = path.join(this.o.stores.missions.dir, m.id, 'unit.log');
    const fd = fs.openSync(log, 'a', 0o600);
    const [cmd, ...pre] = this.o.self!;
    const args = [...pre, 'mission', 'fire', '--mission', m.id, ...this.o.unitFlags];
    let child;
    try {
      child = childProcess().spawn(cmd, args, { cwd: m.cwd, detached: true, stdio: ['ignore', fd, fd], env: process.env });
    } finally {
      fs.closeSync(fd);
    }
    const failed = (why: string) => void this.#derail(m, `${why}; see ${log}`);
    child.on('error', (err) => failed(`the unit process could not start (${err.message})`));
    child.on('exit', (code, signal) => {
      if (code !== 0 && code !== null) failed(`the unit process exited with code ${code}`);
      else if (signal) failed(`the unit process was killed by ${signal}`);
    });
    child.unref();
  }

  /** A unit process that ended while its record is still open and still this process's: derailed. */
  async #derail(m: Mission, why: string): Promise<void> {
    const now = this.o.stores.missions.get(m.id);
    if (!now || now.status !== 'open') return;
    if (now.owner.pid !== process.pid && now.owner.pid !== m.owner.pid) {
      // the unit took it over and died: the sweep sees its process gone
      return;
    }
    try {
      await this.o.stores.missions.addReport(m.id, { kind: 'blocker', summary: `the unit could not run: ${why}`, by: 'runtime' });
      await this.o.stores.missions.finish(m.id, 'derailed', why);
    } catch (err) {
      this.o.log(`mission ${m.id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The supervisor binding of one session: what its mission tools fire, list and answer. */
  binding(sessionId: string, from: () => FiringSession, fired: (m: Mission) => void): SupervisorBinding {
    return {
      role: 'supervisor',
      sessionId,
      missions: this.o.stores.missions,
      asks: this.o.stores.asks,
      waitMs: START_WAIT_MS,
      fire: async (req) => {
        const m = await this.fire(req, from());
        fired(m);
        return m;
      },
    };
  }
}
