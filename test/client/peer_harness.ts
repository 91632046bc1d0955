// Shared by the client tests that drive the peer agent (test/fixtures/peer_agent.ts) as a real
// child process: temp dirs, a started client with the agent's flags, waiting on the store, and
// what the agent wrote to stderr (its record of what it was sent).
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { AcpClient, type ClientOptions } from '../../src/client/acp_client.ts';
import type { ClientState } from '../../src/client/state.ts';
import { moduleCommand } from '../../src/core/platform/runtime.ts';

export const peerFixture = fileURLToPath(new URL('../fixtures/peer_agent.ts', import.meta.url));
const dirs: string[] = [];
const clients: AcpClient[] = [];

export function peerWorkdir(): string {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-peer-')));
  dirs.push(d);
  return d;
}

/** Every client closed, every directory removed (register with `after`). */
export async function removePeers(): Promise<void> {
  for (const c of clients.splice(0)) await c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A client on the peer agent started with `flags`; not awaited (agents start side by side). */
export function peer(flags: string[], opts: Partial<ClientOptions> = {}): AcpClient {
  const c = new AcpClient({ argv: [...moduleCommand(peerFixture), ...flags], label: 'peer', cwd: peerWorkdir(), settleMs: 5, ...opts, env: { ...process.env, HOME: peerWorkdir(), PEER_API_KEY: '', GEMINI_API_KEY: '', ...opts.env } });
  clients.push(c);
  void c.start();
  return c;
}

export async function waitFor(c: AcpClient, pred: (s: ClientState) => boolean, what: string, ms = 10_000): Promise<ClientState> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = c.store.getState();
    if (pred(s)) return s;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; state: ${JSON.stringify({ history: s.history, live: s.live, agent: s.agent, log: s.agentLog, mode: s.mode, modes: s.modes }).slice(0, 3000)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The conversation's text: messages, notices and markers, in order. */
export const shown = (s: ClientState): string => [...s.history, ...s.live].map((i) => ('text' in i ? i.text : '')).join('\n');

/** The agent's stderr lines that start `peer-agent: <what>`. */
export const agentSaid = (s: ClientState, what: string): string[] => s.agentLog.filter((l) => l.startsWith(`peer-agent: ${what}`));
