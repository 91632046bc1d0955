// The client's session lifecycle against the scripted agent child process: what a session's
// answer tells the status line (modes, the model's name, the sandbox), usage_update, set_mode and
// current_mode_update, /clear, /resume (session/list + session/load replaying history), and
// `cxl --continue` / `--resume [ID]` in a second agent process.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { NoFork } from '../../src/client/fork/requests.ts';
import { allText, removeWorkdirs, started, waitFor, workdir } from './client_harness.ts';

after(removeWorkdirs);

test('a session answer gives the status line its modes, the model by name, the sandbox; usage_update fills context use', async () => {
  const c = await started();
  try {
    const s = c.store.getState();
    assert.deepEqual(s.modes.map((m) => m.id), ['ask', 'code', 'plan']);
    assert.equal(s.mode, 'ask');
    assert.equal(s.model, 'Large Model 2', "the selected value's name, not its id");
    assert.deepEqual(s.sandbox, { state: 'bubblewrap', reason: `the client said ${c.terminals.sandboxState().state}` });
    assert.deepEqual(s.capabilities, { loadSession: true, resumeSession: false, closeSession: false, listSessions: true, embeddedContext: true });
    assert.ok(c.fork instanceof NoFork, 'an agent without session/fork gets the object that says so');
    assert.equal(s.usage, undefined);
    c.send('usage');
    const u = await waitFor(c, (x) => x.usage !== undefined, 'the usage update');
    assert.deepEqual(u.usage, { used: 13440, size: 32768 });
  } finally {
    await c.close();
  }
});

test('the client sandbox is shown when the agent reports none, and the agent report wins over it', async () => {
  const c = await started(workdir(), { sandbox: { state: 'unavailable', reason: 'no bwrap' } });
  try {
    assert.equal(c.store.getState().sandbox?.state, 'bubblewrap');
  } finally {
    await c.close();
  }
});

test('setMode switches through session/set_mode; an unknown mode is refused with the reason; current_mode_update is followed', async () => {
  const c = await started();
  try {
    await c.config.setMode('code');
    assert.equal(c.store.getState().mode, 'code');
    await c.config.setMode('nope');
    const s = c.store.getState();
    assert.equal(s.mode, 'code', 'a refused mode does not change what is shown');
    assert.ok(s.history.some((h) => h.kind === 'notice' && /did not switch to mode nope/.test(h.text) && /no mode nope/.test(h.text)));
    c.send('switch');
    await waitFor(c, (x) => x.mode === 'plan', 'the agent-driven mode change');
  } finally {
    await c.close();
  }
});

test('/clear opens a new session and starts the screen over; /resume lists the others; loading one replays its history', async () => {
  const cwd = workdir();
  const c = await started(cwd);
  try {
    c.send('first question');
    await waitFor(c, (x) => !x.running && allText(x).includes('echo: first question'), 'the first answer');
    const epoch = c.store.getState().epoch;
    await c.newSession();
    let s = await waitFor(c, (x) => x.sessionId === 'sess-2', 'the new session');
    assert.equal(s.epoch, epoch + 1);
    assert.doesNotMatch(allText(s), /first question/, 'the old conversation is gone from the screen');
    c.send('second question');
    await waitFor(c, (x) => !x.running && allText(x).includes('echo: second question'), 'the second answer');

    await c.listSessions();
    s = c.store.getState();
    assert.deepEqual(s.sessionChoices?.sessions.map((x) => x.sessionId), ['sess-1'], 'the current session is not offered');
    assert.equal(s.sessionChoices?.startup, false);
    assert.equal(s.sessionChoices?.sessions[0].title, 'first question');

    assert.equal(await c.loadSession('sess-1'), true);
    s = c.store.getState();
    assert.equal(s.sessionId, 'sess-1');
    assert.equal(s.sessionChoices, undefined);
    assert.equal(s.loading, undefined);
    const users = s.history.filter((h) => h.kind === 'user').map((h) => ('text' in h ? h.text : ''));
    assert.deepEqual(users, ['first question'], 'the replayed prompt is history');
    assert.match(allText(s), /echo: first question/);
    assert.doesNotMatch(allText(s), /second question/);
    // the resumed session takes prompts
    c.send('third');
    await waitFor(c, (x) => !x.running && allText(x).includes('echo: third'), 'a prompt in the resumed session');

    assert.equal(await c.loadSession('sess-404'), false);
    s = c.store.getState();
    assert.equal(s.sessionId, 'sess-1', 'a failed load keeps the session that was open');
    assert.ok(s.history.some((h) => h.kind === 'notice' && /Could not resume session sess-404/.test(h.text)));
  } finally {
    await c.close();
  }
});

test('a turn that is running refuses /clear and /resume with what to do', async () => {
  const c = await started();
  try {
    c.send('wait');
    await waitFor(c, (x) => x.permissions.length === 1, 'the waiting turn');
    await c.newSession();
    await c.listSessions();
    const s = c.store.getState();
    assert.equal(s.sessionId, 'sess-1');
    assert.equal(s.history.filter((h) => h.kind === 'notice' && /cancel it with Ctrl\+C first/.test(h.text)).length, 2);
    c.cancel();
  } finally {
    await c.close();
  }
});

test('--continue in a new agent process resumes the newest titled session here; --resume ID that one; --resume offers a picker', async () => {
  const cwd = workdir();
  const one = await started(cwd);
  one.send('older work');
  await waitFor(one, (x) => !x.running && allText(x).includes('echo: older work'), 'the first session');
  await one.newSession();
  await waitFor(one, (x) => x.sessionId === 'sess-2', 'a second session');
  one.send('newer work');
  await waitFor(one, (x) => !x.running && allText(x).includes('echo: newer work'), 'the second session');
  // a third session opened and left without a prompt is not what --continue means
  await one.newSession();
  await waitFor(one, (x) => x.sessionId === 'sess-3', 'an empty third session');
  await one.close();

  const cont = await started(cwd, { resume: { kind: 'continue' } });
  try {
    const s = cont.store.getState();
    assert.equal(s.sessionId, 'sess-2');
    assert.match(allText(s), /newer work/);
    assert.doesNotMatch(allText(s), /older work/);
  } finally {
    await cont.close();
  }

  const byId = await started(cwd, { resume: { kind: 'id', id: 'sess-1' } });
  try {
    assert.equal(byId.store.getState().sessionId, 'sess-1');
    assert.match(allText(byId.store.getState()), /older work/);
  } finally {
    await byId.close();
  }

  const withEnvelope = await started(cwd, { resume: { kind: 'continue' }, envelope: 'plan' });
  try {
    const s = withEnvelope.store.getState();
    assert.equal(s.sessionId, 'sess-2');
    assert.equal(s.mode, 'plan', '--envelope given with --continue wins over the mode the session was left in');
  } finally {
    await withEnvelope.close();
  }

  const pick = await started(cwd, { resume: { kind: 'pick' } });
  try {
    let s = await waitFor(pick, (x) => x.sessionChoices !== undefined, 'the picker');
    assert.equal(s.sessionId, undefined, 'no session is opened before the choice');
    assert.equal(s.sessionChoices?.startup, true);
    assert.deepEqual(s.sessionChoices?.sessions.map((x) => x.sessionId).slice(0, 2), ['sess-3', 'sess-2'], 'newest first');
    pick.send('typed while choosing');
    pick.dismissSessions();
    s = await waitFor(pick, (x) => x.sessionId !== undefined && allText(x).includes('echo: typed while choosing'), 'a new session, then the queued prompt');
    assert.equal(s.sessionId, 'sess-4');
  } finally {
    await pick.close();
  }

  const missing = await started(workdir(), { resume: { kind: 'continue' } });
  try {
    const s = missing.store.getState();
    assert.equal(s.sessionId, 'sess-1', 'nothing to continue: a new session');
    assert.ok(s.history.some((h) => h.kind === 'notice' && /No earlier session/.test(h.text)));
  } finally {
    await missing.close();
  }
});
