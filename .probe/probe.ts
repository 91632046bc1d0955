import process from 'node:process';
import { AcpClient } from '../src/client/acp_client.ts';
import { splitCommandLine } from '../src/client/command_line.ts';
const [cmd, wantModel, pick] = process.argv.slice(2);
const cwd = '/tmp/peers-scratch/work';
const c = new AcpClient({ argv: splitCommandLine(cmd), label: 'probe', cwd, model: wantModel || undefined, settleMs: 50, initTimeoutMs: 30000, sessionTimeoutMs: 30000, env: { ...process.env } });
const t0 = Date.now();
void c.start();
const wait = async (p: () => boolean, ms: number) => { const end = Date.now() + ms; while (!p() && Date.now() < end) await new Promise((r) => setTimeout(r, 50)); };
await wait(() => { const s = c.store.getState(); return s.sessionId !== undefined || s.sessionError !== undefined || s.agent.status === 'exited'; }, 60000);
if (pick && c.store.getState().auth) {
  await c.authenticate(pick);
  await wait(() => { const st = c.store.getState(); return st.sessionId !== undefined || st.auth?.busy === undefined; }, 30000);
}
const s = c.store.getState();
const out: Record<string, unknown> = { ms: Date.now() - t0, agent: `${s.agent.name} ${s.agent.version}`, status: s.agent.status, session: s.sessionId, sessionError: s.sessionError, model: s.model, models: s.models?.available.map((m) => m.id).slice(0, 8), modelSource: s.models?.source, mode: s.mode, authNote: s.auth?.note, auth: s.auth?.methods.map((m) => ({ id: m.id, kind: m.kind, name: m.name, description: m.description, vars: m.vars, command: m.command })) };
if (s.sessionId) {
  await new Promise((r) => setTimeout(r, 1500));
  out.commands = c.store.getState().commands.map((x) => x.name).slice(0, 12);
  c.send('hello');
  await wait(() => { const st = c.store.getState(); return !st.running && st.history.some((h) => h.kind === 'user'); }, 2000);
  await wait(() => !c.store.getState().running, 40000);
}
const st = c.store.getState();
out.notices = st.history.filter((h) => h.kind === 'notice').map((h) => h.kind === 'notice' ? `${h.level}: ${h.text}${h.detail ? ' | ' + h.detail.join(' / ') : ''}` : '');
out.agentText = st.history.filter((h) => h.kind === 'agent').map((h) => ('text' in h ? h.text : '')).join('').slice(0, 300);
out.logTail = st.agentLog.slice(-5);
console.log(JSON.stringify(out, null, 1));
await c.close(500);
process.exit(0);
