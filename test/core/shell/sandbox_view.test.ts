// The sandbox's view as data, without running anything: what the workspace scan finds (and
// re-reads only where something changed), which paths are hidden or walled from the one table
// of protected paths, the bubblewrap mount order, and the macOS Seatbelt profile text.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { PROTECTED_PATHS } from '../../../src/core/protect/table.ts';
import { bwrapArgs } from '../../../src/core/shell/sandbox/bwrap.ts';
import { bwrapFailure } from '../../../src/core/shell/sandbox/launcher.ts';
import { RACY_MS, WorkspaceScanner } from '../../../src/core/protect/scan.ts';
import { sbString, seatbeltProfile } from '../../../src/core/shell/sandbox/seatbelt.ts';
import { describeSandbox, profileFor, withoutSandbox } from '../../../src/core/shell/sandbox/settings.ts';
import { buildView, type SandboxView } from '../../../src/core/shell/sandbox/view.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(base = os.tmpdir()): string {
  const d = realpathSync(mkdtempSync(path.join(base, 'cxl-view-')));
  dirs.push(d);
  return d;
}
function put(root: string, rel: string, text = 'x\n'): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
}

describe('the workspace scan', () => {
  test('finds every tier of the table, hides directories without walking them, and ignores ordinary files', () => {
    const ws = tempDir();
    put(ws, '.ssh/id_rsa');
    put(ws, '.ssh/deep/more/key');
    put(ws, 'a/b/server.PEM'); // case-insensitive, as the file tools match
    put(ws, 'a/.env.local');
    put(ws, 'keys/id_ed25519');
    put(ws, 'src/main.ts');
    put(ws, '.git/hooks/pre-commit.sample');
    put(ws, '.git/config');
    put(ws, '.git/objects/ab/cdef');
    put(ws, 'sub/.bashrc');
    put(ws, '.vscode/settings.json');
    const r = new WorkspaceScanner(ws).scan();
    const rel = (t: string) => r.hits.filter((h) => h.tier === t).map((h) => path.relative(ws, h.path)).sort();
    assert.deepEqual(rel('quarantine'), ['.ssh', 'keys/id_ed25519']);
    assert.deepEqual(rel('read_approve'), ['a/.env.local', 'a/b/server.PEM']);
    assert.deepEqual(rel('write_wall'), ['.git/config', '.git/hooks', '.vscode', 'sub/.bashrc']);
    assert.equal(r.hits.some((h) => h.path.includes('objects')), false, '.git itself is not walled: commits write objects');
    assert.equal(r.incomplete, false);
  });

  // Every directory's mtime put back to a distinct past second, so the next change (now) always
  // moves it, whatever the timestamp tick; the scanner's clock runs ahead of the files' so their
  // stamps are past the racy window (the racy rule has its own test below).
  let past = Math.floor(Date.now() / 1000) - 1000;
  function settle(root: string): void {
    past += 10;
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
      utimesSync(d, past, past);
    };
    walk(root);
  }
  const ahead = () => Date.now() + 3 * RACY_MS;

  test('a second scan re-reads only the directories that changed, and sees what was added, renamed or removed', () => {
    const ws = tempDir();
    for (let i = 0; i < 30; i++) put(ws, `d${i}/sub/file.txt`);
    settle(ws);
    const s = new WorkspaceScanner(ws, ahead);
    const first = s.scan();
    assert.equal(first.reread, first.dirs);
    const again = s.scan();
    assert.equal(again.reread, 0, 'nothing changed: nothing re-read');
    assert.equal(again.dirs, first.dirs);
    put(ws, 'd7/sub/prod.key');
    const third = s.scan();
    assert.equal(third.reread, 1, 'only the directory that gained a file');
    assert.deepEqual(third.hits.map((h) => path.relative(ws, h.path)), ['d7/sub/prod.key']);
    settle(ws);
    s.scan();
    // a directory renamed into a credential name
    renameSync(path.join(ws, 'd3'), path.join(ws, '.aws'));
    const fourth = s.scan();
    assert.deepEqual(fourth.hits.map((h) => path.relative(ws, h.path)).sort(), ['.aws', 'd7/sub/prod.key']);
    settle(ws);
    s.scan();
    unlinkSync(path.join(ws, 'd7/sub/prod.key'));
    assert.deepEqual(s.scan().hits.map((h) => path.relative(ws, h.path)), ['.aws']);
  });

  test('a directory read while its stamp is fresh is read again: a change in the same tick is not missed', () => {
    const ws = tempDir();
    put(ws, 'd/file.txt');
    settle(ws);
    // the real clock: the directory's ctime (just set by settle) is fresh when it is read
    const s = new WorkspaceScanner(ws);
    s.scan();
    // a change whose mtime equals the one already read, in the same ctime tick (Deno reports
    // whole seconds): only the racy rule sees it
    const { mtimeMs } = statSync(path.join(ws, 'd'));
    put(ws, 'd/id_rsa');
    utimesSync(path.join(ws, 'd'), mtimeMs / 1000, mtimeMs / 1000);
    assert.deepEqual(s.scan().hits.map((h) => path.relative(ws, h.path)), ['d/id_rsa']);
    // now the clock says the files were just touched: every directory read is racy
    let clock = Math.max(statSync(ws).ctimeMs, statSync(path.join(ws, 'd')).ctimeMs) + 1;
    const fresh = new WorkspaceScanner(ws, () => clock);
    const r1 = fresh.scan();
    assert.equal(r1.reread, 2);
    assert.equal(fresh.scan().reread, 2, 'racy stamps do not vouch: read again');
    clock += RACY_MS;
    assert.equal(fresh.scan().reread, 2, 'the read that finds the stamps old is the last one');
    assert.equal(fresh.scan().reread, 0);
  });

  test('symlinks: a matching name is reported by its real target; dangling links and linked directories are not followed', () => {
    const ws = tempDir();
    const out = tempDir();
    put(out, 'plain.txt');
    put(out, 'dir/id_rsa');
    symlinkSync(path.join(out, 'plain.txt'), path.join(ws, 'prod.pem'));
    symlinkSync(path.join(ws, 'nowhere'), path.join(ws, 'gone.pem'));
    symlinkSync(path.join(out, 'dir'), path.join(ws, 'linked'));
    const r = new WorkspaceScanner(ws).scan();
    assert.deepEqual(r.hits.map((h) => [h.path, h.tier]), [[path.join(out, 'plain.txt'), 'read_approve']]);
  });
});

describe('the view', () => {
  test('home names are hidden when they exist; missing ones are not mounted; /tmp paths are left to the private /tmp', () => {
    const home = tempDir(path.dirname(os.tmpdir()) === '/' ? '/var/tmp' : os.tmpdir());
    const ws = tempDir();
    put(home, '.ssh/id_rsa');
    put(home, '.netrc');
    put(home, '.config/gcloud/credentials.db');
    put(ws, '.env');
    put(ws, '.git/hooks/x');
    const v = buildView({ profile: 'workspace-write', network: true, roots: [ws], homes: [home] });
    const underTmp = home.startsWith('/tmp/');
    assert.deepEqual(v.hideDirs, underTmp ? [] : [path.join(home, '.config/gcloud'), path.join(home, '.ssh')]);
    assert.deepEqual(v.hideFiles, underTmp ? [path.join(ws, '.env')] : [path.join(home, '.netrc'), path.join(ws, '.env')].sort());
    assert.deepEqual(v.readOnly, [path.join(ws, '.git/hooks')]);
    assert.equal(v.privateTmp, true);
  });

  test('every quarantine entry with an `at` name is hidden from $HOME: the sandbox reads the one table', () => {
    const home = tempDir('/var/tmp');
    const entries = PROTECTED_PATHS.filter((e) => e.tier === 'quarantine' || e.tier === 'read_approve');
    const names = entries.flatMap((e) => e.at ?? []);
    assert.ok(names.length >= 10);
    // a directory entry (`**/.ssh/**`) gets a directory with a file in it; the others a file
    for (const e of entries) for (const n of e.at ?? []) put(home, e.glob.endsWith('/**') ? `${n}/inside` : n);
    const v = buildView({ profile: 'workspace-write', network: true, roots: [tempDir()], homes: [home] });
    const hidden = [...v.hideDirs, ...v.hideFiles].map((p) => path.relative(home, p));
    for (const n of names) assert.ok(hidden.includes(n), `~/${n} is hidden`);
    // unasked (read-only), the home is masked whole: only what a kept toolchain dir holds needs its own mount
    const ro = buildView({ profile: 'read-only', network: true, roots: [tempDir()], homes: [home] });
    assert.deepEqual(ro.maskedHomes, [home]);
    const kept = [...ro.hideDirs, ...ro.hideFiles].map((p) => path.relative(home, p));
    for (const n of ['.cargo/credentials.toml', '.m2/settings.xml', '.gradle/gradle.properties', '.gem/credentials', '.ivy2/.credentials', '.sbt/.credentials', '.stack/upload/credentials.json', '.local/share/uv/credentials', '.julia/servers']) assert.ok(kept.includes(n), `~/${n} stays hidden inside a kept toolchain dir`);
    assert.ok(!kept.includes('.ssh') && !kept.includes('.aws'), 'nothing mounted for what the mask already hides');
    for (const k of ['.cargo', '.m2', '.gradle', '.gem', '.ivy2', '.sbt', '.stack', '.julia']) assert.ok(ro.homeKeep.includes(path.join(home, k)), k);
    // git's XDG dir comes back by file (config, ignore, attributes): its credential store never does
    assert.ok(!ro.homeKeep.includes(path.join(home, '.config/git')) && !kept.includes('.config/git/credentials'));
  });

  test('unasked, a config file with a token is bound as a copy without it, after the roots (so a workspace that is the home shows the copy too); approved, it is not; Seatbelt hides it whole', () => {
    const home = tempDir('/var/tmp');
    put(home, '.gitconfig', '[user]\n\tname = Jane\n[url "https://TOKEN@github.com/"]\n\tinsteadOf = https://github.com/\n');
    put(home, '.cargo/config.toml', '[build]\njobs = 2\n'); // nothing to leave out: bound as it is
    put(home, '.gradle/init.d/repos.gradle');
    for (const roots of [[tempDir()], [home]]) {
      const v = buildView({ profile: 'read-only', network: true, roots, homes: [home] });
      assert.deepEqual(v.homeScrubbed?.map((s) => s.path), [path.join(home, '.gitconfig')]);
      const copy = v.homeScrubbed![0].copy;
      assert.equal(readFileSync(copy, 'utf8'), '[user]\n\tname = Jane\n');
      assert.ok(!copy.startsWith(home), 'the copy lives outside the home');
      assert.ok(v.hideDirs.includes(path.join(home, '.gradle/init.d')), 'init scripts are withheld');
      const args = bwrapArgs(v, home, '/bin/true', []);
      const bind = args.findIndex((a, i) => a === '--ro-bind' && args[i + 1] === copy && args[i + 2] === path.join(home, '.gitconfig'));
      const root = args.findIndex((a, i) => a === '--ro-bind' && args[i + 1] === roots[0] && args[i + 2] === roots[0]);
      assert.ok(bind > root && root > 0, `${args.join(' ')}`);
      const prof = seatbeltProfile(v);
      const denied = prof.slice(prof.indexOf('(deny file-read* file-write*'), prof.indexOf('(deny process-info'));
      assert.ok(denied.includes(`(literal ${sbString(path.join(home, '.gitconfig'))})`), prof);
    }
    const w = buildView({ profile: 'workspace-write', network: true, roots: [tempDir()], homes: [home] });
    assert.deepEqual(w.homeScrubbed ?? [], []);
    assert.ok(!w.hideDirs.includes(path.join(home, '.gradle/init.d')), 'an approved build keeps its init scripts');
  });

  test('a read-approve file the approval named stays visible; a quarantined one never does', () => {
    const ws = tempDir();
    put(ws, '.env');
    put(ws, '.ssh/id_rsa');
    const v = buildView({ profile: 'read-only', network: true, roots: [ws], homes: [], visible: [path.join(ws, '.env'), path.join(ws, '.ssh')] });
    assert.deepEqual(v.hideFiles, []);
    assert.deepEqual(v.hideDirs, [path.join(ws, '.ssh')]);
  });

  test('the read-only profile needs no wall mounts; nested roots collapse to the outermost', () => {
    const ws = tempDir();
    put(ws, 'sub/x');
    put(ws, '.git/config');
    const v = buildView({ profile: 'read-only', network: false, roots: [path.join(ws, 'sub'), ws], homes: [] });
    assert.deepEqual(v.roots, [ws]);
    assert.deepEqual(v.readOnly, []);
  });
});

const VIEW: SandboxView = {
  profile: 'workspace-write',
  network: false,
  roots: ['/work/ws'],
  readOnly: ['/work/ws/.git/hooks', '/work/ws/.git/config'],
  hideDirs: ['/home/u/.ssh'],
  hideFiles: ['/work/ws/.env'],
  privateTmp: true,
  maskedHomes: [],
  homeKeep: [],
  notes: [],
};

describe('bubblewrap arguments', () => {
  test('mounts in order: / read-only, private /tmp, roots, wall, hidden, /dev and /proc (its kernel settings read-only); then the namespaces, the socket filter and the command', () => {
    const a = bwrapArgs(VIEW, '/work/ws/src', '/usr/bin/git', ['status'], { seccompFd: 4 });
    assert.deepEqual(a, [
      '--ro-bind', '/', '/',
      '--tmpfs', '/tmp',
      '--bind', '/work/ws', '/work/ws',
      '--ro-bind', '/work/ws/.git/hooks', '/work/ws/.git/hooks',
      '--ro-bind', '/work/ws/.git/config', '/work/ws/.git/config',
      '--tmpfs', '/home/u/.ssh', '--remount-ro', '/home/u/.ssh',
      '--ro-bind', '/dev/null', '/work/ws/.env',
      '--dev', '/dev', '--proc', '/proc',
      '--ro-bind', '/proc/sys', '/proc/sys', '--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger',
      '--unshare-pid', '--unshare-net', '--cap-drop', 'ALL', '--die-with-parent', '--new-session',
      '--seccomp', '4',
      '--chdir', '/work/ws/src', '--', '/usr/bin/git', 'status',
    ]);
  });

  test('read-only binds the roots read-only and skips the wall; network on keeps the network namespace', () => {
    const a = bwrapArgs({ ...VIEW, profile: 'read-only', network: true }, '/work/ws', 'ls', []);
    assert.deepEqual(a.slice(0, 8), ['--ro-bind', '/', '/', '--tmpfs', '/tmp', '--ro-bind', '/work/ws', '/work/ws']);
    assert.equal(a.includes('/work/ws/.git/hooks'), false);
    assert.equal(a.includes('--unshare-net'), false);
  });

  test('with an info fd, bwrap is asked to report its init pid there (before `--`)', () => {
    const a = bwrapArgs(VIEW, '/work/ws', 'ls', [], { infoFd: 3 });
    assert.deepEqual(a.slice(a.indexOf('--info-fd'), a.indexOf('--info-fd') + 2), ['--info-fd', '3']);
    assert.ok(a.indexOf('--info-fd') < a.indexOf('--'));
  });

  test('arguments that look like options reach the command after `--`, untouched', () => {
    const a = bwrapArgs(VIEW, '/work/ws', '/bin/echo', ['--bind', '/', '/']);
    assert.deepEqual(a.slice(a.indexOf('--') + 1), ['/bin/echo', '--bind', '/', '/']);
  });

  test("bwrap's own failures are told apart from the command's", () => {
    assert.deepEqual(bwrapFailure(1, 'bwrap: execvp nope: No such file or directory\n', 'nope'), { exitCode: 127, message: 'cannot run nope: not found' });
    assert.deepEqual(bwrapFailure(1, 'bwrap: Can\'t create file at /w/.env: No such file\n', 'cat'), { exitCode: null, message: "Can't create file at /w/.env: No such file" });
    assert.equal(bwrapFailure(1, 'grep: x: No such file\n', 'grep'), undefined);
    assert.equal(bwrapFailure(2, 'bwrap: whatever\n', 'x'), undefined);
  });
});

describe('the Seatbelt profile (macOS; untested on hardware)', () => {
  test('denies writes except the roots and temp dirs, re-denies the wall, hides credentials, and turns the network off', () => {
    const p = seatbeltProfile(VIEW, { tempDirs: ['/private/tmp'] });
    assert.equal(
      p,
      [
        '(version 1)',
        '(allow default)',
        '(deny file-write*)',
        '(allow file-write*\n  (subpath "/work/ws")\n  (subpath "/private/tmp")\n  (literal "/dev/null")\n  (literal "/dev/zero")\n  (literal "/dev/tty")\n  (literal "/dev/dtracehelper")\n  (regex #"^/dev/fd/"))',
        '(deny file-write*\n  (subpath "/work/ws/.git/hooks")\n  (subpath "/work/ws/.git/config"))',
        '(deny file-read* file-write*\n  (subpath "/home/u/.ssh")\n  (literal "/work/ws/.env"))',
        '(deny process-info* (target others))',
        '(deny network-outbound (remote unix-socket))',
        '(allow network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))',
        '(deny network*)',
        '',
      ].join('\n'),
    );
  });

  test('read-only allows no workspace writes; the network stays on when allowed', () => {
    const p = seatbeltProfile({ ...VIEW, profile: 'read-only', network: true });
    assert.doesNotMatch(p, /subpath "\/work\/ws"\)/);
    assert.doesNotMatch(p, /deny network\*/);
    assert.match(p, /deny network-outbound \(remote unix-socket\)/, 'unix sockets stay refused with the network on');
  });

  test('hostile path names cannot break out of their string', () => {
    assert.equal(sbString('/a/"b") (allow file-write* (subpath "/'), '"/a/\\"b\\") (allow file-write* (subpath \\"/"');
    assert.equal(sbString('/a\\b'), '"/a\\\\b"');
    assert.throws(() => sbString('/a\nb'), /control characters/);
    const p = seatbeltProfile({ ...VIEW, roots: ['/w/x") (allow file-write* (subpath "/'] });
    assert.ok(p.includes('(subpath "/w/x\\") (allow file-write* (subpath \\"/")'), 'the quote is escaped: still one path inside one string');
    // every double quote in the profile is either escaped or delimits a string: balanced per line
    for (const line of p.split('\n')) assert.equal((line.replace(/\\"/g, '').match(/"/g) ?? []).length % 2, 0, line);
  });
});

describe('profile and the decision', () => {
  const allow = { action: 'allow' as const, rule: 'shell.prefix_allowlist' as const, envelope: 'default', from: 'default', sentence: 'allow: `ls` starts with `ls` of prefix_allowlist' };
  test('prefix allowlist unasked is read-only; everything else that runs is workspace-write', () => {
    assert.equal(profileFor(allow, false), 'read-only');
    assert.equal(profileFor(allow, true), 'workspace-write');
    assert.equal(profileFor({ action: 'approve', rule: 'shell' }, true), 'workspace-write');
    assert.equal(profileFor({ action: 'allow', rule: 'always_allow' }, false), 'workspace-write');
    assert.equal(profileFor({ action: 'allow', rule: 'tools' }, false), 'workspace-write');
  });
  test('auto without a working sandbox turns a prefix allow into an ask with the reason; required and off do not', () => {
    const none = { state: 'unavailable' as const, reason: 'bwrap (bubblewrap) is not on PATH' };
    const d = withoutSandbox(allow, 'auto', none);
    assert.equal(d.action, 'approve');
    assert.match(d.sentence, /no sandbox is working \(bwrap \(bubblewrap\) is not on PATH\), so it asks/);
    assert.equal(withoutSandbox(allow, 'auto', { state: 'bubblewrap' }), allow);
    assert.equal(withoutSandbox(allow, 'off', none), allow, 'off: the user chose to run unsandboxed');
    assert.match(describeSandbox('required', true, none), /refused \(sandbox_unavailable\).*apt-get install bubblewrap/);
    assert.match(describeSandbox('auto', false, { state: 'bubblewrap', reason: '/usr/bin/bwrap' }), /^bubblewrap \(\/usr\/bin\/bwrap\), shell.sandbox = "auto", network off/);
  });
});

