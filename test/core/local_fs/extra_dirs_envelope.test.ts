// What the envelope decides about a file tool's call in a session's additional directory: the same
// as in the workspace for the floor (the write wall and the git dir) and the axis grants; a
// root-anchored deny glob (`docs/**`) is the workspace's only, an unanchored one (`**/x`) applies
// there too. Real files in a temp dir, the toolset's own plan, the envelope's own decide.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { buildEnvelope, decide, type EnvelopeSpec } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { additionalRoots } from '../../../src/core/local_fs/extra_roots.ts';
import { LocalFsToolset } from '../../../src/core/local_fs/toolset.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-extra-env-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));
const root = path.join(base, 'ws');
const lib = path.join(base, 'lib');
for (const d of [root, path.join(lib, 'docs'), path.join(lib, '.git'), path.join(lib, '.vscode'), path.join(root, 'docs')]) fs.mkdirSync(d, { recursive: true });
const extra = additionalRoots([lib], { root, home: path.join(base, 'home-not-here') });
const fsTools = new LocalFsToolset({ root, extra, approvals: 'allow', grepEngine: 'builtin' });

const SPECS: Record<string, EnvelopeSpec> = {
  no_docs: { extends: 'default', files: { write: { deny_paths: ['docs/**'] } } },
  no_secrets: { extends: 'default', files: { write: { deny_paths: ['**/secret.txt'] } } },
};
const env = (name: string) => buildEnvelope(name, { ...SHIPPED_ENVELOPES, ...SPECS }, FLOOR_RULES);

async function action(envelope: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const plan = await fsTools.plan(tool, args);
  return decide(env(envelope), plan.facts).action;
}

test('the floor holds in an additional directory as in the workspace: a write into its .git or .vscode is not allowed as a plain write is', async () => {
  const plain = await action('default', 'write_file', { path: path.join(lib, 'a.txt'), content: 'x' });
  assert.equal(plain, await action('default', 'write_file', { path: 'a.txt', content: 'x' }), 'a plain write: as in the workspace');
  assert.equal(await action('default', 'write_file', { path: path.join(lib, '.git/config'), content: 'x' }), 'deny');
  assert.equal(await action('default', 'write_file', { path: '.git/config', content: 'x' }), 'deny', 'control');
  const hook = await action('default', 'write_file', { path: path.join(lib, '.vscode/tasks.json'), content: '{}' });
  assert.equal(hook, await action('default', 'write_file', { path: '.vscode/tasks.json', content: '{}' }));
  assert.notEqual(hook, 'allow');
  assert.equal(await action('default', 'read_file', { path: path.join(lib, 'docs') }), 'allow', 'reads: the files.read grant');
});

test('a root-anchored deny glob is the workspace\'s; an unanchored one applies in the additional directory too', async () => {
  assert.equal(await action('no_docs', 'write_file', { path: 'docs/x.md', content: 'x' }), 'deny', 'control');
  assert.notEqual(await action('no_docs', 'write_file', { path: path.join(lib, 'docs/x.md'), content: 'x' }), 'deny');
  assert.equal(await action('no_secrets', 'write_file', { path: path.join(lib, 'docs/secret.txt'), content: 'x' }), 'deny');
  assert.equal(await action('no_secrets', 'write_file', { path: 'docs/secret.txt', content: 'x' }), 'deny', 'control');
});
