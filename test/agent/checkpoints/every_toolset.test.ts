// Every built-in toolset, opened as a session opens it: each tool whose kind says it changes
// something plans effects, and each plan with effects is heard by the session's checkpoints
// through the gate, so a new toolset cannot leave its writes out of /rewind.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { BlobStore } from '../../../src/agent/checkpoints/blob_store.ts';
import { SessionCheckpoints } from '../../../src/agent/checkpoints/recorder.ts';
import { BUILTIN_TOOLSETS } from '../../../src/agent/tools/builtin.ts';
import type { EffectRecorder } from '../../../src/core/contract/toolset.ts';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { Gate } from '../../../src/core/gate/gate.ts';
import { ReadLedger } from '../../../src/core/local_fs/ledger.ts';
import type { JsonSchema } from '../../../src/core/tool.ts';

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-every-')));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Arguments by property name for a tool's required ones; a tool that needs another fails the test naming it. */
const SAMPLE: Record<string, unknown> = { path: 'a.txt', paths: ['a.txt'], content: 'x\n', old_string: 'one', new_string: 'two', script: 's/one/two/', command: 'ls', message: 'm', branch: 'side', ref: 'HEAD', filter: '.', pattern: 'one', replacement: 'two', symbol: 'Main', query: 'Main', start_line: 1, end_line: 1 };

function argsFor(schema: JsonSchema): Record<string, unknown> {
  const s = schema as { required?: string[]; properties?: Record<string, { type?: string }> };
  return Object.fromEntries((s.required ?? []).map((k) => [k, SAMPLE[k] ?? (s.properties?.[k]?.type === 'number' || s.properties?.[k]?.type === 'integer' ? 1 : 'a.txt')]));
}

/** What a tool needs past its required arguments (one of two sources). */
const EXTRA: Record<string, Record<string, unknown>> = { 'native-jq.jq_query': { input: '{}' } };

const CHANGING = new Set(['edit', 'delete', 'move', 'execute']);

test('every tool of every built-in toolset that changes something plans effects, and the gate records each plan with effects', async () => {
  const root = path.join(dir, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  fs.writeFileSync(path.join(root, 'go.mod'), 'module m\n\ngo 1.21\n');
  const git = (...a: string[]) => execFileSync('git', ['-C', root, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...a]);
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'one');
  git('branch', 'side');
  const cps = new SessionCheckpoints({ root, store: new BlobStore(path.join(dir, 'data'), 's'), save: () => {} });
  const heard: string[] = [];
  let now = '';
  const effects: EffectRecorder = {
    write: (abs, old, write) => (heard.push(`${now} files`), cps.write(abs, old, write)),
    around: (run) => (heard.push(`${now} workspace`), cps.around(run)),
  };
  const envelope = buildEnvelope('auto_edit', SHIPPED_ENVELOPES, FLOOR_RULES);
  const gate = new Gate({ envelope, autoApprove: true, effects, root });
  const site = { root, ledger: new ReadLedger('every'), warn: () => {} };
  const planned: string[] = [];
  for (const b of BUILTIN_TOOLSETS) {
    const ts = (await b.open(site, b.fromFlags({}))).toolset;
    gate.add(ts);
    for (const spec of ts.list()) {
      const name = `${ts.name}.${spec.name}`;
      if (!ts.plan) continue;
      const args = { ...argsFor(spec.inputSchema), ...EXTRA[name] };
      // something for git_restore to discard
      if (ts.name === 'native-git') fs.writeFileSync(path.join(root, 'a.txt'), `before ${spec.name}\n`);
      let plan;
      try {
        plan = await ts.plan(spec.name, args, { envelope, askable: true, root });
      } catch (err) {
        // a refusal the toolset owes its binding (mission tools outside a mission) says so; anything else is a missing sample
        if (b.name === 'mission') continue;
        assert.fail(`${name} could not be planned with ${JSON.stringify(args)} (${(err as Error).message}): give this test a sample for its arguments`);
      }
      planned.push(name);
      if (CHANGING.has(spec.kind)) assert.notEqual(plan.effects, 'none', `${name} is a ${spec.kind} tool whose plan says it changes nothing: /rewind could not undo it`);
      if (plan.effects === 'none') continue;
      if (ts.name === 'local_fs') {
        fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
        await gate.call('local_fs.read_file', { path: 'a.txt' });
      }
      now = name;
      const failed = await gate.call(name, args).then(() => '', (err: Error) => err.message);
      assert.ok(heard.includes(`${name} ${plan.effects}`), `${name} plans ${plan.effects} effects, and the checkpoints did not hear it ${failed}`);
    }
  }
  for (const t of ['local_fs.write_file', 'local_fs.edit_file', 'local_fs.sed', 'local_shell.local_shell', 'native-git.git_add', 'native-git.git_commit', 'native-git.git_checkout_branch', 'native-git.git_restore']) assert.ok(planned.includes(t), `${t} was planned`);
});
