import './env.ts';
// The views of src/ui/views/: every binding of the table is handled by the view of each focus it
// names, and one precedence decides both what is drawn and what takes the keys. Driven through the
// real App over a fake stdin, with every overlay open at once and peeled off one at a time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClientStore } from '../../src/client/state.ts';
import { App, type Controller } from '../../src/ui/App.tsx';
import { BINDINGS, bindingsFor, type Focus } from '../../src/ui/keys.ts';
import { VIEWS } from '../../src/ui/views/focus.ts';
import { globalKeys } from '../../src/ui/views/global.ts';
import { KEY, renderAt, tick, NO_ARMING } from './harness.ts';
import * as states from './states.ts';

test('every binding has a handler in the view of each focus it names; no view handles a key it has no binding for', () => {
  const missing: string[] = [];
  for (const b of BINDINGS) {
    if (b.focus === 'global') {
      if (!globalKeys[b.action]) missing.push(`${b.action} (anywhere)`);
      continue;
    }
    for (const f of b.focus) if (!VIEWS[f]?.keys[b.action]) missing.push(`${b.action} in ${f}`);
  }
  assert.deepEqual(missing, []);
  const unbound: string[] = [];
  for (const [focus, view] of Object.entries(VIEWS) as [Focus, (typeof VIEWS)[Focus]][]) {
    assert.equal(view.focus, focus);
    for (const action of Object.keys(view.keys)) if (!bindingsFor(focus).some((b) => b.action === action)) unbound.push(`${action} in ${focus}`);
  }
  assert.deepEqual(unbound, []);
});

/** A client stand-in that does to the store what the ACP client does for these calls. */
function client(store: ClientStore): Controller & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    send: (t) => void calls.push(`send ${t}`),
    cancel: () => void calls.push('cancel'),
    quit: () => void calls.push('quit'),
    permissions: {
      answer: (key, outcome) => {
        calls.push(`answer ${outcome.outcome === 'selected' ? outcome.optionId : outcome.outcome}`);
        states.permissionAnswers(store).answer(key, outcome);
      },
    },
    dismissSessions: () => {
      calls.push('dismiss sessions');
      store.offerSessions(undefined);
    },
    login: {
      authenticate: () => {},
      login: () => {},
      dismiss: () => {
        calls.push('dismiss login');
        store.login.set(undefined);
      },
    },
  };
}

test('one precedence: with every overlay open, the one drawn is the one Esc closes, down to the composer', async () => {
  const store = states.picker();
  store.login.set({ reason: 'Authentication required', then: 'continue', methods: [{ id: 'key', name: 'Use an API key', kind: 'agent', vars: [], setVars: [] }] });
  const answer = states.permissionAnswers(store).ask('a1b2c3d4e5f6', { toolCallId: 'e1', title: 'Edit src/app.ts', kind: 'edit', status: 'pending', content: [states.DIFF] }, states.OPTIONS);
  const ctl = client(store);
  const initial = { transcript: { selected: 0, expanded: new Set<string>() }, composer: { text: '/', cursor: 1 } };
  const r = renderAt(<App store={store} controller={ctl} animate={false} arming={NO_ARMING} size={{ columns: 120, rows: 40 }} initial={initial} />, 120, 40);
  await tick();
  const shows = (panel: RegExp, footer: string, what: string) => {
    assert.match(r.lastFrame(), panel, `${what}: its rows`);
    assert.ok(r.lastFrame().includes(footer), `${what}: its keys in the footer`);
  };

  shows(/── approval ─/, 'y allow once', 'the approval');
  await r.press('r');
  shows(/Reason for the agent/, 'Enter reject with this reason', 'the reason');
  await r.press(KEY.esc);
  shows(/Allow once {2}\(y\)/, 'n/Esc reject', 'back to the approval');
  await r.press(KEY.esc);
  assert.deepEqual(await answer, { outcome: 'selected', optionId: 'no' });

  shows(/resume a session \(3\)/, 'Enter resume it', 'the session picker');
  await r.press(KEY.esc);
  assert.deepEqual(ctl.calls, ['answer no', 'dismiss sessions']);

  shows(/── transcript · /, 'PgUp/PgDn page', 'the transcript');
  await r.press(KEY.esc);
  assert.doesNotMatch(r.lastFrame(), /── transcript · /);

  shows(/── log in to cxl/, '1-9 log in with', 'the login picker');
  await r.press(KEY.esc);
  assert.deepEqual(ctl.calls, ['answer no', 'dismiss sessions', 'dismiss login']);

  shows(/› \/help/, 'Tab/Enter complete', 'the completion list');
  await r.press(KEY.esc);
  assert.doesNotMatch(r.lastFrame(), /› \/help/);

  shows(/› \/$/m, 'Enter send', 'the composer');
  await r.press(KEY.tab);
  shows(/› ○ edit Edit src\/app\.ts/, 'e expand/collapse all', 'the tool list');
  await r.press(KEY.esc);
  shows(/› \/$/m, 'Tab tool list', 'the composer again');
  assert.deepEqual(ctl.calls, ['answer no', 'dismiss sessions', 'dismiss login'], 'no key reached anything under the view that had it');
  r.unmount();
});
