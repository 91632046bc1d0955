// `cxl run` as a CI job uses it: a real child process against a scripted model on 127.0.0.1.
// A run is a mission: exit 0 only when its unit lands; a silent unit is nudged once and ends
// stuck with its last answer in the record; what the envelope asks about waits for `cxl approvals
// respond` from another process; the JSON and the event stream match docs/missions.schema.json.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { background, messages, MODEL, pendingAsks, schema, waitFor, workspace } from '../helpers/unattended.ts';

const RUN = ['run', ...MODEL];
const toolResults = (req: Record<string, unknown>) => messages(req).filter((m) => m.role === 'tool').map((m) => m.content);

const landing = [
  { toolCalls: [{ name: 'mission_plan', arguments: { entries: [{ content: 'read notes.txt', status: 'in_progress' }, { content: 'summarise it', status: 'pending' }] } }] },
  { text: 'Let me look.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
  { toolCalls: [{ name: 'mission_report', arguments: { kind: 'result', summary: 'The notes say one and two.', detail: 'Two lines.', refs: ['notes.txt'] } }] },
  { toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed', reason: 'summarised' } }] },
  { text: 'Done.' },
];

test('a unit that plans, reports and finishes lands: exit 0, the result on stdout, progress on stderr, the token line last', async () => {
  const ws = await workspace(landing);
  try {
    const r = await ws.cxl([...RUN, '--envelope', 'default', 'summarise notes.txt']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'The notes say one and two.\n\nTwo lines.\n');
    assert.match(r.stderr, /plan \(revision 1\): \[~\] read notes\.txt · \[ \] summarise it/);
    assert.match(r.stderr, /→ local_fs\.read_file: notes\.txt\n✓ local_fs\.read_file: notes\.txt/);
    assert.match(r.stderr, /Let me look\./);
    assert.match(r.stderr, /report \[result\] The notes say one and two\./);
    assert.match(r.stderr, /mission m-\w+ finished landed: summarised/);
    assert.match(r.stderr.trimEnd().split('\n').at(-1)!, /^cxl run: context .* tokens \(\d+%\); 5 model requests/);
    // the model read the file, and was told it is unattended
    assert.match(toolResults(ws.srv.requests[2])[1], /one\ntwo/);
    assert.match(messages(ws.srv.requests[0]).at(-1)!.content, /UNATTENDED mission unit[\s\S]*Your mission:\nsummarise notes\.txt$/);
    // told how to finish, so a model that would answer in prose knows which calls end it
    assert.match(messages(ws.srv.requests[0]).at(-1)!.content, /To finish, call tools; do not reply in prose: mission_report with kind "result", your answer as its summary[^\n]*then mission_finish with status "landed"/);
    // the in-process toolsets and local_fs, local_shell served by this process, beside the unit's own tools
    const offered = (ws.srv.requests[0].tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    for (const name of ['read_file', 'local_shell', 'jq_query', 'mission_plan', 'mission_report', 'mission_ask_attention', 'mission_finish']) assert.ok(offered.includes(name), `${name} offered: ${offered.join(', ')}`);
    // no repository and no Go module here: their tools would only cost the context window
    assert.deepEqual(offered.filter((n) => /^(git|go)_/.test(n)), []);
    assert.ok(!offered.includes('mission_start'), 'a unit fires no units');
    const id = /mission (m-\w+) finished/.exec(r.stderr)![1];
    const show = await ws.cxl(['mission', 'show', id]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /Status: +landed \(summarised\)/);
    assert.match(show.stdout, /Plan \(revision 1 of 1\):\n  \[~\] read notes\.txt\n  \[ \] summarise it/);
    assert.match(show.stdout, /\[result\] The notes say one and two\.\n      refs: notes\.txt/);
  } finally {
    await ws.close();
  }
});

test('native-git is offered in a repository and native-go in a Go module, found from the root upwards', async () => {
  const ws = await workspace(landing, { 'go.mod': 'module example.com/x\n\ngo 1.21\n', 'pkg/notes.txt': 'one\ntwo\n' });
  try {
    mkdirSync(path.join(ws.dir, '.git'));
    // the session in a folder of the module and the repository, not at their top
    const r = await ws.cxl([...RUN, '--envelope', 'default', '--cwd', 'pkg', 'summarise notes.txt']);
    assert.equal(r.code, 0, r.stderr);
    const offered = (ws.srv.requests[0].tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    for (const name of ['git_status', 'git_diff', 'go_symbols', 'jq_query']) assert.ok(offered.includes(name), `${name} offered: ${offered.join(', ')}`);
  } finally {
    await ws.close();
  }
});

test('--output-format json: one object at the end that validates against docs/missions.schema.json', async () => {
  const ws = await workspace(landing);
  try {
    const r = await ws.cxl([...RUN, '--envelope', 'default', '--output-format', 'json', 'summarise notes.txt']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 1, 'one object, nothing else on stdout');
    const out = JSON.parse(lines[0]);
    assert.equal(schema().summary(out), undefined);
    assert.equal(out.status, 'landed');
    assert.equal(out.is_error, false);
    assert.equal(out.exit_code, 0);
    assert.equal(out.result, 'The notes say one and two.\n\nTwo lines.');
    assert.deepEqual(out.refused, []);
    assert.equal(out.usage.requests, 5);
    assert.deepEqual(out.reports.map((x: { kind: string }) => x.kind), ['result']);
    assert.match(out.session_id, /^run-/);
    // what it says is on record: the same mission, from another process
    const show = JSON.parse((await ws.cxl(['mission', 'show', out.mission_id, '--json'])).stdout);
    assert.equal(show.mission.status, 'landed');
    assert.equal(show.mission.sessionId, out.session_id);
    assert.equal(show.plan.revision, 1);
  } finally {
    await ws.close();
  }
});

test('a unit that never calls the mission tools is nudged once, then ends stuck (exit 1) with a record that says so plainly: its last answer, no blocker report', async () => {
  const ws = await workspace([{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'Renamed everything and ran it.' }, { text: 'All good, trust me.' }]);
  try {
    const r = await ws.cxl([...RUN, '--envelope', 'default', '--output-format', 'json', 'rename things']);
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(schema().summary(out), undefined);
    assert.equal(out.status, 'stuck');
    assert.equal(out.is_error, true);
    assert.equal(out.exit_code, 1, 'stuck with no refused call: exit 1, as docs/missions.md says');
    assert.equal(ws.srv.requests.length, 3, 'the first turn (two requests) and one nudge, never a third turn');
    assert.match(messages(ws.srv.requests[2]).at(-1)!.content, /^Your last turn ended without reaching outside this session/);
    assert.equal(out.reason, 'ended without a verdict: its last answer was "All good, trust me."; it never used the mission tools, even after one nudge');
    assert.deepEqual(out.reports, [], 'no blocker report: the reason says it');
    // the model's claim is not the result of a mission that did not land: it is its last message only
    assert.equal(out.result, 'All good, trust me.');
    assert.match(r.stderr, /nudged once/);
    const show = await ws.cxl(['mission', 'show', out.mission_id]);
    assert.match(show.stdout, /Status: +stuck \(ended without a verdict: its last answer was "All good, trust me\."; it never used the mission tools, even after one nudge\)/);
  } finally {
    await ws.close();
  }
});

test('a result naming files that do not exist is filed as progress and says so; the unit did not land', async () => {
  const ws = await workspace([
    { toolCalls: [{ name: 'mission_report', arguments: { kind: 'result', summary: 'Wrote the report.', refs: ['out/report.md', 'notes.txt:2', 'https://example.com/x'] } }] },
    { text: 'done' },
    { text: 'done' },
  ]);
  try {
    const r = await ws.cxl([...RUN, '--envelope', 'default', '--output-format', 'json', 'write a report']);
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout);
    const first = out.reports[0];
    assert.equal(first.kind, 'progress');
    assert.deepEqual(first.missing, ['out/report.md']);
    assert.match(first.detail, /claimed artifacts not found: "out\/report\.md"/);
    assert.match(toolResults(ws.srv.requests[1])[0], /downgraded from result: claimed artifacts not found: out\/report\.md/);
  } finally {
    await ws.close();
  }
});

test('an edit that needs approval under `default` waits: the ask is in `cxl approvals list` with its diff, --approve from another process lets it land', async () => {
  const ws = await workspace([
    { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'two', new_string: 'three' } }] },
    { toolCalls: [{ name: 'mission_report', arguments: { kind: 'result', summary: 'Changed two to three.', refs: ['notes.txt'] } }, { name: 'mission_finish', arguments: { status: 'landed' } }] },
    { text: 'Done.' },
  ]);
  try {
    const run = background(ws, [...RUN, '--envelope', 'default', 'change two to three']);
    const [ask] = await waitFor(async () => {
      const a = await pendingAsks(ws);
      return a.length ? a : undefined;
    }, 'the ask to be stored');
    assert.equal(ask.kind, 'permission');
    assert.equal(`${ask.toolset}.${ask.tool}`, 'local_fs.edit_file');
    assert.equal(readFileSync(path.join(ws.dir, 'notes.txt'), 'utf8'), 'one\ntwo\n', 'nothing written while it waits');
    const list = await ws.cxl(['approvals', 'list']);
    assert.match(list.stdout, new RegExp(`${ask.id}  permission  local_fs\\.edit_file  m-\\w+`));
    assert.match(list.stdout, /-two\n\+three/);
    assert.match(run.stderr(), new RegExp(`\\? local_fs\\.edit_file: notes\\.txt: waiting for a person \\(ask ${ask.id}, until `));
    const ok = await ws.cxl(['approvals', 'respond', String(ask.id), '--approve']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /Verdict recorded for a-\w+: approved/);
    const end = await run.exited;
    assert.equal(end.code, 0, run.stderr());
    assert.equal(readFileSync(path.join(ws.dir, 'notes.txt'), 'utf8'), 'one\nthree\n');
    assert.deepEqual(await pendingAsks(ws), []);
  } finally {
    await ws.close();
  }
});

test('--deny ends it with exit 3: nothing written, the refusal in the JSON and the reason given to the model', async () => {
  const ws = await workspace([
    // text smuggled in tag characters, a carriage return and an escape: `cxl approvals list` marks them all
    { toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x\u{e0041}\u{e0042}\rshown\u001b[8m\n' } }] },
    { toolCalls: [{ name: 'mission_finish', arguments: { status: 'stuck', reason: 'the write was denied' } }] },
    { text: 'I could not write it.' },
  ]);
  try {
    const run = background(ws, [...RUN, '--envelope', 'default', '--output-format', 'json', 'write new.txt']);
    const [ask] = await waitFor(async () => ((await pendingAsks(ws)).length ? pendingAsks(ws) : undefined), 'the ask');
    assert.match(String((ask.diff as { diff: string }).diff), /\+x/);
    assert.ok((await ws.cxl(['approvals', 'list'])).stdout.includes('+x⟨U+E0041⟩⟨U+E0042⟩⟨U+000D⟩shown⟨U+001B⟩[8m\n'), 'every hidden character of the diff marked');
    const no = await ws.cxl(['approvals', 'respond', String(ask.id), '--deny', '--reason', 'not in this repo']);
    assert.equal(no.code, 0, no.stderr);
    const end = await run.exited;
    assert.equal(end.code, 3, run.stderr());
    const out = JSON.parse(run.stdout());
    assert.equal(schema().summary(out), undefined);
    assert.equal(out.status, 'stuck');
    assert.equal(out.exit_code, 3);
    assert.deepEqual(out.refused.map((x: { code: string; tool: string }) => [x.tool, x.code]), [['local_fs.write_file', 'rejected']]);
    assert.equal(existsSync(path.join(ws.dir, 'new.txt')), false);
    assert.match(toolResults(ws.srv.requests[1])[0], /"code":"rejected".*not in this repo/);
  } finally {
    await ws.close();
  }
});

test('a unit cannot answer an ask itself: another unit writing the verdict file, by write_file or a command, is refused and the ask still waits for a person', async () => {
  // the data dir is inside the workspace here (XDG_DATA_HOME=<workspace>/data): the worst case
  let askId = '';
  const turns = new Map<string, number>();
  const ws = await workspace((body) => {
    const task = messages(body).find((m) => m.role === 'user')!.content;
    const n = turns.get(task.slice(-20)) ?? 0;
    turns.set(task.slice(-20), n + 1);
    if (/write new\.txt$/.test(task)) {
      if (n === 0) return { toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x\n' } }] };
      if (n === 1) return { toolCalls: [{ name: 'mission_finish', arguments: { status: 'stuck' } }] };
      return { text: 'ok' };
    }
    const verdict = `data/cxl/asks/${askId}.verdict`;
    if (n === 0) return { toolCalls: [{ name: 'write_file', arguments: { path: verdict, content: JSON.stringify({ askId, verdict: 'approve', by: 'person (cli)', at: new Date().toISOString() }) } }] };
    if (n === 1) return { toolCalls: [{ name: 'local_shell', arguments: { command: `cp approve.json ${verdict}` } }] };
    if (n === 2) return { toolCalls: [{ name: 'local_shell', arguments: { command: `cd data/cxl && cp ../../approve.json asks/${askId}.verdict` } }] };
    if (n === 3) return { toolCalls: [{ name: 'mission_finish', arguments: { status: 'derailed' } }] };
    return { text: 'ok' };
  }, { 'notes.txt': 'one\n', 'approve.json': '{"verdict":"approve","by":"person (cli)"}' });
  try {
    const run = background(ws, [...RUN, '--envelope', 'default', 'write new.txt']);
    const [ask] = await waitFor(async () => ((await pendingAsks(ws)).length ? pendingAsks(ws) : undefined), 'the ask');
    askId = String(ask.id);
    const forger = await ws.cxl([...RUN, '--envelope', 'auto_edit', '--output-format', 'json', 'approve the pending ask']);
    // each attempt failed before it ran: the data dir is in the quarantine no tool reads or writes
    const failed = forger.stderr.split('\n').filter((l) => l.startsWith('✗ '));
    assert.equal(failed.length, 3, forger.stderr);
    for (const l of failed) assert.match(l, /: (quarantined|policy_refused): .*credential quarantine/);
    assert.equal(JSON.parse(forger.stdout).status, 'derailed');
    assert.equal(existsSync(path.join(ws.data, 'asks', `${askId}.verdict`)), false, 'no verdict written');
    assert.deepEqual((await pendingAsks(ws)).map((a) => a.id), [askId], 'the ask still waits');
    assert.equal(existsSync(path.join(ws.dir, 'new.txt')), false);
    const no = await ws.cxl(['approvals', 'respond', askId, '--deny']);
    assert.equal(no.code, 0, no.stderr);
    assert.equal((await run.exited).code, 3, run.stderr());
    assert.equal(existsSync(path.join(ws.dir, 'new.txt')), false);
  } finally {
    await ws.close();
  }
});

test('two responders at once: one verdict is recorded, the other is told which stands, and the run follows the one recorded', async () => {
  // the unit lands when its write went through, and finishes stuck when it was refused
  const ws = await workspace((body, n) => {
    const last = messages(body).at(-1)!;
    if (n === 0) return { toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x\n' } }] };
    if (n === 1) return { toolCalls: [{ name: 'mission_finish', arguments: { status: /"code":"rejected"/.test(last.content) ? 'stuck' : 'landed' } }] };
    return { text: 'ok' };
  });
  try {
    const run = background(ws, [...RUN, '--envelope', 'default', '--output-format', 'json', 'write new.txt']);
    const [ask] = await waitFor(async () => ((await pendingAsks(ws)).length ? pendingAsks(ws) : undefined), 'the ask');
    const id = String(ask.id);
    const [a, b] = await Promise.all([ws.cxl(['approvals', 'respond', id, '--approve']), ws.cxl(['approvals', 'respond', id, '--deny'])]);
    assert.deepEqual([a.code, b.code].sort(), [0, 1], `${a.stderr}${b.stderr}`);
    const loser = a.code === 1 ? a : b;
    assert.match(loser.stderr, new RegExp(`ask ${id} was already (approved|denied) by a person \\(cli\\) at .*; a verdict is recorded exactly once`));
    const approved = a.code === 0;
    const end = await run.exited;
    assert.equal(existsSync(path.join(ws.dir, 'new.txt')), approved, 'the file lands only if the approval won');
    assert.equal(end.code, approved ? 0 : 3, run.stderr());
    const again = await ws.cxl(['approvals', 'respond', id, '--approve']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already/);
  } finally {
    await ws.close();
  }
});

test('kill -9 of the run while it waits on an ask leaves an open record; the next look reclaims it as abandoned and closes the ask', async () => {
  const ws = await workspace([{ toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x\n' } }] }, { text: 'never reached' }]);
  try {
    const run = background(ws, [...RUN, '--envelope', 'default', '--output-format', 'json', 'write new.txt']);
    const [ask] = await waitFor(async () => ((await pendingAsks(ws)).length ? pendingAsks(ws) : undefined), 'the ask');
    run.child.kill('SIGKILL');
    await run.exited;
    const mid = String(ask.missionId);
    const record = JSON.parse(readFileSync(path.join(ws.data, 'missions', mid, 'mission.json'), 'utf8'));
    assert.equal(record.status, 'open', 'a killed process wrote nothing more');
    const list = await ws.cxl(['mission', 'list']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`${mid}  run +default +abandoned`));
    const show = JSON.parse((await ws.cxl(['mission', 'show', mid, '--json'])).stdout);
    assert.match(show.mission.reason, /^reclaimed: its process \(pid \d+\) is gone$/);
    assert.equal(show.reports.at(-1).summary, 'Mission reclaimed: its process is gone.');
    assert.deepEqual(await pendingAsks(ws), []);
    const late = await ws.cxl(['approvals', 'respond', String(ask.id), '--approve']);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /already denied \(reclaimed\)/);
  } finally {
    await ws.close();
  }
});

test('piped stdin rides with the task between markers (`git diff | cxl run "review"`), and `-` reads the task itself from stdin', async () => {
  const diff = 'diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n';
  const finish = { toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] };
  const ws = await workspace([finish, { text: 'reviewed' }, finish, { text: 'reviewed' }]);
  try {
    const r = await ws.cxl([...RUN, '--envelope', 'default', 'review this'], { input: diff });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(messages(ws.srv.requests[0]).at(-1)!.content.endsWith(`Your mission:\nreview this\n\n--- begin piped stdin ---\n${diff}--- end piped stdin ---`));
    const list = await ws.cxl(['mission', 'list']);
    assert.match(list.stdout, new RegExp(`review this \\(\\+ ${Buffer.byteLength(diff)} bytes piped stdin\\)`));
    const dash = await ws.cxl([...RUN, '--envelope', 'default', '-'], { input: 'summarise notes.txt\nbriefly\n' });
    assert.equal(dash.code, 0, dash.stderr);
    assert.match(messages(ws.srv.requests[2]).at(-1)!.content, /Your mission:\nsummarise notes\.txt\nbriefly$/);
  } finally {
    await ws.close();
  }
});

test('--output-format stream-json: each line parses and matches the schema, and they arrive while the run is still going', async () => {
  const ws = await workspace([
    { toolCalls: [{ name: 'mission_plan', arguments: { entries: [{ content: 'look', status: 'in_progress' }] } }] },
    { toolCalls: [{ name: 'stat_file', arguments: { path: 'notes.txt' } }] },
    { toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] },
    { text: 'finished', delayMs: 2000 },
  ]);
  try {
    const run = background(ws, [...RUN, '--envelope', 'default', '--output-format', 'stream-json', 'look around']);
    const end = await run.exited;
    assert.equal(end.code, 0, run.stderr());
    const check = schema();
    const events = run.lines.map(({ at, line }) => {
      const e = JSON.parse(line);
      assert.equal(check.event(e), undefined, line);
      return { at, e };
    });
    const types = events.map((x) => x.e.type);
    assert.deepEqual(types.slice(0, 2), ['init', 'tool_call']);
    assert.ok(types.includes('plan') && types.includes('tool_result'));
    assert.equal(types.at(-1), 'result');
    assert.equal(events.at(-1)!.e.status, 'landed');
    const plan = events.find((x) => x.e.type === 'plan')!;
    assert.ok(end.at - plan.at >= 1500, `the plan arrived ${end.at - plan.at} ms before the end; the last reply alone takes 2 s`);
    assert.equal(run.stderr(), '', 'stream-json keeps stderr quiet');
  } finally {
    await ws.close();
  }
});

test('with no --envelope a run is read_only and says so on stderr; default_mission_envelope names another; an unknown one is refused', async () => {
  const ws = await workspace((body) => (messages(body).at(-1)!.role === 'tool' ? { text: 'ok' } : { toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] }));
  try {
    const none = await ws.cxl([...RUN, '--output-format', 'json', 'do it']);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(JSON.parse(none.stdout).envelope, 'read_only');
    assert.match(none.stderr, /^cxl run: envelope read_only: no --envelope and no default_mission_envelope set: reads only, no writes or commands; --envelope NAME for more\ncxl run: mission m-\w+ \(agent run, envelope read_only,/);
    const named = await ws.cxl([...RUN, '--envelope', 'default', 'do it']);
    assert.equal(named.code, 0, named.stderr);
    assert.doesNotMatch(named.stderr, /cxl run: envelope /, 'an envelope named on the command line needs no word about it');
    mkdirSync(path.join(ws.dir, '.contenox'));
    writeFileSync(path.join(ws.dir, '.contenox', 'agents.toml'), 'default_mission_envelope = "auto_edit"\n');
    const configured = await ws.cxl([...RUN, '--output-format', 'json', 'do it'], { env: { HOME: path.join(ws.dir, '.contenox', '..') } });
    // the file above is the user's own (HOME is the workspace): no trust needed
    assert.equal(configured.code, 0, configured.stderr);
    assert.equal(JSON.parse(configured.stdout).envelope, 'auto_edit');
    assert.match(configured.stderr, /^cxl run: envelope auto_edit: default_mission_envelope in .*agents\.toml\n/);
    const bad = await ws.cxl([...RUN, '--envelope', 'nope', 'do it']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /no envelope named `nope`; envelopes: ask_always, auto_edit, default, read_only, serve, strict/);
  } finally {
    await ws.close();
  }
});

test('--timeout ends with 124, SIGTERM with 143, SIGINT with 130, SIGHUP with 129; each leaves the record abandoned with the reason', async () => {
  const ws = await workspace([{ text: 'slow', delayMs: 20_000 }]);
  try {
    const t = await ws.cxl([...RUN, '--envelope', 'default', '--output-format', 'json', '--timeout', '0m1s', 'be slow']);
    assert.equal(t.code, 124, t.stderr);
    const out = JSON.parse(t.stdout);
    assert.equal(out.exit_code, 124);
    assert.equal(out.status, 'abandoned');
    assert.equal(out.reason, 'stopped: --timeout 0m1s');
    assert.match(t.stderr, /stopped after the --timeout of 0m1s\.\ncxl run: no model request|stopped after the --timeout of 0m1s\.\ncxl run: context/);
    const run = background(ws, [...RUN, '--envelope', 'default', '--output-format', 'json', 'be slow']);
    await waitFor(() => ws.srv.requests.length >= 2 || undefined, 'the model request');
    // process.kill, not child.kill: Deno's child_process reports a child it signalled itself as
    // killed by the signal whatever its exit code was
    process.kill(run.child.pid!, 'SIGTERM');
    const end = await run.exited;
    assert.equal(end.code, 143, run.stderr());
    const killed = JSON.parse(run.stdout());
    assert.equal(killed.status, 'abandoned');
    assert.equal(killed.reason, 'stopped: SIGTERM');
    const intr = background(ws, [...RUN, '--envelope', 'default', '--output-format', 'json', 'be slow']);
    await waitFor(() => ws.srv.requests.length >= 3 || undefined, 'the third run\'s model request');
    process.kill(intr.child.pid!, 'SIGINT');
    const stopped = await intr.exited;
    assert.equal(stopped.code, 130, intr.stderr());
    const interrupted = JSON.parse(intr.stdout());
    assert.equal(interrupted.status, 'abandoned');
    assert.equal(interrupted.reason, 'stopped: SIGINT');
    assert.equal(interrupted.exit_code, 130);
    // the terminal it ran in closed
    const hup = background(ws, [...RUN, '--envelope', 'default', '--output-format', 'json', 'be slow']);
    await waitFor(() => ws.srv.requests.length >= 4 || undefined, 'the fourth run\'s model request');
    process.kill(hup.child.pid!, 'SIGHUP');
    const hung = await hup.exited;
    assert.equal(hung.code, 129, hup.stderr());
    assert.equal(JSON.parse(hup.stdout()).reason, 'stopped: SIGHUP');
  } finally {
    await ws.close();
  }
});

test('--resume continues a run\'s session; --continue picks this directory\'s newest', async () => {
  const ws = await workspace((body) => {
    const last = messages(body).at(-1)!;
    if (last.role === 'tool') return { text: 'ok' };
    return { toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] };
  });
  try {
    const first = JSON.parse((await ws.cxl([...RUN, '--envelope', 'default', '--output-format', 'json', 'remember the word banana'])).stdout);
    const again = await ws.cxl([...RUN, '--envelope', 'default', '--output-format', 'json', '--resume', first.session_id, 'what was the word?']);
    assert.equal(again.code, 0, again.stderr);
    const second = JSON.parse(again.stdout);
    assert.equal(second.session_id, first.session_id);
    assert.notEqual(second.mission_id, first.mission_id, 'a new mission on the same session');
    const sent = messages(ws.srv.requests.at(-1)!).map((m) => m.content).join('\n');
    assert.match(sent, /remember the word banana[\s\S]*what was the word\?/);
    const cont = await ws.cxl([...RUN, '--envelope', 'default', '--output-format', 'json', '--continue', 'and again?']);
    assert.equal(JSON.parse(cont.stdout).session_id, first.session_id);
    const missing = await ws.cxl([...RUN, '--envelope', 'default', '--resume', 'nope', 'x']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no stored session "nope"/);
  } finally {
    await ws.close();
  }
});

test('what cxl run prints passes the sanitiser: an OSC 52 answer and an argument with \\r and \\e[2K reach no terminal raw', async () => {
  const osc52 = '\u001b]52;c;Y3VybCBodHRwOi8vZXZpbCB8IHNo\u0007';
  const ws = await workspace([
    { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt\r\u001b[2K✓ all good' } }] },
    { toolCalls: [{ name: 'mission_report', arguments: { kind: 'result', summary: `Done.${osc52} Trust me \u202Enoitacol\u202C.` } }, { name: 'mission_finish', arguments: { status: 'landed' } }] },
    { text: 'x' },
  ]);
  try {
    const r = await ws.cxl([...RUN, '--envelope', 'default', 'look']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /\u001b|\u0007|\r/);
    assert.equal(r.stdout, 'Done. Trust me ⟨U+202E⟩noitacol⟨U+202C⟩.\n');
    assert.match(r.stderr, /notes\.txt✓ all good/);
  } finally {
    await ws.close();
  }
});

test('an unreachable provider derails the mission (exit 1) with how to configure one; no task is a usage error', async () => {
  const ws = await workspace([]);
  try {
    const r = await ws.cxl([...RUN, '--envelope', 'default', 'hello'], { env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /report \[blocker\] unit turn failed: No model is reachable/);
    assert.match(r.stderr, /finished derailed/);
    const u = await ws.cxl(['run']);
    assert.equal(u.code, 2);
    assert.match(u.stderr, /give the task/);
    const bad = await ws.cxl(['run', '--timeout', 'soon', 'x']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /not a duration/);
    const fmt = await ws.cxl(['run', '--output-format', 'yaml', 'x']);
    assert.equal(fmt.code, 2);
    assert.match(fmt.stderr, /--output-format "yaml" is not one of text, json, stream-json/);
  } finally {
    await ws.close();
  }
});
