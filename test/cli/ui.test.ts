// The `cxl` (no subcommand) entry: flag errors and the no-terminal refusal, as a user meets them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitCommandLine } from '../../src/client/connection/command_line.ts';
import { runCxl } from '../helpers/cxl.ts';

test('cxl without a terminal refuses with exit 2 and says what to use instead', async () => {
  const r = await runCxl([]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /needs a terminal/);
  assert.match(r.stderr, /cxl run/);
});

test('cxl --agent without a command line, or an unknown flag, exits 2', async () => {
  let r = await runCxl(['--agent']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--agent/);
  r = await runCxl(['--frobnicate']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /frobnicate/);
});

test('--agent command lines split like a shell splits plain words and quotes', () => {
  assert.deepEqual(splitCommandLine('npx @agentclientprotocol/claude-agent-acp'), ['npx', '@agentclientprotocol/claude-agent-acp']);
  assert.deepEqual(splitCommandLine(`node "my agent.js" --flag='a b' x\\ y ""`), ['node', 'my agent.js', '--flag=a b', 'x y', '']);
  assert.deepEqual(splitCommandLine('  a   b  '), ['a', 'b']);
  assert.deepEqual(splitCommandLine('echo "a \\"q\\" $HOME"'), ['echo', 'a "q" $HOME']);
  assert.throws(() => splitCommandLine('node "unterminated'), /unterminated/);
});
