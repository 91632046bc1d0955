// The model-call step both drivers share, on a real workspace, its real tools and a fake
// OpenAI-compatible server on 127.0.0.1: calls checked before they run, a call run through the
// gate with its reads, a turn that stops after a call asks it to, and provider failures in words.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { agentSetup, type AgentSetup } from '../../../src/agent/setup.ts';
import { checkCall, modelCall, runChecked, sessionContext, type CallOutcome, type ModelCallOptions } from '../../../src/agent/loop/model_call.ts';
import type { ChatMessage, ModelToolCall } from '../../../src/agent/providers/types.ts';
import type { SessionTools } from '../../../src/agent/tools/contract.ts';
import { startFakeOpenAI, type FakeServer } from '../../fixtures/fake_models.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface World {
  dir: string;
  setup: AgentSetup;
  tools: SessionTools;
  close(): Promise<void>;
}

/** A workspace with a.txt, set up as `cxl run` would be, against `url`. */
async function world(url: string): Promise<World> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-model-call-')));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
  const setup = await agentSetup({ cwd: dir, env: { HOME: dir, OPENAI_BASE_URL: url }, provider: 'openai', model: 'm', command: 'cxl run' });
  const tools = await setup.buildLocalTools({ sessionId: 'model-call', mode: setup.defaultMode, notice: () => {}, approvals: false });
  return {
    dir,
    setup,
    tools,
    close: async () => {
      await tools.close();
      await setup.closeAll();
    },
  };
}

function options(w: World, runCall: (call: ModelToolCall) => Promise<CallOutcome>, history: ChatMessage[] = [{ role: 'user', content: 'go' }]): ModelCallOptions {
  return {
    provider: w.setup.provider!,
    history,
    tools: w.tools,
    context: sessionContext(w.setup.newContext, w.tools, { onUsage: () => {}, onWarning: () => {}, onCompaction: () => {} }),
    maxTurns: 5,
    signal: new AbortController().signal,
    onText: async () => {},
    onThought: async () => {},
    onNotice: () => {},
    runCall,
  };
}

async function withServer<T>(script: Parameters<typeof startFakeOpenAI>[0], fn: (w: World, srv: FakeServer) => Promise<T>): Promise<T> {
  const srv = await startFakeOpenAI(script);
  const w = await world(srv.url);
  try {
    return await fn(w, srv);
  } finally {
    await w.close();
    await srv.close();
  }
}

test('a call is checked before it runs: arguments that do not parse first, then a tool that does not exist', async () => {
  await withServer([{ text: '' }], async (w) => {
    const specs = w.tools.specs();
    const bad = checkCall(specs, 'read_file', '{"path": "a.txt"');
    assert.equal(bad.error?.code, 'bad_args');
    assert.match(bad.error!.message, /not valid JSON/);
    assert.equal(bad.spec?.name, 'read_file', 'the tool is still known, so a client can title the call');
    assert.deepEqual(bad.rawInput, { raw: '{"path": "a.txt"' });
    const notObject = checkCall(specs, 'read_file', '[1]');
    assert.equal(notObject.error?.code, 'bad_args');
    assert.match(notObject.error!.message, /must be a JSON object; got \[1\]/);
    // a call that is wrong both ways is told about its arguments first
    assert.equal(checkCall(specs, 'no_such_tool', '{oops').error?.code, 'bad_args');
    const unknown = checkCall(specs, 'no_such_tool', '{}');
    assert.equal(unknown.error?.code, 'unknown_tool');
    assert.match(unknown.error!.message, /Available: .*read_file/);
    assert.equal(unknown.spec, undefined);
    const good = checkCall(specs, 'local_fs.read_file', { path: 'a.txt' });
    assert.equal(good.error, undefined);
    assert.equal(good.spec?.name, 'read_file');
    assert.deepEqual(good.rawInput, { path: 'a.txt' });
  });
});

test('a checked call runs through the gate: its result goes to `use`, the file it showed is in its reads', async () => {
  await withServer([{ text: '' }], async (w) => {
    const spec = w.tools.specs().find((s) => s.name === 'read_file')!;
    const signal = new AbortController().signal;
    const ok = await runChecked(w.tools, spec, { path: 'a.txt' }, { signal }, 'stopped', (r) => JSON.stringify(r));
    assert.equal(ok.ok, true);
    assert.match(ok.ok ? ok.value : '', /alpha/);
    assert.deepEqual(ok.reads, [path.join(w.dir, 'a.txt')]);
    const missing = await runChecked(w.tools, spec, { path: 'nope.txt' }, { signal }, 'stopped', () => 'unused');
    assert.equal(missing.ok ? 'ok' : missing.error.code, 'not_found');
    assert.equal(missing.ok ? undefined : missing.crash, undefined, 'a ToolError is no crash');
  });
});

test('a report that fails is the call failing: a crash when it is no ToolError, `cancelled` in the driver words once the turn was cancelled', async () => {
  await withServer([{ text: '' }], async (w) => {
    const spec = w.tools.specs().find((s) => s.name === 'read_file')!;
    const crashed = await runChecked(w.tools, spec, { path: 'a.txt' }, { signal: new AbortController().signal }, 'stopped', () => {
      throw new Error('the client went away');
    });
    assert.equal(crashed.ok, false);
    assert.match(crashed.ok ? '' : (crashed.crash ?? ''), /the client went away/);
    const ctrl = new AbortController();
    const cancelled = await runChecked(w.tools, spec, { path: 'a.txt' }, { signal: ctrl.signal }, 'The run was stopped.', () => {
      ctrl.abort();
      throw new Error('aborted');
    });
    assert.deepEqual(cancelled.ok ? {} : { code: cancelled.error.code, message: cancelled.error.message, crash: cancelled.crash }, { code: 'cancelled', message: 'The run was stopped.', crash: undefined });
  });
});

test('a call that asks the turn to stop: the rest of its round is not run, the model is not asked again', async () => {
  const round = { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }, { name: 'read_file', arguments: { path: 'b.txt' } }] };
  await withServer([round, { text: 'never' }], async (w, srv) => {
    const ran: string[] = [];
    const history: ChatMessage[] = [{ role: 'user', content: 'go' }];
    const res = await modelCall(
      options(
        w,
        async (call) => {
          ran.push(call.arguments);
          return { forModel: 'rejected; the user will explain', reads: [], stop: true };
        },
        history,
      ),
    );
    assert.equal(res.stopReason, 'end_turn');
    assert.equal(ran.length, 1);
    assert.equal(srv.requests.length, 1);
    const results = history.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.equal(results.length, 2, 'every call of the round has an answer, so the history stays well formed');
    assert.match(results[1], /Not run: the user rejected an earlier call/);
    assert.equal(res.usage.requests, 1);
    assert.ok(res.usage.promptTokens > 0, 'the server counted the prompt');
  });
});

test('a model nobody answers for is said with how to set one up; another failure as the provider said it', async () => {
  const gone = await startFakeOpenAI([{ text: '' }]);
  await gone.close();
  const w = await world(gone.url);
  try {
    const res = await modelCall(options(w, async () => ({ forModel: '', reads: [] })));
    assert.equal(res.stopReason, 'end_turn');
    assert.match(res.error ?? '', /^No model is reachable \(openai m at /);
    assert.match(res.error ?? '', /--provider openai/);
  } finally {
    await w.close();
  }
  await withServer([{ status: 400, body: JSON.stringify({ error: { message: 'this model does not take tools' } }) }], async (w2) => {
    const res = await modelCall(options(w2, async () => ({ forModel: '', reads: [] })));
    assert.match(res.error ?? '', /this model does not take tools/);
    assert.doesNotMatch(res.error ?? '', /No model is reachable/);
  });
});
