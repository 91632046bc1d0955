// What `cxl acp` and `cxl serve` hand the ACP agent: the one setup of a run turned into the
// agent's options, units it fires included (they run as `cxl mission fire`, this same program).
import path from 'node:path';
import process from 'node:process';
import pkg from '../../package.json' with { type: 'json' };
import type { AgentOptions } from '../agent/acp/agent.ts';
import { checkpointsDir } from '../agent/checkpoints/blob_store.ts';
import { Fleet } from '../agent/acp/fleet.ts';
import { missionStores } from '../agent/units/lifecycle.ts';
import { moduleCommand } from '../core/platform/runtime.ts';
import type { setupFromFlags } from './agent_setup.ts';

/** The flags of this agent a unit it fires runs with: the same model, limits and trust. */
export function unitFlags(values: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of ['provider', 'model', 'max-turns', 'context-window', 'connect-timeout', 'first-byte-timeout', 'idle-timeout']) {
    if (typeof values[k] === 'string') out.push(`--${k}`, values[k] as string);
  }
  if (values['trust-project'] === true) out.push('--trust-project');
  return out;
}

export function agentOptions(setup: Awaited<ReturnType<typeof setupFromFlags>>, values: Record<string, unknown>, log: (msg: string) => void): AgentOptions {
  return {
    version: pkg.version,
    store: setup.store,
    modesFor: setup.modesFor,
    provider: setup.provider,
    providerProblem: setup.providerProblem,
    buildTools: setup.buildAcpTools,
    systemPrompt: setup.systemPrompt,
    memory: setup.memory,
    commands: setup.commands,
    checkpointsDir: checkpointsDir(setup.dataDir),
    ...(setup.checkpointSessionBytes !== undefined ? { checkpointLimits: { sessionBytes: setup.checkpointSessionBytes } } : {}),
    maxTurns: setup.maxTurns,
    newContext: setup.newContext,
    log,
    fleet: new Fleet({
      stores: missionStores(setup.dataDir),
      ...(process.argv[1] ? { self: moduleCommand(path.resolve(process.argv[1])) } : {}),
      unitFlags: unitFlags(values),
      ...(setup.missions.defaultEnvelope ? { defaultEnvelope: setup.missions.defaultEnvelope } : {}),
      fleetMax: setup.missions.fleetMax,
      agents: setup.missions.agents,
      envelope: setup.envelopeFor,
      log,
    }),
  };
}
