// Memory files as config/memory.ts finds and reads them: real folders in a temp dir, a real .git
// marking the project's top, links to a quarantined key and to a FIFO.
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { describeMemory, MEMORY_FILE_BYTES, MemoryCache, memoryPaths, readMemory } from '../../src/config/memory.ts';
import { childProcess } from '../../src/core/platform/runtime.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-memory-')));
  dirs.push(root);
  for (const [rel, text] of Object.entries(files)) {
    const f = path.join(root, rel);
    mkdirSync(path.dirname(f), { recursive: true });
    if (rel.endsWith('/')) mkdirSync(f, { recursive: true });
    else writeFileSync(f, text);
  }
  return root;
}

test('from the user file, then the project top down to the session folder, nearest last; a folder without AGENTS.md gives its CLAUDE.md', () => {
  const root = tree({
    'home/.contenox/AGENTS.md': 'user rule',
    'repo/.git/': '',
    'repo/AGENTS.md': 'top rule',
    'repo/AGENTS.md.bak': 'not this',
    'repo/pkg/CLAUDE.md': 'pkg rule',
    'repo/pkg/app/AGENTS.md': 'app rule',
    'repo/pkg/app/CLAUDE.md': 'shadowed by AGENTS.md',
  });
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'repo/pkg/app');
  const m = readMemory({ cwd, home });
  assert.deepEqual(
    m.files.map((f) => [path.relative(root, f.path), f.scope, f.text]),
    [
      ['home/.contenox/AGENTS.md', 'user', 'user rule'],
      ['repo/AGENTS.md', 'project', 'top rule'],
      ['repo/pkg/CLAUDE.md', 'project', 'pkg rule'],
      ['repo/pkg/app/AGENTS.md', 'project', 'app rule'],
    ],
  );
  // the prompt carries them in that order, each named
  const at = ['user rule', 'top rule', 'pkg rule', 'app rule'].map((t) => m.prompt.indexOf(t));
  assert.deepEqual([...at].sort((a, b) => a - b), at);
  assert.ok(!at.includes(-1));
  assert.match(m.prompt, /--- ~\/\.contenox\/AGENTS\.md ---/);
  assert.doesNotMatch(m.prompt, /shadowed/);
  // the list of names is the person's to set
  assert.deepEqual(readMemory({ cwd, home, names: ['CLAUDE.md'] }).files.map((f) => f.text), ['pkg rule', 'shadowed by AGENTS.md']);
});

test('without a .git above, only the session folder is read (never its parents)', () => {
  const root = tree({ 'AGENTS.md': 'a parent that is no project', 'work/AGENTS.md': 'here' });
  const m = readMemory({ cwd: path.join(root, 'work'), home: path.join(root, 'nohome') });
  assert.deepEqual(m.files.map((f) => f.text), ['here']);
});

test('a link to a quarantined key, a second name of one, and a FIFO are never read; /memory says why', () => {
  const root = tree({ 'home/.ssh/id_rsa': '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n', 'p/sub/': '', 'q/keys/id_rsa': 'secret too', 'f/': '' });
  const home = path.join(root, 'home');
  symlinkSync(path.join(home, '.ssh/id_rsa'), path.join(root, 'p/AGENTS.md'));
  const m = readMemory({ cwd: path.join(root, 'p'), home });
  assert.equal(m.files.length, 0);
  assert.equal(m.skipped.length, 1);
  assert.match(m.skipped[0].why, /quarantined/);
  assert.doesNotMatch(m.prompt, /secret|BEGIN/);
  assert.match(describeMemory(m, path.join(root, 'p'), home), /skipped AGENTS\.md: it is a quarantined credential path/);
  // a hard link: the name is innocent, the file is a key (one the workspace holds)
  linkSync(path.join(root, 'q/keys/id_rsa'), path.join(root, 'q/AGENTS.md'));
  const hard = readMemory({ cwd: path.join(root, 'q'), home });
  assert.equal(hard.files.length, 0);
  assert.match(hard.skipped[0]?.why ?? '', /another name of the protected/);
  // a FIFO would block a read forever
  childProcess().execFileSync('mkfifo', [path.join(root, 'f/AGENTS.md')]);
  const fifo = readMemory({ cwd: path.join(root, 'f'), home });
  assert.equal(fifo.files.length, 0);
  assert.match(fifo.skipped[0].why, /not a regular file/);
});

test('a file is cut at its cap and the prompt says so; the cache reads again only when a file changes', () => {
  const root = tree({ 'AGENTS.md': `${'é'.repeat(MEMORY_FILE_BYTES)}tail` });
  const m = readMemory({ cwd: root, home: path.join(root, 'h') });
  assert.equal(m.files[0].truncated, true);
  assert.ok(Buffer.byteLength(m.files[0].text) <= MEMORY_FILE_BYTES);
  assert.doesNotMatch(m.files[0].text, /\uFFFD|tail/);
  assert.match(m.prompt, /\[cut at 32768 bytes of \d+\]/);
  const cache = new MemoryCache({ home: path.join(root, 'h') });
  const first = cache.get(root);
  assert.equal(cache.get(root), first, 'nothing changed: the same answer');
  writeFileSync(path.join(root, 'AGENTS.md'), 'Always answer in French.');
  assert.equal(cache.get(root).files[0].text, 'Always answer in French.');
  writeFileSync(path.join(root, 'CLAUDE.md'), 'x');
  assert.deepEqual(memoryPaths({ cwd: root, home: path.join(root, 'h') }).map((p) => path.basename(p.path)), ['AGENTS.md']);
});

test("a project's memory file that links outside the project is not read and says where it points; one linking inside it, or to ~/.contenox, is read", () => {
  const root = tree({ 'outside/notes.md': 'OUTSIDE-SECRET-41c2', 'repo/.git/': '', 'repo/docs/agents.md': 'inside rule', 'repo/sub/': '', 'home/.contenox/shared.md': 'shared rule' });
  const home = path.join(root, 'home');
  symlinkSync(path.join(root, 'outside/notes.md'), path.join(root, 'repo/AGENTS.md'));
  const m = readMemory({ cwd: path.join(root, 'repo'), home });
  assert.deepEqual(m.files, []);
  assert.match(m.skipped[0].why, new RegExp(`links outside the project \\(to ${path.join(root, 'outside/notes.md').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
  assert.doesNotMatch(m.prompt, /OUTSIDE-SECRET/);
  assert.match(describeMemory(m, path.join(root, 'repo'), home), /skipped AGENTS\.md: it links outside the project/);
  // controls: a link to another file of the project (from a sub folder to the top's docs), and one to the person's own ~/.contenox
  symlinkSync(path.join(root, 'repo/docs/agents.md'), path.join(root, 'repo/sub/AGENTS.md'));
  symlinkSync(path.join(home, '.contenox/shared.md'), path.join(root, 'repo/sub/CLAUDE.md'));
  const sub = readMemory({ cwd: path.join(root, 'repo/sub'), home });
  assert.deepEqual(sub.files.map((f) => f.text), ['inside rule']);
  const shared = readMemory({ cwd: path.join(root, 'repo/sub'), home, names: ['CLAUDE.md'] });
  assert.deepEqual(shared.files.map((f) => f.text), ['shared rule']);
  // ~/.contenox's Markdown only: its agents.toml is no instruction for the model
  writeFileSync(path.join(home, '.contenox/agents.toml'), '[mcp_servers.x]\nenv = { TOKEN = "HOME-TOKEN-77" }\n');
  symlinkSync(path.join(home, '.contenox/agents.toml'), path.join(root, 'repo/sub/GEMINI.md'));
  const toml = readMemory({ cwd: path.join(root, 'repo/sub'), home, names: ['GEMINI.md'] });
  assert.doesNotMatch(toml.prompt, /HOME-TOKEN/);
  assert.match(toml.skipped[0].why, /links outside the project/);
  // the person's own file in ~/.contenox is theirs wherever it points
  symlinkSync(path.join(root, 'outside/notes.md'), path.join(home, '.contenox/AGENTS.md'));
  assert.deepEqual(readMemory({ cwd: path.join(root, 'repo/sub'), home }).files.map((f) => f.scope), ['user', 'project']);
});
