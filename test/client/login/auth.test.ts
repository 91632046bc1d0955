// Login methods as the public agents send them (copied from their initialize answers), read into
// what the picker shows; and error.data as they send it, read into the lines under an error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { authMethodsOf, varsInText } from '../../../src/client/login/auth.ts';
import { errorDetail } from '../../../src/client/connection/request_errors.ts';

const codex = [
  { id: 'chatgpt', name: 'Login with ChatGPT', description: 'Use your ChatGPT login with Codex CLI (requires a paid ChatGPT subscription)' },
  { id: 'codex-api-key', name: 'Use CODEX_API_KEY', description: 'Requires setting the `CODEX_API_KEY` environment variable.' },
  { id: 'openai-api-key', name: 'Use OPENAI_API_KEY', description: 'Requires setting the `OPENAI_API_KEY` environment variable.' },
];
const qwen = [
  { id: 'openai', name: 'Use OpenAI API key', description: 'Requires setting the `OPENAI_API_KEY` environment variable', _meta: { type: 'terminal', args: ['--auth-type=openai'] } },
  { id: 'qwen-oauth', name: 'Qwen OAuth', description: 'Qwen OAuth (free tier discontinued 2026-04-15)', _meta: { type: 'terminal', args: ['--auth-type=qwen-oauth'] } },
];
const claude = [{ description: 'Run `claude /login` in the terminal', name: 'Log in with Claude Code', id: 'claude-login' }];

test('the public agents\' methods: which read an environment variable, and whether it is set', () => {
  const env = { OPENAI_API_KEY: 'sk-1', CODEX_API_KEY: '' };
  assert.deepEqual(authMethodsOf(codex, ['codex-acp'], env).map((m) => [m.id, m.kind, m.vars, m.setVars]), [
    ['chatgpt', 'agent', [], []],
    ['codex-api-key', 'env_var', ['CODEX_API_KEY'], []],
    ['openai-api-key', 'env_var', ['OPENAI_API_KEY'], ['OPENAI_API_KEY']],
  ]);
  assert.deepEqual(authMethodsOf(qwen as acp.AuthMethod[], ['qwen', '--acp'], {}).map((m) => [m.id, m.kind, m.vars]), [
    ['openai', 'env_var', ['OPENAI_API_KEY']],
    ['qwen-oauth', 'agent', []],
  ]);
  const [c] = authMethodsOf(claude, ['claude-code-acp'], {});
  assert.deepEqual([c.kind, c.description], ['agent', 'Run `claude /login` in the terminal']);
});

test('an env_var method\'s declared variables win over its text; a terminal method becomes the command to run', () => {
  const methods = [
    { type: 'env_var', id: 'k', name: 'API key', description: 'mentions OTHER_TOKEN in passing', vars: [{ name: 'PEER_KEY' }, { name: 'bad name!' }] },
    { type: 'terminal', id: 't', name: 'Terminal login', args: ['--login', 'two words'], env: { MODE: 'tui' } },
  ] as unknown as acp.AuthMethod[];
  const [k, t] = authMethodsOf(methods, ['npx', '@vendor/agent'], {});
  assert.deepEqual([k.kind, k.vars], ['env_var', ['PEER_KEY']]);
  assert.equal(t.kind, 'terminal');
  assert.equal(t.command, "MODE=tui npx @vendor/agent --login 'two words'");
});

test('names in a method\'s text count only as environment variables', () => {
  assert.deepEqual(varsInText('Requires setting the `GEMINI_API_KEY` environment variable'), ['GEMINI_API_KEY']);
  assert.deepEqual(varsInText('Use ANTHROPIC_API_KEY'), ['ANTHROPIC_API_KEY']);
  assert.deepEqual(varsInText('Log in with your GOOGLE_ACCOUNT via OAUTH_FLOW'), []);
});

test('error.data: message and details first, other fields as JSON, the login methods qwen repeats there left out', () => {
  assert.deepEqual(errorDetail(new acp.RequestError(-32603, 'Internal error', { details: 'Connection error.' })), ['Connection error.']);
  assert.deepEqual(errorDetail(new acp.RequestError(-32603, 'Internal error', { message: 'stream disconnected', codex_error_info: 'other' })), ['stream disconnected', '{"codex_error_info":"other"}']);
  assert.deepEqual(errorDetail(new acp.RequestError(-32000, 'Authentication required', { authMethods: qwen })), []);
  assert.deepEqual(errorDetail(new acp.RequestError(-32603, 'Internal error', 'line one\nline two')), ['line one', 'line two']);
  assert.deepEqual(errorDetail(new acp.RequestError(-32603, 'Internal error')), []);
  assert.deepEqual(errorDetail(new Error('plain')), []);
});
