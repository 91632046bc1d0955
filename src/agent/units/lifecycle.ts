// A mission's life from outside its unit: the envelope it must name and the ceiling a unit fired
// from a session may not pass, admission (the sweep first,
// so a unit whose process died does not hold a place, then the fleet cap and the record), and the
// end a person or the runtime imposes (stopped, timed out, interrupted): `abandoned`, with the
// reason, and every ask it still waits on denied so nothing is left pending for nobody.
import path from 'node:path';
import { describeWidening, widerThan, type CompiledEnvelope } from '../../core/envelope/index.ts';
import { ToolError } from '../../core/errors.ts';
import { AskStore } from '../missions/ask_store.ts';
import { MissionStore, type NewMission } from '../missions/mission_store.ts';
import type { Mission } from '../missions/records.ts';
import { sweep } from '../missions/sweep.ts';

export interface MissionStores {
  missions: MissionStore;
  asks: AskStore;
}

export function missionStores(dataDir: string): MissionStores {
  return { missions: new MissionStore(dataDir), asks: new AskStore(dataDir) };
}

/** How long a unit's ask waits when its envelope's rule names no timeout. */
export const UNIT_ASK_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * The envelope a mission runs under: the one named, else `default_mission_envelope`, else the
 * firing session's (a unit started from a session); with none, a refusal saying how to name one.
 */
export function missionEnvelope(named: string | undefined, configured: string | undefined, known: readonly string[], fallback?: string): string {
  const e = named ?? configured ?? fallback;
  if (e === undefined) {
    throw new ToolError('bad_args', `no mission envelope: pass --envelope NAME, or set default_mission_envelope = "NAME" in agents.toml. A mission must name the envelope that bounds it; envelopes: ${known.join(', ')}.`);
  }
  if (!known.includes(e)) throw new ToolError('bad_args', `no envelope named \`${e}\`; envelopes: ${known.join(', ')}.`);
  return e;
}

/** How many of the calls a wider envelope lets through further are named in a refusal. */
const WIDENINGS_SHOWN = 4;

/**
 * The ceiling of a unit fired from a session (docs/missions.md, "The ceiling"): the envelope it
 * runs under may be no wider than the session's, whose name the record keeps as the unit's
 * ceiling (every call of the unit is then decided by both). Refuses, saying which calls the named
 * envelope would let through further and which envelopes fit, when it is wider. `compile` gives an
 * envelope of the session's configuration by name.
 */
export function withinCeiling(envelope: string, session: string, known: readonly string[], compile: (name: string) => CompiledEnvelope, how: string): void {
  if (envelope === session) return;
  const wider = widerThan(compile(envelope), compile(session));
  if (!wider.length) return;
  const fit = known.filter((k) => k === session || widerThan(compile(k), compile(session)).length === 0);
  const shown = wider.slice(0, WIDENINGS_SHOWN).map(describeWidening);
  throw new ToolError(
    'envelope_denied',
    `envelope \`${envelope}\` is wider than this session's envelope \`${session}\`, the most a unit this session's model fires may get: ${shown.join('; ')}${wider.length > shown.length ? ` (and ${wider.length - shown.length} more)` : ''}. Name one no wider (${fit.map((f) => `\`${f}\``).join(', ')}), or ${how}.`,
    { envelope, ceiling: session, wider: wider.map((w) => w.call) },
  );
}

/** Sweeps, then records the mission if the fleet has room (throws `fleet_full` when not). */
export async function startMission(s: MissionStores, n: NewMission, cap: number): Promise<Mission> {
  await sweep(s.missions, s.asks);
  return s.missions.create({ ...n, cwd: path.resolve(n.cwd) }, cap);
}

/**
 * Ends an open mission from outside as `abandoned` (a finished one keeps its verdict: `changed`
 * false), and denies every ask it still waits on.
 */
export async function stopMission(s: MissionStores, id: string, reason: string): Promise<{ mission: Mission; changed: boolean }> {
  const r = await s.missions.finish(id, 'abandoned', reason);
  for (const a of s.asks.pending()) if (a.missionId === id) s.asks.respond(a.id, { verdict: 'deny', by: 'stopped', reason });
  return r;
}
