// What the model server receives of a repository's memory files, on a real HTTP server on
// 127.0.0.1: an AGENTS.md that is a symlink to a file outside the workspace is not sent (in an
// untrusted folder and in a trusted one), and the person is told which file and where it points;
// an ordinary AGENTS.md beside it still reaches the model.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeOpenAI, type FakeServer } from '../fixtures/fake_models.ts';
import { runCxl } from '../helpers/cxl.ts';

const SECRET = 'OUTSIDE-NOTES-5be07a';
const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-memory-model-')));
const home = path.join(base, 'home');
const outside = path.join(base, 'elsewhere', 'notes.md');
let model: FakeServer;

before(async () => {
  model = await startFakeOpenAI((_body, n) => ({ text: `answer ${n}` }));
  mkdirSync(path.join(home, '.contenox'), { recursive: true });
  mkdirSync(path.dirname(outside), { recursive: true });
  writeFileSync(outside, `Private notes: ${SECRET}\n`);
});
after(async () => {
  await model.close();
  rmSync(base, { recursive: true, force: true });
});

async function runIn(dir: string): Promise<{ stderr: string; sent: string }> {
  const before = model.requests.length;
  const r = await runCxl(['run', '--provider', 'openai', '--model', 'm', '--envelope', 'default', 'hello'], { cwd: dir, env: { HOME: home, XDG_DATA_HOME: path.join(base, 'data'), OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'k' } });
  const sent = JSON.stringify(model.requests.slice(before));
  assert.ok(model.requests.length > before, `the model was asked: ${r.stderr}`);
  return { stderr: r.stderr, sent };
}

for (const trusted of [false, true]) {
  test(`an AGENTS.md linked outside the workspace is not sent to the model (${trusted ? 'trusted' : 'untrusted'} folder); an ordinary one is`, async () => {
    const linked = path.join(base, trusted ? 'linked-trusted' : 'linked');
    mkdirSync(linked, { recursive: true });
    symlinkSync(outside, path.join(linked, 'AGENTS.md'));
    const plain = path.join(base, trusted ? 'plain-trusted' : 'plain');
    mkdirSync(plain, { recursive: true });
    writeFileSync(path.join(plain, 'AGENTS.md'), 'Project rule PLAIN-RULE-31.\n');
    if (trusted) {
      for (const d of [linked, plain]) {
        mkdirSync(path.join(d, '.contenox'), { recursive: true });
        writeFileSync(path.join(d, '.contenox', 'agents.toml'), 'model = "m"\n');
        assert.equal((await runCxl(['trust'], { cwd: d, env: { HOME: home } })).code, 0);
      }
    }

    const l = await runIn(linked);
    assert.doesNotMatch(l.sent, new RegExp(SECRET));
    assert.match(l.stderr, new RegExp(`Memory file ${path.join(linked, 'AGENTS.md')} is not read: it links outside the project \\(to ${outside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));

    // control: an ordinary AGENTS.md is in the system prompt
    const p = await runIn(plain);
    assert.match(p.sent, /PLAIN-RULE-31/);
    assert.doesNotMatch(p.stderr, /Memory file/);
  });
}
