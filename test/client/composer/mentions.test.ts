// @-mentions: which words are mentions, which files become blocks and how (embedded text, a link,
// nothing), the workspace file list behind the completion (find_files' filter), and a prompt with
// mentions reaching the scripted agent as ACP blocks.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { FileIndex, listWorkspaceFiles } from '../../../src/client/composer/file_index.ts';
import { findMentions, MAX_EMBED_BYTES, promptBlocks } from '../../../src/client/composer/mentions.ts';
import { findRipgrep } from '../../../src/core/local_fs/ripgrep.ts';
import { allText, removeWorkdirs, started, waitFor, workdir } from '../client_harness.ts';

after(removeWorkdirs);

function tree(): string {
  const root = workdir();
  const w = (rel: string, text = `${rel}\n`) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  w('src/app.ts');
  w('src/ui/text layout.ts');
  w('README.md');
  w('.env', 'SECRET=1\n');
  w('keys/server.pem', 'PEM\n');
  w('.ssh/id_rsa', 'PRIVATE\n');
  w('node_modules/dep/index.js');
  w('build/out.js');
  w('.gitignore', 'build/\n*.log\n');
  w('debug.log');
  w('bin.dat', 'a\u0000b');
  w('big.txt', 'x'.repeat(MAX_EMBED_BYTES + 1));
  return root;
}

test('findMentions: words that start with @, quoted paths, trailing punctuation left off, e-mail addresses not', () => {
  const m = findMentions('see @src/app.ts, and @"src/ui/text layout.ts" (@README.md). mail me@example.com @');
  assert.deepEqual(m.map((x) => x.path), ['src/app.ts', 'src/ui/text layout.ts', 'README.md']);
  const text = 'x @a.ts y';
  const [a] = findMentions(text);
  assert.equal(text.slice(a.start, a.end), '@a.ts');
});

test('promptBlocks: small text files are embedded, others linked; quarantined, missing and outside files stay text', () => {
  const root = tree();
  symlinkSync('/etc/passwd', path.join(root, 'passwd-link'));
  const text = 'look @src/app.ts @"src/ui/text layout.ts" @.env @keys/server.pem @.ssh/id_rsa @missing.ts @../../etc/passwd @passwd-link @bin.dat @big.txt @src/app.ts @src';
  const blocks = promptBlocks(text, { root, embed: true });
  assert.deepEqual(blocks[0], { type: 'text', text }, 'the text goes as typed');
  const rest = blocks.slice(1).map((b) => (b.type === 'resource' ? `embed:${path.basename(b.resource.uri)}` : b.type === 'resource_link' ? `link:${b.name}` : b.type));
  assert.deepEqual(rest, ['embed:app.ts', 'embed:text%20layout.ts', 'link:.env', 'link:keys/server.pem', 'link:bin.dat', 'link:big.txt'], 'each file once; the read-approve list only as links');
  const app = blocks[1];
  assert.ok(app.type === 'resource' && 'text' in app.resource && app.resource.text === 'src/app.ts\n' && app.resource.uri === `file://${root}/src/app.ts`);
  for (const b of blocks) assert.doesNotMatch(JSON.stringify(b), /PRIVATE|SECRET=1|root:x:0/);
  // an agent without embeddedContext gets links only
  const links = promptBlocks('@src/app.ts', { root, embed: false });
  assert.deepEqual(links[1], { type: 'resource_link', uri: `file://${root}/src/app.ts`, name: 'src/app.ts', size: 11 });
});

for (const engine of ['ripgrep', 'builtin'] as const) {
  test(`the mention list (${engine}) is what find_files sees: no gitignored, heavy, quarantined or read-approve files`, async () => {
    const root = tree();
    const rg = engine === 'ripgrep' ? await findRipgrep() : null;
    if (engine === 'ripgrep' && !rg) return console.log('ripgrep is not installed (@vscode/ripgrep); the builtin engine is tested');
    const files = await listWorkspaceFiles(root, rg);
    assert.deepEqual(files, ['.gitignore', 'README.md', 'big.txt', 'bin.dat', 'src/app.ts', 'src/ui/text layout.ts']);
  });
}

test('FileIndex lists once, then again only after its listing has aged', async () => {
  const root = tree();
  const views: string[][] = [];
  const idx = new FileIndex(root, (v) => views.push([...v.paths]), { rg: null, ttlMs: 60_000 });
  await idx.refresh();
  assert.ok(idx.view.paths.includes('src/app.ts'));
  assert.equal(idx.view.loading, false);
  writeFileSync(path.join(root, 'new.ts'), 'x');
  await idx.refresh();
  assert.equal(idx.view.paths.includes('new.ts'), false, 'a fresh listing is reused');
  await idx.refresh(Date.now() + 61_000);
  assert.equal(idx.view.paths.includes('new.ts'), true, 'an aged one is redone');
  idx.dispose();
});

test('a prompt with mentions reaches the agent with its files as blocks', async () => {
  const root = tree();
  const c = await started(root);
  try {
    c.send('blocks read @src/app.ts and @.env');
    await waitFor(c, (x) => !x.running && allText(x).includes('blocks:'), 'the answer');
    assert.match(allText(c.store.getState()), /blocks: text resource\(app\.ts:11\) link\(\.env\)/);
    c.refreshFiles();
    const s = await waitFor(c, (x) => x.files !== undefined && !x.files.loading, 'the file list');
    assert.ok(s.files!.paths.includes('src/app.ts'));
    assert.ok(!s.files!.paths.includes('.env'));
  } finally {
    await c.close();
  }
});
