// What missions cost (docs/missions.md):
// - a mission's bookkeeping per model turn: a unit whose every turn files a report (a plan
//   revision every fifth) against the same run whose turns call stat_file instead, one model
//   server on 127.0.0.1 answering both, measured alternately in this process; and the bytes the
//   records take per turn against the bytes of the run's own session log;
// - `cxl approvals list` with 1,000 stored asks, a cold whole process, against jq reading the
//   same 1,000 ask files (and `node -e 0`, the floor of any start);
// - `cxl mission list` over 1,000 recorded missions, cold, against jq reading the same records.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { AskStore } from '../src/agent/missions/ask_store.ts';
import { MissionStore } from '../src/agent/missions/mission_store.ts';
import { agentSetup } from '../src/agent/setup.ts';
import { runMission } from '../src/agent/unattended.ts';
import { startFakeOpenAI, type Reply } from '../test/fixtures/fake_models.ts';
import { pairMs, report } from './report.ts';

const TURNS = 40;
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-missions-')));

function bytesUnder(dir: string): number {
  let n = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? bytesUnder(p) : fs.statSync(p).size;
  }
  return n;
}

/** Turns of one run: with bookkeeping, each files a report (and every fifth a plan); without, a stat_file. */
function script(bookkeeping: boolean): (body: Record<string, unknown>, n: number) => Reply {
  return (_b, n) => {
    if (n === TURNS) return { toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }], bulk: true };
    if (n > TURNS) return { text: 'done', bulk: true };
    if (!bookkeeping) return { toolCalls: [{ name: 'stat_file', arguments: { path: 'notes.txt' } }], bulk: true };
    const calls = [{ name: 'mission_report', arguments: { kind: 'progress', summary: `step ${n} done`, detail: 'x'.repeat(200) } }];
    if (n % 5 === 0) calls.push({ name: 'mission_plan', arguments: { entries: Array.from({ length: 5 }, (_, i) => ({ content: `step ${i}`, status: i <= (n / 5) % 5 ? 'completed' : 'pending' })) } } as never);
    return { toolCalls: calls, bulk: true };
  };
}

async function oneRun(bookkeeping: boolean, i: number): Promise<{ ms: number; missionBytes: number; sessionBytes: number; turns: number }> {
  const dir = path.join(base, `${bookkeeping ? 'with' : 'without'}-${i}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'one\n');
  const srv = await startFakeOpenAI(script(bookkeeping));
  const env = { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' };
  try {
    const setup = await agentSetup({ cwd: dir, env, provider: 'openai', model: 'm', maxTurns: String(TURNS + 5), contextWindow: '1000000', command: 'bench' });
    const t0 = performance.now();
    const s = await runMission(setup, { task: 'work', intent: 'work', agent: 'run', envelope: 'default', signal: new AbortController().signal, emit: () => {} });
    const ms = performance.now() - t0;
    await setup.closeAll();
    if (s.status !== 'landed') throw new Error(`the bench run ended ${s.status}`);
    return { ms, missionBytes: bytesUnder(path.join(dir, 'data', 'cxl', 'missions')), sessionBytes: bytesUnder(path.join(dir, 'data', 'cxl', 'sessions')), turns: s.usage.requests };
  } finally {
    await srv.close();
  }
}

try {
  // per model turn, with and without the records, alternated
  let i = 0;
  const last: Record<string, Awaited<ReturnType<typeof oneRun>>> = {};
  const [withMs, withoutMs] = await pairMs(
    async () => (last.with = await oneRun(true, i++)),
    async () => (last.without = await oneRun(false, i++)),
    5,
  );
  const w = last.with;
  report({ name: `mission bookkeeping, time per model turn (${w.turns} turns, a report each)`, ours: withMs / w.turns, reference: withoutMs / last.without.turns, unit: 'ms', against: 'same run, stat_file per turn', target: '≤ 1.5x' });
  report({ name: 'mission records, bytes per model turn', ours: w.missionBytes / w.turns, reference: w.sessionBytes / w.turns, unit: 'B', against: "the run's own session log" });

  // cxl approvals list, cold, over 1,000 pending asks
  const data = path.join(base, 'asks-data');
  const asks = new AskStore(path.join(data, 'cxl'));
  for (let k = 0; k < 1000; k++) {
    const diff = `--- a/src/f${k}.ts\n+++ b/src/f${k}.ts\n@@ -1,3 +1,3 @@\n export const a = 1;\n-export const b = ${k};\n+export const b = ${k + 1};\n export const c = 3;\n`;
    asks.create({ kind: 'permission', missionId: 'm-00000000aaaa', toolset: 'local_fs', tool: 'edit_file', title: `local_fs.edit_file: src/f${k}.ts`, summary: `local_fs.edit_file: src/f${k}.ts`, diff: { path: `src/f${k}.ts`, isNew: false, diff }, timeoutMs: 24 * 3600_000 });
  }
  const bin = fileURLToPath(new URL('../bin/cxl.js', import.meta.url));
  const env = { ...process.env, HOME: base, XDG_DATA_HOME: data };
  const spawnRun = (cmd: string, args: string[]) => () => {
    const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  const ours = spawnRun(process.execPath, [bin, 'approvals', 'list']);
  const shown = String(ours()).match(/^Diff for a-/gm)?.length;
  if (shown !== 1000) throw new Error(`cxl approvals list showed ${shown} asks, not 1000`);
  const files = fs.readdirSync(asks.dir).filter((f) => f.endsWith('.json')).map((f) => path.join(asks.dir, f));
  const jq = spawnRun('jq', ['-r', '"\\(.id) \\(.summary)\\n\\(.diff.diff)"', ...files]);
  const [listMs, jqMs] = await pairMs(ours, jq, 9);
  report({ name: 'cxl approvals list, 1,000 pending asks, cold', ours: listMs, reference: jqMs, unit: 'ms', against: 'jq over the same 1,000 asks', target: '≤ 5x' });
  const [listMs2, bare] = await pairMs(ours, spawnRun(process.execPath, ['-e', '0']), 9);
  report({ name: 'cxl approvals list, 1,000 pending asks, cold', ours: listMs2, reference: bare, unit: 'ms', against: 'node -e 0' });

  // cxl mission list, cold, over 1,000 recorded missions (each record read and checked for its shape)
  const mdata = path.join(base, 'missions-data');
  const missions = new MissionStore(path.join(mdata, 'cxl'));
  for (let k = 0; k < 1000; k++) {
    const m = await missions.create({ intent: `mission ${k}: ${'work '.repeat(10)}`, agent: 'run', envelope: 'default', cwd: '/tmp', owner: { host: 'elsewhere', pid: 1 } }, 0);
    if (k % 2) await missions.finish(m.id, 'landed', 'done');
  }
  const menv = { ...env, XDG_DATA_HOME: mdata };
  const spawnIn = (cmd: string, args: string[]) => () => {
    const r = spawnSync(cmd, args, { env: menv, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  const mlist = spawnIn(process.execPath, [bin, 'mission', 'list', '--limit', '1000']);
  const rows = String(mlist()).split('\n').filter((l) => l.startsWith('m-')).length;
  if (rows !== 1000) throw new Error(`cxl mission list showed ${rows} missions, not 1000`);
  const records = fs.readdirSync(missions.dir).filter((n) => n.startsWith('m-')).map((n) => path.join(missions.dir, n, 'mission.json'));
  const mjq = spawnIn('jq', ['-r', '"\\(.id) \\(.agent) \\(.status) \\(.intent)"', ...records]);
  const [mMs, mjqMs] = await pairMs(mlist, mjq, 9);
  report({ name: 'cxl mission list, 1,000 missions, cold', ours: mMs, reference: mjqMs, unit: 'ms', against: 'jq over the same 1,000 records', target: '≤ 5x' });
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
