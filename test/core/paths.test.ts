// Path confinement, table-driven over the classes of attack on confined file tools (prefix
// siblings, traversal, symlinks in and out, dangling links, TOCTOU swaps, hostile syntax,
// denied names, credentials). Each case builds its own setup in a temp dir and runs through
// the real toolset (read_file / write_file / list_dir) with the default chain's policy.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { ErrorCode, ToolError } from '../../src/core/errors.ts';
import { WorkspaceFileIO, type FileIO } from '../../src/core/local_fs/file_io.ts';
import { canonicalRoot, checkPathSyntax, confine, isWithin, MAX_LINKS, relativeTo } from '../../src/core/paths.ts';
import { checkLine } from '../../src/core/shell/checker.ts';
import { resolveDirectory } from '../../src/core/shell/confine.ts';
import { resolveWord } from '../../src/core/shell/path_words.ts';
import { tempDir, toolset } from './fs_helpers.ts';

interface Case {
  id: string;
  path: string;
  op: 'read' | 'write' | 'list';
  setup?: string[];
  /** 'allow' = the call succeeds; otherwise the refusal code */
  expect: 'allow' | ErrorCode;
  /** give the toolset this root instead of ROOT (e.g. ROOTLINK) */
  root?: string;
}

const BASE_SETUP = ['file ROOT/src/main.go', 'file ROOT/README.md', 'dir OUTSIDE', 'file OUTSIDE/secret.txt', 'dir ROOT_evil', 'file ROOT_evil/secret.txt'];
const A1000 = `${'a/'.repeat(2100)}x`;

const CASES: Case[] = [
  // legit
  { id: 'p-001 plain relative file', path: 'src/main.go', op: 'read', expect: 'allow' },
  { id: 'p-004 repeated separators, absolute inside', path: 'ROOT//src///main.go', op: 'read', expect: 'allow' },
  { id: 'p-007 .. that stays inside', path: 'src/../README.md', op: 'read', expect: 'allow' },
  { id: 'p-010 new file under an existing parent', path: 'src/new.txt', op: 'write', expect: 'allow' },
  { id: 'p-013 .gitignore is not .git/', path: '.gitignore', op: 'read', setup: ['file ROOT/.gitignore'], expect: 'allow' },
  { id: 'p-014 symlink to inside', path: 'alias/main.go', op: 'read', setup: ['symlink ROOT/alias -> ROOT/src'], expect: 'allow' },
  { id: 'dot-dot file names are names', path: '..test', op: 'write', expect: 'allow' },
  { id: 'trailing dots are names', path: 'test..', op: 'write', expect: 'allow' },
  { id: 'three dots is a name', path: '...', op: 'write', expect: 'allow' },
  { id: 'percent-encoding is not decoded', path: '%2e%2e/%2e%2e/etc/x', op: 'write', expect: 'allow' },
  { id: 'root listed as .', path: '.', op: 'list', expect: 'allow' },
  { id: 'trailing slash on a dir', path: 'src/', op: 'list', expect: 'allow' },
  { id: 'root given as a symlink; absolute path through it', path: 'ROOTLINK/src/main.go', op: 'read', root: 'ROOTLINK', setup: ['symlink ROOTLINK -> ROOT'], expect: 'allow' },
  { id: 'new nested dirs are created inside', path: 'a/b/c/new.txt', op: 'write', expect: 'allow' },
  { id: 'hardlink to outside: write replaces the link, not the target', path: 'hl', op: 'write', setup: ['hardlink ROOT/hl -> OUTSIDE/secret.txt', 'read ROOT/hl'], expect: 'allow' },
  // symlinks out
  { id: 'p-045 dir symlink to /etc', path: 'link_etc/hostname', op: 'read', setup: ['symlink ROOT/link_etc -> /etc'], expect: 'escape' },
  { id: 'p-048 .. after a dir symlink is resolved, not lexical', path: 'deep/../secret.txt', op: 'read', setup: ['dir OUTSIDE/a/b', 'file OUTSIDE/a/secret.txt', 'symlink ROOT/deep -> OUTSIDE/a/b', 'file ROOT/secret.txt'], expect: 'escape' },
  { id: 'p-051 new nested file under a link out', path: 'link_out/a/b/c.txt', op: 'write', setup: ['symlink ROOT/link_out -> OUTSIDE'], expect: 'escape' },
  { id: 'file symlink to outside', path: 'sec', op: 'read', setup: ['symlink ROOT/sec -> OUTSIDE/secret.txt'], expect: 'escape' },
  { id: 'write through a file symlink to outside', path: 'sec', op: 'write', setup: ['symlink ROOT/sec -> OUTSIDE/secret.txt'], expect: 'escape' },
  { id: 'chain of links ending outside', path: 'l1/secret.txt', op: 'read', setup: ['symlink ROOT/l2 -> OUTSIDE', 'symlink ROOT/l1 -> ROOT/l2'], expect: 'escape' },
  { id: 'relative link target climbing out', path: 'up/secret.txt', op: 'read', setup: ['symlink ROOT/up -> ../OUTSIDE'], expect: 'escape' },
  { id: 'dangling link (write must not create the target)', path: 'dl', op: 'write', setup: ['symlink ROOT/dl -> OUTSIDE/created.txt'], expect: 'escape' },
  { id: 'dangling link inside still refused', path: 'dli', op: 'read', setup: ['symlink ROOT/dli -> ROOT/nope'], expect: 'escape' },
  { id: 'symlink loop', path: 'loop1/x', op: 'read', setup: ['symlink ROOT/loop1 -> ROOT/loop2', 'symlink ROOT/loop2 -> ROOT/loop1'], expect: 'escape' },
  { id: 'link to the prefix sibling', path: 'ev/secret.txt', op: 'read', setup: ['symlink ROOT/ev -> ROOT_evil'], expect: 'escape' },
  // traversal
  { id: 'p-017 parent of ROOT', path: '..', op: 'list', expect: 'escape' },
  { id: 'p-020 valid segment then escape', path: 'src/../../OUTSIDE/secret.txt', op: 'read', expect: 'escape' },
  { id: 'p-023 absolute outside', path: '/etc/passwd', op: 'read', expect: 'escape' },
  { id: 'p-026 prefix sibling via ..', path: 'ROOT/../ROOT_evil/secret.txt', op: 'read', expect: 'escape' },
  { id: 'prefix sibling, absolute', path: 'ROOT_evil/secret.txt', op: 'read', expect: 'escape' },
  { id: 'prefix sibling, relative', path: '../ROOT_evil/secret.txt', op: 'write', expect: 'escape' },
  { id: 'the filesystem root', path: '/', op: 'list', expect: 'escape' },
  { id: 'many .. through an existing dir', path: 'src/../../../../../../etc/passwd', op: 'read', expect: 'escape' },
  { id: '.. after a missing dir', path: 'missing/../../OUTSIDE/x', op: 'write', expect: 'bad_path' },
  // hostile syntax
  { id: 'p-029 over PATH_MAX', path: A1000, op: 'write', expect: 'bad_path' },
  { id: 'p-033 backslash separators', path: '..\\..\\etc\\passwd', op: 'read', expect: 'bad_path' },
  { id: 'p-036 UNC path', path: '\\\\server\\share\\x', op: 'read', expect: 'bad_path' },
  { id: 'p-039 ~user', path: '~root/.bashrc', op: 'read', expect: 'bad_path' },
  { id: 'leading ~/', path: '~/x', op: 'read', expect: 'bad_path' },
  { id: 'p-042 newline in a path', path: 'src/a\nb.txt', op: 'write', expect: 'bad_path' },
  { id: 'NUL in a path', path: 'src/main.go\u0000.txt', op: 'read', expect: 'bad_path' },
  { id: 'carriage return', path: 'src/\rx', op: 'write', expect: 'bad_path' },
  { id: 'escape sequence', path: 'src/\u001b[31mx', op: 'write', expect: 'bad_path' },
  { id: 'DEL', path: 'a\u007fb', op: 'write', expect: 'bad_path' },
  { id: 'C1 control (NEL)', path: 'a\u0085b', op: 'write', expect: 'bad_path' },
  { id: 'file URI', path: 'file:///etc/passwd', op: 'read', expect: 'bad_path' },
  { id: 'http URI', path: 'https://example.com/x', op: 'read', expect: 'bad_path' },
  { id: 'drive letter', path: 'C:/Windows/win.ini', op: 'read', expect: 'bad_path' },
  { id: 'empty path', path: '', op: 'read', expect: 'bad_path' },
  { id: 'over-long segment', path: `${'x'.repeat(256)}.txt`, op: 'write', expect: 'bad_path' },
  { id: 'p-060 FIFO (would block forever)', path: 'fifo', op: 'read', setup: ['mkfifo ROOT/fifo'], expect: 'not_regular' },
  // denied substrings (default chain)
  { id: 'p-052 symlink to .git: resolved path checked', path: 'innocent/config', op: 'read', setup: ['dir ROOT/.git', 'file ROOT/.git/config', 'symlink ROOT/innocent -> ROOT/.git'], expect: 'denied_path' },
  { id: 'p-064 .git/', path: '.git/config', op: 'read', setup: ['dir ROOT/.git', 'file ROOT/.git/config'], expect: 'denied_path' },
  { id: 'p-067 .git reached via ..', path: 'src/../.git/config', op: 'read', setup: ['dir ROOT/.git', 'file ROOT/.git/config'], expect: 'denied_path' },
  { id: '.git/ covers listing .git itself', path: '.git', op: 'list', setup: ['dir ROOT/.git'], expect: 'denied_path' },
  { id: 'denied names match case-insensitively', path: '.GIT/config', op: 'read', setup: ['dir ROOT/.GIT', 'file ROOT/.GIT/config'], expect: 'denied_path' },
  { id: 'node_modules anywhere', path: 'pkg/node_modules/x/index.js', op: 'write', expect: 'denied_path' },
  { id: 'writing .git/hooks', path: '.git/hooks/pre-commit', op: 'write', setup: ['dir ROOT/.git'], expect: 'denied_path' },
  // credentials
  { id: 'p-053 symlink to .env: resolved path checked', path: 'notes.txt', op: 'read', setup: ['file ROOT/.env', 'symlink ROOT/notes.txt -> ROOT/.env'], expect: 'approval_required' },
  { id: 'p-071 dotenv variant', path: '.env.local', op: 'read', expect: 'approval_required' },
  { id: 'p-074 ssh key outside .ssh', path: 'id_ed25519', op: 'read', expect: 'quarantined' },
  { id: 'p-077 *.pem', path: 'certs/server.pem', op: 'read', expect: 'approval_required' },
  { id: 'p-080 git credential store', path: '.git-credentials', op: 'read', expect: 'quarantined' },
  { id: 'p-083 trailing dot', path: '.env.', op: 'read', expect: 'approval_required' },
  { id: 'credential write is refused too', path: '.ssh/authorized_keys', op: 'write', expect: 'quarantined' },
  { id: 'case-insensitive quarantine', path: '.SSH/Id_Rsa', op: 'read', setup: ['dir ROOT/.SSH', 'file ROOT/.SSH/Id_Rsa'], expect: 'quarantined' },
  { id: 'listing a quarantined dir', path: '.aws', op: 'list', setup: ['dir ROOT/.aws'], expect: 'quarantined' },
  { id: 'symlink to a key', path: 'k', op: 'read', setup: ['file ROOT/id_rsa', 'symlink ROOT/k -> ROOT/id_rsa'], expect: 'quarantined' },
  { id: 'trailing space on a quarantined name', path: '.netrc ', op: 'read', expect: 'quarantined' },
  { id: '.kube/config', path: 'home/.kube/config', op: 'read', expect: 'quarantined' },
  { id: 'gcloud config dir', path: '.config/gcloud/credentials.db', op: 'read', expect: 'quarantined' },
  // check-to-use
  { id: 'p-054 file swapped for a symlink after validation', path: 'src/data.txt', op: 'write', setup: ['file ROOT/src/data.txt', 'read ROOT/src/data.txt', 'after_validate: replace ROOT/src/data.txt with symlink -> OUTSIDE/secret.txt'], expect: 'escape' },
  { id: 'p-057 symlink to identical content after the read', path: 'src/data.txt', op: 'write', setup: ['file ROOT/src/data.txt content=SAME', 'file OUTSIDE/same.txt content=SAME', 'read ROOT/src/data.txt', 'after_read: replace ROOT/src/data.txt with symlink -> OUTSIDE/same.txt'], expect: 'escape' },
  { id: 'read: file swapped for a symlink after validation', path: 'src/main.go', op: 'read', setup: ['after_validate: replace ROOT/src/main.go with symlink -> OUTSIDE/secret.txt'], expect: 'escape' },
  { id: 'read: file swapped for a FIFO after validation', path: 'src/main.go', op: 'read', setup: ['after_validate: replace ROOT/src/main.go with fifo'], expect: 'not_regular' },
  { id: 'read: parent dir swapped for a link out after validation', path: 'src/main.go', op: 'read', setup: ['file OUTSIDE/main.go', 'after_validate: replace ROOT/src with symlink -> OUTSIDE'], expect: 'escape' },
  { id: 'edit: parent dir swapped for a link out after validation', path: 'src/main.go', op: 'write', setup: ['file OUTSIDE/main.go', 'read ROOT/src/main.go', 'after_validate: replace ROOT/src with symlink -> OUTSIDE'], expect: 'escape' },
  { id: 'parent dir swapped for a link out before a new-file write', path: 'src/brand-new.txt', op: 'write', setup: ['after_validate: replace ROOT/src with symlink -> OUTSIDE'], expect: 'escape' },
];

/** A FileIO that runs a hook between the path check and the real read/write. */
class HookIO implements FileIO {
  readonly kind = 'workspace' as const;
  constructor(readonly inner: FileIO, readonly hook: { fn?: () => void; on?: 'read' | 'write' }) {}
  #fire(op: 'read' | 'write') {
    if (this.hook.on !== op) return;
    this.hook.fn?.();
    this.hook.fn = undefined;
  }
  async read(...a: Parameters<FileIO['read']>) {
    this.#fire('read');
    return this.inner.read(...a);
  }
  async write(...a: Parameters<FileIO['write']>) {
    this.#fire('write');
    return this.inner.write(...a);
  }
}

function snapshotDir(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

for (const c of CASES) {
  test(`confinement ${c.id}: ${c.op} ${JSON.stringify(c.path.length > 60 ? `${c.path.slice(0, 60)}…` : c.path)} → ${c.expect}`, async () => {
    const base = tempDir('cxl-paths-');
    const sub = (s: string) => s.replace(/\b(ROOT_evil|ROOTLINK|ROOT|OUTSIDE)\b/g, (m) => path.join(base, m));
    fs.mkdirSync(path.join(base, 'ROOT'));
    const hook: { fn?: () => void; on?: 'read' | 'write' } = { on: c.op === 'write' ? 'write' : 'read' };
    const later: string[] = [];
    const reads: string[] = [];
    for (const step of [...BASE_SETUP, ...(c.setup ?? [])]) {
      let m: RegExpMatchArray | null;
      if ((m = /^file (\S+)(?: content=(.*))?$/.exec(step))) {
        fs.mkdirSync(path.dirname(sub(m[1])), { recursive: true });
        fs.writeFileSync(sub(m[1]), m[2] ?? `contents of ${m[1]}\n`);
      } else if ((m = /^dir (\S+)$/.exec(step))) fs.mkdirSync(sub(m[1]), { recursive: true });
      else if ((m = /^symlink (\S+) -> (\S+)$/.exec(step))) fs.symlinkSync(m[2].startsWith('..') ? m[2] : sub(m[2]), sub(m[1]));
      else if ((m = /^hardlink (\S+) -> (\S+)$/.exec(step))) fs.linkSync(sub(m[2]), sub(m[1]));
      else if ((m = /^mkfifo (\S+)$/.exec(step))) assert.equal(spawnSync('mkfifo', [sub(m[1])]).status, 0);
      else if ((m = /^read (\S+)/.exec(step))) reads.push(path.relative(path.join(base, 'ROOT'), sub(m[1])));
      else if (/^after_(validate|read):/.test(step)) later.push(step);
      else throw new Error(`unknown setup step ${step}`);
    }
    const swap = (step: string) => () => {
      const m = /replace (\S+) with (?:symlink -> (\S+)|(fifo))$/.exec(step)!;
      fs.rmSync(sub(m[1]), { recursive: true, force: true });
      if (m[3]) assert.equal(spawnSync('mkfifo', [sub(m[1])]).status, 0);
      else fs.symlinkSync(sub(m[2]), sub(m[1]));
    };
    const rootDir = path.join(base, c.root ?? 'ROOT');
    const ts = toolset(rootDir, {}, { io: new HookIO(new WorkspaceFileIO(canonicalRoot(rootDir)), hook) });
    for (const r of reads) await ts.call('read_file', { path: r });
    for (const step of later) {
      if (step.startsWith('after_read:')) swap(step)();
      else hook.fn = swap(step);
    }
    const outsideBefore = snapshotDir(path.join(base, 'OUTSIDE'));
    const evilBefore = snapshotDir(path.join(base, 'ROOT_evil'));
    const p = sub(c.path);
    const call = c.op === 'read' ? ts.call('read_file', { path: p }) : c.op === 'write' ? ts.call('write_file', { path: p, content: 'NEW\n' }) : ts.call('list_dir', { path: p });
    const got = await call.then(
      () => 'allow' as const,
      (err: { code?: ErrorCode; message?: string }) => {
        if (c.expect === 'allow' || err.code !== c.expect) assert.fail(`expected ${c.expect}, got ${err.code}: ${err.message}`);
        return err.code!;
      },
    );
    assert.equal(got, c.expect);
    // whatever the verdict, nothing outside the root changed
    assert.deepEqual(snapshotDir(path.join(base, 'OUTSIDE')), outsideBefore);
    assert.deepEqual(snapshotDir(path.join(base, 'ROOT_evil')), evilBefore);
    assert.equal(fs.existsSync(path.join(base, 'OUTSIDE', 'created.txt')), false);
    assert.equal(fs.existsSync(path.join(base, 'OUTSIDE', 'brand-new.txt')), false);
    if (c.op === 'write' && c.expect === 'allow') assert.equal(fs.readFileSync(confine(ts.root, p).real, 'utf8'), 'NEW\n');
  });
}

test('checkPathSyntax accepts ordinary names and refuses each hostile class', () => {
  for (const ok of ['a', 'src/x.ts', './a', 'a b/c', 'ünïcødé/文件.md', '.hidden', 'dir/a:b']) assert.doesNotThrow(() => checkPathSyntax(ok), ok);
  for (const bad of ['', '\u0000', 'a\tb', '~', '~x', 'x\\y', 'mailto:x', 'D:', 'a\u009bb', 'x'.repeat(4097)]) {
    assert.throws(() => checkPathSyntax(bad), { code: 'bad_path' }, JSON.stringify(bad).slice(0, 40));
  }
  assert.throws(() => checkPathSyntax(42 as unknown as string), { code: 'bad_path' });
});

test('isWithin is component-wise, never a string prefix', () => {
  assert.equal(isWithin('/r/root', '/r/root'), true);
  assert.equal(isWithin('/r/root', '/r/root/a/b'), true);
  assert.equal(isWithin('/r/root', '/r/root_evil'), false);
  assert.equal(isWithin('/r/root', '/r/root2/x'), false);
  assert.equal(isWithin('/r/root', '/r/root.bak'), false);
  assert.equal(isWithin('/r/root', '/r'), false);
  assert.equal(isWithin('/r/root', '/r/root/..a'), true);
  assert.equal(relativeTo('/r/root', '/r/root'), '.');
  assert.equal(relativeTo('/r/root', '/r/root/a/b'), 'a/b');
});

test('confine resolves a new path against its nearest real ancestor and reports it as new', () => {
  const base = tempDir();
  fs.mkdirSync(path.join(base, 'real/sub'), { recursive: true });
  fs.symlinkSync(path.join(base, 'real'), path.join(base, 'alias'));
  const c = confine(base, 'alias/sub/new/deeper.txt');
  assert.equal(c.exists, false);
  assert.equal(c.real, path.join(base, 'real/sub/new/deeper.txt'));
  assert.equal(c.rel, 'real/sub/new/deeper.txt');
  assert.equal(c.requestedRel, 'alias/sub/new/deeper.txt');
});

test('a very deep escape made of many segments is refused (length or escape), never allowed', () => {
  const base = tempDir();
  fs.mkdirSync(path.join(base, 'root/a'), { recursive: true });
  const root = path.join(base, 'root');
  // climbing out of a directory that does not exist is bad_path; climbing through real ones, escape
  for (const [p, code] of [[`${'a/'.repeat(1000)}${'../'.repeat(1001)}x`, 'bad_path'], [`a/${'../'.repeat(50)}etc/passwd`, 'escape']]) {
    assert.throws(() => confine(root, p), { code });
  }
});

test('canonicalRoot refuses a missing root and a file', () => {
  const base = tempDir();
  fs.writeFileSync(path.join(base, 'f'), '');
  assert.throws(() => canonicalRoot(path.join(base, 'nope')), { code: 'not_found' });
  assert.throws(() => canonicalRoot(path.join(base, 'f')), { code: 'not_directory' });
});

describe('inside both as written and as resolved (as the MCP filesystem server checks)', () => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-written-')));
  after(() => fs.rmSync(base, { recursive: true, force: true }));
  const root = path.join(base, 'root');
  fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
  fs.writeFileSync(path.join(root, 'x'), 'x');
  fs.symlinkSync('a/b', path.join(root, 'link'));
  fs.symlinkSync('root', path.join(base, 'alias'));
  fs.mkdirSync(path.join(base, 'out'));
  fs.symlinkSync(path.join(root, 'a'), path.join(base, 'out', 'in'));
  test('`link/../../x` resolves inside (link is a/b) but leaves the root as written: refused', () => {
    assert.throws(() => confine(root, 'link/../../x'), (e: ToolError) => e.code === 'escape' && /as written/.test(e.message));
    assert.equal(confine(root, 'link/../x').rel, 'a/x', 'one level up stays inside both ways');
  });
  test('an absolute path through another name of the root itself is inside as written', () => {
    assert.equal(confine(root, path.join(base, 'alias', 'x')).rel, 'x');
  });
  test('an absolute path through a link outside the root that points in is refused', () => {
    assert.throws(() => confine(root, path.join(base, 'out', 'in', 'b')), (e: ToolError) => e.code === 'escape');
  });
  test('the shell checks cd the same way', () => {
    const v = checkLine('cd link/../.. && ls', { allowedCommands: ['ls'], allowedDir: root }, { cwd: root });
    assert.equal(v.verdict === 'refuse' && v.rule, 'cd-escape');
    assert.equal(checkLine('cd link/.. && ls', { allowedCommands: ['ls'], allowedDir: root }, { cwd: root }).verdict, 'allow');
  });
});

describe('one component walk: confinement, the shell\'s cd and its path words resolve a path alike', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-walk-')));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
  fs.writeFileSync(path.join(root, 'file'), 'x');
  fs.symlinkSync('a/b', path.join(root, 'deep'));
  fs.symlinkSync('.', path.join(root, 'self'));
  fs.symlinkSync('loop', path.join(root, 'loop'));
  fs.symlinkSync('missing/x', path.join(root, 'dangling'));
  fs.symlinkSync('file', path.join(root, 'tofile'));

  /** Each walker's answer: the real path it reached, or `-` when it did not reach an existing one. */
  function answers(p: string): { confine: string; word: string; cd?: string } {
    let c = '-';
    try {
      const r = confine(root, p);
      if (r.exists) c = r.real;
    } catch {
      /* refused */
    }
    const w = resolveWord(root, p);
    const out: { confine: string; word: string; cd?: string } = { confine: c, word: w.exists ? w.real : '-' };
    // cd only reaches directories: asked where the others reached one, or nothing
    if (c === '-' || fs.statSync(c).isDirectory()) {
      try {
        out.cd = resolveDirectory(root, p);
      } catch {
        out.cd = '-';
      }
    }
    return out;
  }

  const cases: [string, string][] = [
    ['deep/..', 'a'],
    ['deep/../b/..', 'a'],
    ['self/self/a', 'a'],
    ['file/..', '-'], // a file is no directory to climb out of (ENOTDIR, as the kernel says)
    ['tofile/..', '-'],
    ['file/.', 'file'],
    ['loop', '-'],
    ['dangling', '-'],
    [`${'self/'.repeat(MAX_LINKS + 1)}a`, '-'], // more links in one path than the kernel follows
    [`${'self/'.repeat(MAX_LINKS - 1)}a`, 'a'],
  ];
  for (const [p, want] of cases) {
    test(`${p.length > 40 ? `${p.slice(0, 40)}…` : p} → ${want}`, () => {
      const expected = want === '-' ? '-' : path.join(root, want);
      const got = answers(p);
      assert.equal(got.confine, expected, `confine: ${JSON.stringify(got)}`);
      assert.equal(got.word, expected, `path words: ${JSON.stringify(got)}`);
      if (got.cd !== undefined) assert.equal(got.cd, expected, `cd: ${JSON.stringify(got)}`);
    });
  }
});
