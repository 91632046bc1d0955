// What time and dead processes decide, applied lazily by whoever looks (`cxl mission list|show`,
// `cxl approvals list`, the fleet cap): an ask past its deadline gets its on-timeout verdict
// (deny), an ask of no mission (`cxl -p --wait-for-approvals`) whose process is gone is denied,
// and an open mission whose process is gone is finished `abandoned` with a blocker report
// saying so, its pending asks closed. A process on this host that no longer exists is gone at
// once; one elsewhere after HEARTBEAT_STALE_MS without a heartbeat, widened to its longest
// pending ask (an ask that waits `never` keeps it).
import type { Ask, AskStore } from './ask_store.ts';
import type { MissionStore } from './mission_store.ts';
import { HEARTBEAT_STALE_MS } from './mission_store.ts';
import { ownerGone } from './owner.ts';
import type { Mission } from './records.ts';

export interface SweepResult {
  expired: number;
  reclaimed: Mission[];
  /** the asks still waiting after the sweep, oldest first (so a listing reads them once) */
  waiting: Ask[];
}

/** A record the sweep could not read: named, with what to do (a listing shows them). */
export type Damaged = (id: string, message: string) => void;

export async function sweep(missions: MissionStore, asks: AskStore, now = Date.now(), damaged?: Damaged): Promise<SweepResult> {
  let expired = 0;
  let waiting: Ask[] = [];
  for (const a of asks.pending(damaged)) {
    if (a.expiresAt && Date.parse(a.expiresAt) <= now) {
      if (asks.respond(a.id, { verdict: 'deny', by: 'expired' }).recorded) expired++;
    } else if (!a.missionId && ownerGone(a.owner) === true) {
      // nobody waits for its verdict any more; a mission's asks are closed with their mission below
      asks.respond(a.id, { verdict: 'deny', by: 'reclaimed', reason: `reclaimed: its process (pid ${a.owner.pid}) is gone` });
    } else waiting.push(a);
  }
  const reclaimed: Mission[] = [];
  for (const m of missions.open(damaged)) {
    const mine = waiting.filter((a) => a.missionId === m.id);
    const dead = ownerGone(m.owner);
    let why: string | undefined;
    if (dead === true) why = `reclaimed: its process (pid ${m.owner.pid}) is gone`;
    else if (dead === undefined && !mine.some((a) => a.expiresAt === null)) {
      const beat = missions.heartbeatAt(m.id) ?? Date.parse(m.updatedAt);
      const lastAsk = Math.max(0, ...mine.map((a) => Date.parse(a.expiresAt!)));
      if (now - beat > HEARTBEAT_STALE_MS && now > lastAsk) why = `reclaimed: no heartbeat from its process on ${m.owner.host} for ${Math.round((now - beat) / 60_000)} min`;
    }
    if (!why) continue;
    try {
      const r = await missions.finish(m.id, 'abandoned', why);
      if (!r.changed) continue;
      await missions.addReport(m.id, { kind: 'blocker', summary: 'Mission reclaimed: its process is gone.', detail: why, by: 'runtime' });
      for (const a of mine) asks.respond(a.id, { verdict: 'deny', by: 'reclaimed', reason: why });
      waiting = waiting.filter((a) => a.missionId !== m.id);
      reclaimed.push(r.mission);
    } catch {
      /* finished meanwhile by its own process: that verdict stands */
    }
  }
  return { expired, reclaimed, waiting };
}
