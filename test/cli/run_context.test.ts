// End to end: `cxl run` against an OpenAI-compatible server that enforces a small context
// window (it refuses a prompt over it, and says how big it is in /v1/models, as vLLM does),
// while the model reads thirty 20 KB files one after another. The run finishes with the model's
// answer, and after the first compaction the server never sees a request over its window.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SUMMARY_PROMPT } from '../../src/agent/context/compaction.ts';
import { startFakeOpenAI } from '../fixtures/fake_models.ts';
import { runCxl } from '../helpers/cxl.ts';

const FILES = 30;
const WINDOW = 16_000;

test('thirty 20 KB reads through a 16k-token window: the run finishes, nothing over the window after the first compaction', async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-run-window-')));
  try {
    for (let i = 1; i <= FILES; i++) {
      const line = `file ${i}: the quick brown fox jumps over the lazy dog, line `;
      let text = '';
      for (let n = 1; text.length < 20_000; n++) text += `${line}${n}\n`;
      writeFileSync(path.join(dir, `part${String(i).padStart(2, '0')}.txt`), text);
    }
    let next = 1;
    const srv = await startFakeOpenAI(
      (body) => {
        const msgs = body.messages as Array<{ role: string; content: string }>;
        if (msgs[0].content === SUMMARY_PROMPT) return { text: 'Summary: the agent is reading part01..partNN in order.' };
        // the unit reports its result and lands, then says so
        if (next > FILES) return next++ === FILES + 1 ? { toolCalls: [{ name: 'mission_report', arguments: { kind: 'result', summary: `Read all ${FILES} parts.` } }, { name: 'mission_finish', arguments: { status: 'landed' } }] } : { text: 'done' };
        return { toolCalls: [{ name: 'read_file', arguments: { path: `part${String(next++).padStart(2, '0')}.txt` } }] };
      },
      { window: WINDOW, models: [{ id: 'small-window', object: 'model', max_model_len: WINDOW }] },
    );
    try {
      const r = await runCxl(['run', '--provider', 'openai', '--model', 'small-window', '--envelope', 'default', '--max-turns', '40', `read part01.txt to part${FILES}.txt in order`], {
        cwd: dir,
        env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' },
        timeoutMs: 120_000,
      });
      assert.equal(r.code, 0, r.stderr.slice(-3000));
      assert.equal(r.stdout, `Read all ${FILES} parts.\n`);
      const reads = r.stderr.match(/^✓ local_fs\.read_file: part\d\d\.txt$/gm) ?? [];
      assert.equal(reads.length, FILES, 'every file was read');
      // old reads elided at each step; once the stubs pile up past the threshold, one summary
      assert.match(r.stderr, /cxl run: Context compacted \(the context passed its threshold\): [\d,]+ → [\d,]+ tokens; elided 1 old tool result/);
      assert.match(r.stderr, /summarised \d+ earlier messages/);
      // the window came from the server's /v1/models, and the usage line ends the run
      assert.match(r.stderr, new RegExp(`cxl run: context [\\d,]+ of 16,000 tokens \\(\\d+%\\); ${FILES + 2} model requests; [\\d,]+ prompt \\+ [\\d,]+ completion tokens in all; \\d+ compactions?\\.\\n$`));

      const chats = srv.requests.filter((q) => (q.messages as Array<{ content: string }>)[0].content !== SUMMARY_PROMPT);
      const compacted = (q: Record<string, unknown>) => /\[elided to save context|\[Summary of the earlier conversation/.test(JSON.stringify(q.messages));
      const first = chats.findIndex(compacted);
      assert.ok(first > 0, 'a compaction happened');
      const over = srv.requests.slice(srv.requests.indexOf(chats[first])).filter((q) => q._rejected || (q._tokens as number) > WINDOW);
      assert.deepEqual(over.map((q) => q._tokens), [], 'nothing over the window after the first compaction');
      // the system prompt and the tool definitions were never cut
      const last = chats.at(-1)!;
      assert.match((last.messages as Array<{ role: string; content: string }>)[0].content, /^You are cxl/);
      assert.deepEqual((last.tools as unknown[]).length, (chats[0].tools as unknown[]).length);
    } finally {
      await srv.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cxl run --first-byte-timeout: a server that sends nothing is given up on at the setting, saying which timeout and how to raise it; a bad --context-window is a usage error', async () => {
  const { startReplay } = await import('../fixtures/replay_server.ts');
  const srv = await startReplay({ 'POST /v1/chat/completions': { stallBeforeHeadersMs: 20_000 }, 'GET /v1/models': { status: 404 } });
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-run-timeout-')));
  try {
    const env = { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: `${srv.origin}/v1`, OPENAI_API_KEY: 'k' };
    const t0 = Date.now();
    const r = await runCxl(['run', '--provider', 'openai', '--model', 'm', '--envelope', 'default', '--first-byte-timeout', '700ms', 'hello'], { cwd: dir, env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /sent nothing within the first-byte timeout of 700ms/);
    assert.match(r.stderr, /raise first_byte_timeout in \[agents\.<name>\] or pass --first-byte-timeout/);
    assert.ok(Date.now() - t0 < 15_000);
    const bad = await runCxl(['run', '--context-window', 'huge', 'hello'], { cwd: dir, env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--context-window "huge" is not a window size/);
  } finally {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
