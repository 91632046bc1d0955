// Shared by the client tests that drive the scripted agent: temp dirs, a started client, waiting
// on the store.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AcpClient, type ClientOptions } from '../../src/client/acp_client.ts';
import type { ClientState } from '../../src/client/state.ts';
import { moduleCommand } from '../../src/core/platform/runtime.ts';

export const fixture = fileURLToPath(new URL('../fixtures/scripted_agent.ts', import.meta.url));

const dirs: string[] = [];

export function workdir(): string {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-client-')));
  dirs.push(d);
  return d;
}

export function removeWorkdirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export async function waitFor(client: AcpClient, pred: (s: ClientState) => boolean, what: string, ms = 10_000): Promise<ClientState> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = client.store.getState();
    if (pred(s)) return s;
    if (Date.now() > deadline) {
      assert.fail(`timed out waiting for ${what}; state: ${JSON.stringify({ sessionId: s.sessionId, live: s.live, history: s.history, agent: s.agent, choices: s.sessionChoices }, null, 1).slice(0, 2000)}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const allText = (s: ClientState) => [...s.history, ...s.live].map((i) => ('text' in i ? i.text : '')).join('\n');

/** A client on the scripted agent; waits for its session unless it resumes through a picker. */
export async function started(cwd = workdir(), extra: Partial<ClientOptions> = {}): Promise<AcpClient> {
  const c = new AcpClient({ argv: moduleCommand(fixture), label: 'fixture', cwd, settleMs: 5, ...extra });
  await c.start();
  if (extra.resume?.kind !== 'pick') await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  return c;
}
