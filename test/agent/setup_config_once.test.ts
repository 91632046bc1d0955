// agentSetup resolves a project's configuration once per run (its trust checked, its files read
// and hashed, the layers merged) and passes it to everything a session asks for; a later change
// to the folder's configuration is seen by the next ask, as before.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { agentSetup } from '../../src/agent/setup.ts';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-setup-once-')));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('a run reads the project configuration once for the setup and a session, and again once it changes', async () => {
  const home = path.join(tmp, 'home');
  const dir = path.join(tmp, 'project');
  fs.mkdirSync(home);
  fs.mkdirSync(path.join(dir, '.contenox', 'commands'), { recursive: true });
  const file = path.join(dir, '.contenox', 'agents.toml');
  fs.writeFileSync(file, 'memory_files = ["NOTES.md"]\n');
  fs.writeFileSync(path.join(dir, '.contenox', 'commands', 'hi.md'), 'Say hi.\n');
  fs.writeFileSync(path.join(dir, 'NOTES.md'), 'Be brief.\n');
  // every read of the project's agents.toml, whoever reads it (the trust check, the load)
  let reads = 0;
  const readFileSync = fs.readFileSync;
  fs.readFileSync = ((p: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (typeof p === 'string' && path.resolve(p) === file) reads++;
    return (readFileSync as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fs.readFileSync;
  try {
    const setup = await agentSetup({ cwd: dir, env: { HOME: home, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, provider: 'openai', model: 'm', command: 'cxl acp', trustProject: true });
    // what a session's start asks of the setup: its modes, prompt, memory, commands, envelope, tools
    const session = async () => {
      const modes = setup.modesFor(dir);
      assert.match(setup.systemPrompt(dir), /Be brief/);
      assert.deepEqual(setup.memory(dir).names, ['NOTES.md']);
      assert.ok(setup.commands(dir, []).commands.some((c) => c.name === 'hi'));
      setup.envelopeFor(dir, modes.current);
      const tools = await setup.buildLocalTools({ sessionId: `s${reads}`, mode: modes.current, notice: () => {}, approvals: false });
      await tools.close();
      return modes;
    };
    assert.equal((await session()).current, 'default');
    await session();
    assert.equal(reads, 1, 'the setup and two sessions read the project configuration once');
    fs.writeFileSync(file, 'memory_files = ["NOTES.md"]\ndefault_envelope = "read_only"\n');
    assert.equal((await session()).current, 'read_only', 'a changed configuration is seen by the next session');
    await session();
    assert.equal(reads, 2, 'and read once more');
    await setup.closeAll();
  } finally {
    fs.readFileSync = readFileSync;
  }
});
