import './env.ts';
// A form the agent asks for (elicitation/create, form mode), filled in from the keyboard against
// the peer agent as a real child process: typed text and numbers, a choice with ←/→, a yes/no and
// a multi-select ticked with Space, a required field left empty refused with what to fix, Esc
// declining and Ctrl+C cancelling; the agent receives exactly what was entered. A URL
// elicitation, which the client does not offer, is declined and said.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AcpClient } from '../../src/client/acp_client.ts';
import { checkForm, formOf, initialValues } from '../../src/client/elicitation/elicitation.ts';
import { moduleCommand } from '../../src/core/platform/runtime.ts';
import { App } from '../../src/ui/App.tsx';
import { matchSnapshot } from '../helpers/snapshot.ts';
import { frameMatching, tick, KEY, renderAt, type Rendered, until } from './harness.ts';
import * as states from './states.ts';

const fixture = fileURLToPath(new URL('../fixtures/peer_agent.ts', import.meta.url));
const dirs: string[] = [];
const clients: AcpClient[] = [];
after(async () => {
  for (const c of clients) await c.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function peer(): AcpClient {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-ui-form-')));
  dirs.push(d);
  const c = new AcpClient({ argv: moduleCommand(fixture), label: 'peer', cwd: d, settleMs: 5, env: { ...process.env, HOME: d } });
  clients.push(c);
  void c.start();
  return c;
}

const filling = peer();
const leaving = peer();

const mount = (c: AcpClient) => renderAt(<App store={c.store} controller={c} animate={false} size={{ columns: 100, rows: 34 }} />, 100, 34);
const type = (r: Rendered, text: string) => r.press(...[...text], KEY.enter);
const answers = (c: AcpClient) => [...c.store.getState().history, ...c.store.getState().live].flatMap((h) => ('text' in h && h.text.startsWith('form answer: ') ? [JSON.parse(h.text.slice('form answer: '.length)) as unknown] : []));

test('a form: typed, chosen and ticked fields reach the agent as typed values; an empty required field is refused first', async () => {
  await until(filling, (s) => s.sessionId !== undefined, 'the session');
  const r = mount(filling);
  try {
    await type(r, 'form');
    let f = await frameMatching(r, /Peer Agent asks: Deploy/, 'the form');
    assert.match(f, /Which account should the deploy use\?/);
    assert.match(f, /› User name \*\s+▌\n\s+your login on the cluster/);
    assert.match(f, /Replicas \*\s+2/);
    assert.match(f, /Dry run\s+\[x\] yes/);
    assert.match(f, /Tab\/↓ next field · Shift\+Tab\/↑ previous field · ←\/→ choose · Space tick · Enter send · Esc decline/);
    await r.press(KEY.enter);
    f = await frameMatching(r, /! User name is required/, 'the refusal');
    await r.press(...'a', KEY.enter);
    await frameMatching(r, /! User name needs at least 2 characters/, 'the length check');
    await r.press(...'da');
    await r.press(KEY.tab, KEY.backspace, ...'3', KEY.tab);
    await r.press('\u001B[C', '\u001B[C'); // → twice: Europe, then Americas
    await r.press(KEY.tab, KEY.space); // dry run off
    await r.press(KEY.tab, '\u001B[C', KEY.space, '\u001B[C', KEY.space); // tick db and cache
    f = await frameMatching(r, /Tags\s+\[ \] web\s+\[x\] db\s+\[x\] cache/, 'the ticked items');
    assert.match(f, /Region\s+Americas/);
    await r.press(KEY.enter);
    await until(filling, (s) => answers(filling).length === 1, 'the answer');
    assert.deepEqual(answers(filling)[0], { action: 'accept', content: { user: 'ada', replicas: 3, region: 'us', dry: false, tags: ['db', 'cache'] } });
    assert.doesNotMatch(r.lastFrame(), /asks: Deploy/, 'the form is gone');
  } finally {
    r.unmount();
  }
});

test('Esc declines a form, Ctrl+C cancels it with the turn; a URL elicitation is declined and said', async () => {
  await until(leaving, (s) => s.sessionId !== undefined, 'the session');
  const r = mount(leaving);
  try {
    await type(r, 'form');
    await frameMatching(r, /asks: Deploy/, 'the form');
    await r.press(KEY.esc);
    await until(leaving, () => answers(leaving).length === 1, 'the decline');
    await until(leaving, (s) => !s.running, 'the turn');
    await type(r, 'form');
    await frameMatching(r, /asks: Deploy/, 'the form again');
    await r.press(KEY.ctrlC);
    await until(leaving, () => answers(leaving).length === 2, 'the cancel');
    await until(leaving, (s) => !s.running, 'the turn');
    await tick(2100); // past the window in which a second Ctrl+C quits
    await type(r, 'link');
    await until(leaving, () => answers(leaving).length === 3, 'the URL answer');
    assert.deepEqual(answers(leaving), [{ action: 'decline' }, { action: 'cancel' }, { action: 'decline' }]);
    await frameMatching(r, /asked for input in a way this client does not offer \(url\): declined\. Its message: Log\s+in to the dashboard/, 'the notice');
  } finally {
    r.unmount();
  }
});

test('checkForm: bounds, formats, patterns and multi-select counts, each said in words', () => {
  const schema = {
    type: 'object' as const,
    required: ['email'],
    properties: {
      email: { type: 'string' as const, title: 'Email', format: 'email' as const },
      code: { type: 'string' as const, title: 'Code', pattern: '^[A-Z]{3}$' },
      n: { type: 'number' as const, title: 'N', maximum: 1.5 },
      pick: { type: 'array' as const, title: 'Pick', minItems: 2, items: { type: 'string' as const, enum: ['a', 'b', 'c'] } },
      blob: { type: 'object', title: 'Blob' },
    },
  };
  const form = formOf('m', schema);
  assert.deepEqual(form.skipped, ['blob']);
  const v = initialValues(form.fields, schema);
  assert.deepEqual(checkForm(form.fields, { ...v, email: 'nope' }), { error: 'Email must be an email address', field: 0 });
  assert.deepEqual(checkForm(form.fields, { ...v, email: 'a@b.io', code: 'abc' }), { error: 'Code does not match the form it must have (^[A-Z]{3}$)', field: 1 });
  assert.deepEqual(checkForm(form.fields, { ...v, email: 'a@b.io', n: '2' }), { error: 'N must be at most 1.5', field: 2 });
  assert.deepEqual(checkForm(form.fields, { ...v, email: 'a@b.io', pick: ['a'] }), { error: 'Pick: pick at least 2', field: 3 });
  assert.deepEqual(checkForm(form.fields, { ...v, email: 'a@b.io', code: 'ABC', n: '1.25', pick: ['a', 'c'] }), { content: { email: 'a@b.io', code: 'ABC', n: 1.25, pick: ['a', 'c'] } });
});

test('screen: a form at 100 columns', async () => {
  const s = states.baseStore();
  s.beginTurn('deploy it');
  s.elicitation.add('a1b2c3d4e5f6', 'Which account should the deploy use?', {
    type: 'object',
    title: 'Deploy',
    required: ['user'],
    properties: {
      user: { type: 'string', title: 'User name', description: 'your login on the cluster' },
      region: { type: 'string', title: 'Region', oneOf: [{ const: 'eu', title: 'Europe' }, { const: 'us', title: 'Americas' }], default: 'eu' },
      dry: { type: 'boolean', title: 'Dry run', default: true },
      tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['web', 'db'] }, default: ['db'] },
    },
  });
  const r = renderAt(<App store={s} controller={{ send() {}, cancel() {}, quit() {} }} animate={false} size={{ columns: 100, rows: 24 }} />, 100, 24);
  await tick();
  matchSnapshot(import.meta.url, 'form @100', r.lastFrame());
  r.unmount();
});
