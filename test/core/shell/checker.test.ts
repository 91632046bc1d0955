// The command policy by input class: quoting evasions, separators inside and outside quotes,
// every refused construct in the first, a middle and the last step, cd escapes, program
// resolution, long lines, control characters and unicode lookalikes.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { checkArgv, checkLine, type ShellPolicy, type Verdict } from '../../../src/core/shell/checker.ts';
import { MAX_LINE_BYTES } from '../../../src/core/shell/lexer.ts';
import { stubBin, tempRoot } from './helpers.ts';

const { root: base, cleanup } = tempRoot('cxl-checker-');
after(cleanup);
const ROOT = path.join(base, 'root');
const OUTSIDE = path.join(base, 'outside');
mkdirSync(path.join(ROOT, 'sub', 'deep'), { recursive: true });
mkdirSync(path.join(OUTSIDE, 'deep'), { recursive: true });
mkdirSync(path.join(base, 'root_evil'));
writeFileSync(path.join(ROOT, 'file.txt'), 'x');
symlinkSync(OUTSIDE, path.join(ROOT, 'out_link'));
symlinkSync(path.join(OUTSIDE, 'deep'), path.join(ROOT, 'deep_out_link'));
symlinkSync('sub/deep', path.join(ROOT, 'in_link'));
symlinkSync(path.join(ROOT, 'nowhere'), path.join(ROOT, 'dangling'));
symlinkSync('loop_b', path.join(ROOT, 'loop_a'));
symlinkSync('loop_a', path.join(ROOT, 'loop_b'));

const names = ['echo', 'ls', 'git', 'cat', 'true', 'false', 'find', 'rm', 'curl'];
const BIN = stubBin(path.join(base, 'bin'), names);
const POLICY: ShellPolicy = { allowedCommands: ['echo', 'ls', 'git', 'cat', 'true', 'false', 'find'], deniedCommands: ['rm', 'curl'], allowedDir: ROOT };
const check = (line: string, policy: ShellPolicy = POLICY, cwd = ROOT) => checkLine(line, policy, { cwd, pathEnv: BIN });

function allowed(v: Verdict): asserts v is Extract<Verdict, { verdict: 'allow' }> {
  assert.equal(v.verdict, 'allow', JSON.stringify(v));
}
function refused(v: Verdict): asserts v is Extract<Verdict, { verdict: 'refuse' }> {
  assert.equal(v.verdict, 'refuse', JSON.stringify(v));
}
const argvs = (v: Verdict) => v.steps.map((s) => s.argv);

describe('quoting evasions', () => {
  for (const line of ['"r"m -rf x', 'r"m" -rf x', "'r'm x", '""rm x', 'rm"" x', "g'i't status", '"git" status', "'git status'", '"ls"']) {
    test(`a quoted or partly quoted program is refused: ${line}`, () => {
      const v = check(line);
      refused(v);
      assert.equal(v.rule, 'quoted-program');
      assert.equal(v.position, 0);
    });
  }
  test('quotes in arguments are removed exactly as sh removes them', () => {
    const v = check(`echo 'it''s' "a b" c'd'"e" '' "" 'x y'z`);
    allowed(v);
    assert.deepEqual(argvs(v), [['echo', 'its', 'a b', 'cde', '', '', 'x yz']]);
  });
  test('single quotes make every special character literal', () => {
    const v = check(`echo '$(rm -rf /)' '\`id\`' '\${IFS}' '*' '|' '>' '\\' '#' '!' '~'`);
    allowed(v);
    assert.deepEqual(argvs(v)[0].slice(1), ['$(rm -rf /)', '`id`', '${IFS}', '*', '|', '>', '\\', '#', '!', '~']);
  });
  for (const [line, construct] of [
    ['echo "$(id)"', /command substitution/],
    ['echo "${HOME}"', /parameter expansion/],
    ['echo "$HOME"', /variable expansion/],
    ['echo "`id`"', /command substitution/],
    ['echo "a\\"; rm -rf x; echo \\""', /escape/],
    ['echo "wow!"', /history/],
    ["echo \"it's\" '", /unterminated single quote/],
    ['echo "abc', /unterminated double quote/],
  ] as const) {
    test(`inside double quotes, still refused: ${line}`, () => {
      const v = check(line);
      refused(v);
      assert.match(v.construct, construct);
    });
  }
});

describe('separators inside quotes versus outside', () => {
  for (const line of [`echo 'x; rm -rf /'`, `echo "x && rm -rf /"`, `echo 'a || rm'`, `echo "a;rm"`, `echo 'a\nrm -rf x'`]) {
    test(`inside quotes, one step: ${JSON.stringify(line)}`, () => {
      const v = check(line);
      allowed(v);
      assert.equal(v.steps.length, 1);
    });
  }
  for (const line of ['echo x; rm -rf /', 'echo x;rm', 'echo x&&rm', 'echo x||rm', "echo 'a'&&rm", 'echo "a"\'b\'c;rm x', 'true;true;rm']) {
    test(`outside quotes, a new step whose program is checked: ${line}`, () => {
      const v = check(line);
      refused(v);
      assert.equal(v.rule, 'denied');
      assert.equal(v.construct, 'rm');
      assert.ok(v.step >= 1);
    });
  }
  test('&& || ; are recorded per step with their operator', () => {
    const v = check('true && echo a || echo b ; ls');
    allowed(v);
    assert.deepEqual(
      v.steps.map((s) => s.op),
      [null, '&&', '||', ';'],
    );
  });
  for (const line of ['&& ls', 'ls &&', 'ls ;', '; ls', 'ls && && ls', 'ls ; ; ls', 'ls || ;', '   ', '']) {
    test(`an empty step is refused: ${JSON.stringify(line)}`, () => {
      const v = check(line);
      refused(v);
      assert.equal(v.rule, 'empty-step');
    });
  }
  for (const line of ['ls ;; ls', 'ls ;& ls']) {
    test(`case terminators are refused: ${line}`, () => {
      refused(check(line));
    });
  }
});

// Fragments placed as an argument of one step; each must be refused wherever the step sits.
const CONSTRUCTS: [string, string, RegExp][] = [
  ['pipe', 'a | cat', /pipe/],
  ['pipe |&', 'a |& cat', /pipe/],
  ['redirection >', 'a > f', /redirection/],
  ['redirection >>', 'a >> f', /redirection/],
  ['redirection <', 'a < f', /redirection/],
  ['fd redirection', 'a 2>&1', /redirection/],
  ['&> redirection', 'a &> f', /redirection/],
  ['background &', 'a & ls', /background/],
  ['variable', '$HOME', /variable/],
  ['positional', '$1', /variable/],
  ['command substitution', '$(id)', /command substitution/],
  ['arithmetic', '$((1+1))', /arithmetic/],
  ['parameter expansion', '${IFS}', /parameter expansion/],
  ['ANSI-C quoting', "$'\\x72m'", /ANSI-C/],
  ['backticks', '`id`', /command substitution/],
  ['escape', 'a\\ b', /escape/],
  ['line continuation', 'a\\\nb', /line continuation/],
  ['glob *', '*.go', /glob/],
  ['glob ?', 'src/?.go', /glob/],
  ['glob []', '[ab].go', /glob/],
  ['brace', '{a,b}', /brace/],
  ['subshell', '(ls)', /parenthesis/],
  ['negation !', '!', /history expansion or negation/],
  ['comment', '# rm', /comment/],
  ['mid-word #', 'a#b', /comment/],
  ['here-document', '<<EOF', /here-document/],
  ['here-string', '<<<x', /here-string/],
  ['process substitution <()', '<(ls)', /process substitution/],
  ['process substitution >()', '>(tee x)', /process substitution/],
  ['tilde', '~/.ssh/id_rsa', /tilde/],
  ['tilde after =', 'x=~/.ssh', /tilde/],
  ['tilde after :', 'a:~/b', /tilde/],
  ['caret', 'a^b', /caret/],
  ['newline', 'a\nrm', /newline/],
  ['carriage return', 'a\rb', /U\+000D/],
  ['vertical tab', 'a\vb', /U\+000B/],
  ['form feed', 'a\fb', /U\+000C/],
  ['NUL', 'a\u0000b', /U\+0000/],
  ['ESC', 'a\u001b[2Jb', /U\+001B/],
  ['DEL', 'a\u007fb', /U\+007F/],
];

describe('every refused construct in the first, a middle and the last step', () => {
  for (const [name, frag, construct] of CONSTRUCTS) {
    test(name, () => {
      const bad = `echo ${frag}`;
      const lines = [`${bad} && ls && true`, `ls && ${bad} ; true`, `ls || true && ${bad}`];
      lines.forEach((line, step) => {
        const v = check(line);
        refused(v);
        assert.match(v.construct, construct, `${JSON.stringify(line)}: ${v.construct}`);
        assert.equal(v.step, step, `${JSON.stringify(line)}: refusal in step ${step}`);
        const start = line.indexOf(bad);
        assert.ok(v.position >= start && v.position < start + bad.length, `${JSON.stringify(line)}: position ${v.position} inside the bad step`);
        assert.match(v.reason, /offset \d+/);
      });
    });
  }
  // Program-level refusals, also in each position.
  const PROGRAMS: [string, string, string][] = [
    ['assignment prefix', 'FOO=bar ls', 'assignment'],
    ['reserved word if', 'if true', 'compound'],
    ['reserved word for', 'for x in a', 'compound'],
    ['reserved word while', 'while true', 'compound'],
    ['reserved word time', 'time ls', 'compound'],
    ['function keyword', 'function f', 'compound'],
    ['denied program', 'rm -rf x', 'denied'],
    ['denied, other case', 'RM -rf x', 'denied'],
    ['not allowlisted', 'nohup ls', 'not-allowlisted'],
    ['relative program path', './run.sh', 'program-path'],
    ['relative program in a dir', 'bin/x', 'program-path'],
    ['shell builtin', 'eval ls', 'shell-builtin'],
    ['source builtin', '. ./x', 'shell-builtin'],
    ['exec builtin', 'exec ls', 'shell-builtin'],
    ['quoted program', '"ls"', 'quoted-program'],
  ];
  for (const [name, stepText, rule] of PROGRAMS) {
    test(name, () => {
      const lines = [`${stepText} && ls && true`, `ls && ${stepText} ; true`, `ls || true && ${stepText}`];
      lines.forEach((line, step) => {
        const v = check(line);
        refused(v);
        assert.equal(v.rule, rule, line);
        assert.equal(v.step, step, line);
        assert.equal(v.position, line.indexOf(stepText), line);
        assert.equal(v.steps.length, step, 'the steps before the refusal are reported as checked');
      });
    });
  }
});

describe('cd: interpreted and confined', () => {
  test('cd into a subdirectory moves the later steps', () => {
    const v = check('cd sub && ls && cd deep && ls');
    allowed(v);
    const [cd1, ls1, cd2, ls2] = v.steps;
    assert.equal(cd1.kind === 'cd' && cd1.target, path.join(ROOT, 'sub'));
    assert.equal(ls1.kind === 'run' && ls1.cwd, path.join(ROOT, 'sub'));
    assert.equal(cd2.kind === 'cd' && cd2.target, path.join(ROOT, 'sub', 'deep'));
    assert.equal(ls2.kind === 'run' && ls2.cwd, path.join(ROOT, 'sub', 'deep'));
  });
  for (const [line, why] of [
    ['cd ..', 'parent of the root'],
    ['cd sub/../..', '.. inside the path'],
    ['cd sub && cd ../..', 'cumulative across steps'],
    ['cd sub; cd deep; cd ../../..', 'cumulative across ; steps'],
    ['cd /', 'absolute root'],
    [`cd ${OUTSIDE}`, 'absolute outside'],
    [`cd ${base}/root_evil`, 'sibling sharing the prefix'],
    [`cd ${ROOT}/../root_evil`, 'absolute with .. to the sibling'],
    ['cd out_link', 'symlink to outside'],
    ['cd out_link/deep', 'through a symlink to outside'],
    ['cd deep_out_link/..', '.. after a symlink climbs out of the link target'],
    ['cd in_link/../../..', 'symlink inside, then .. past the root'],
    ['false && cd sub; cd ..', 'a conditional cd may not run: .. from the root'],
    ['ls || cd ..', 'the || branch runs from the root when ls fails'],
    ['cd sub && ls || cd ../..', 'ls may fail in sub'],
  ] as const) {
    test(`escape refused: ${line} (${why})`, () => {
      const v = check(line);
      refused(v);
      assert.equal(v.rule, 'cd-escape', v.reason);
    });
  }
  for (const [line, rule] of [
    ['cd', 'cd-args'],
    ['cd -', 'cd-args'],
    ['cd -P sub', 'cd-args'],
    ['cd sub deep', 'cd-args'],
    ["cd ''", 'cd-args'],
    ['cd "~"', 'cd-missing'],
    ['cd nowhere', 'cd-missing'],
    ['cd dangling', 'cd-missing'],
    ['cd file.txt', 'cd-missing'],
    ['cd loop_a', 'cd-missing'],
  ] as const) {
    test(`refused: ${line}`, () => {
      const v = check(line);
      refused(v);
      assert.equal(v.rule, rule);
    });
  }
  test('allowed: symlink that stays inside, absolute path inside, the root itself, a quoted name', () => {
    for (const line of ['cd in_link && ls', `cd ${ROOT}/sub && ls`, `cd ${ROOT}`, 'cd "sub" && cd \'deep\'', 'cd sub && cd .. && cd sub', 'cd ./sub/./deep/..', 'cd sub; ls && cd deep || cd ..']) {
      allowed(check(line));
    }
    const v = check('cd in_link && ls');
    allowed(v);
    assert.equal(v.steps[0].kind === 'cd' && v.steps[0].target, path.join(ROOT, 'sub', 'deep'), 'reported as the real path');
  });
  test('a step that can never run is still checked (conservative)', () => {
    // cd sub always succeeds or stops the line, so `cd ../..` never runs; it is refused anyway
    refused(check('cd sub || cd ../..'));
  });
  test('without _allowed_dir, cd goes anywhere that exists', () => {
    allowed(check(`cd ${OUTSIDE} && ls`, { allowedCommands: ['ls'] }));
  });
  test('a starting cwd outside the allowed dir is refused', () => {
    const v = check('ls', POLICY, OUTSIDE);
    refused(v);
    assert.equal(v.rule, 'cwd-escape');
  });
  test('the line and the argv form refuse the same starting cwds, by real path', () => {
    for (const run of [(cwd: string) => checkLine('ls', POLICY, { cwd, pathEnv: BIN }), (cwd: string) => checkArgv('ls', [], POLICY, { cwd, pathEnv: BIN })]) {
      for (const [cwd, rule] of [
        [OUTSIDE, 'cwd-escape'],
        [path.join(ROOT, 'out_link'), 'cwd-escape'],
        ['../outside', 'cwd-escape'],
        [path.join(ROOT, 'missing'), 'cwd'],
        [path.join(ROOT, 'file.txt'), 'cwd'],
      ]) {
        const v = run(cwd);
        refused(v);
        assert.equal(v.rule, rule, cwd);
      }
      const v = run('in_link');
      allowed(v);
      assert.equal(v.startDir, path.join(ROOT, 'sub', 'deep'));
    }
  });
  test('a cd on _denied_commands is refused', () => {
    refused(check('cd sub', { ...POLICY, deniedCommands: ['cd'] }));
  });
});

describe('program resolution', () => {
  test('a program is resolved once on PATH and reported with its path', () => {
    const other = stubBin(path.join(base, 'bin2'), ['git']);
    const v = checkLine('git status && git log', POLICY, { cwd: ROOT, pathEnv: `${other}:${BIN}` });
    allowed(v);
    for (const s of v.steps) assert.equal(s.kind === 'run' && s.resolved, path.join(other, 'git'));
    assert.equal(v.steps[0].rule, 'allowlisted: git');
  });
  test('relative PATH entries are ignored: a program in the repo is never found by name', () => {
    stubBin(path.join(ROOT, 'rbin'), ['hello']);
    const v = checkLine('hello', { allowedCommands: ['hello'] }, { cwd: ROOT, pathEnv: 'rbin:.:' });
    refused(v);
    assert.equal(v.rule, 'not-found');
  });
  test('a non-executable file on PATH is skipped', () => {
    const d = path.join(base, 'noexec');
    mkdirSync(d);
    writeFileSync(path.join(d, 'ls'), 'x');
    const v = checkLine('ls', POLICY, { cwd: ROOT, pathEnv: `${d}:${BIN}` });
    allowed(v);
    assert.equal(v.steps[0].kind === 'run' && v.steps[0].resolved, path.join(BIN, 'ls'));
  });
  test('an absolute path is allowed only when it is on the allowlist and resides under _allowed_dir', () => {
    const tool = path.join(ROOT, 'tools', 'build');
    stubBin(path.dirname(tool), ['build']);
    allowed(check(`${tool} --fast`, { allowedCommands: [tool], allowedDir: ROOT }));
    refused(check(`${tool} --fast`, { allowedCommands: ['build'], allowedDir: ROOT }));
    const outsideTool = path.join(BIN, 'cat');
    const v = check(outsideTool, { allowedCommands: [outsideTool], allowedDir: ROOT });
    refused(v);
    assert.equal(v.rule, 'outside-allowed-dir');
    allowed(check(outsideTool, { allowedCommands: [outsideTool] }));
  });
  test('an absolute allowlist entry also allows the bare name that resolves to it', () => {
    const v = check('cat x', { allowedCommands: [path.join(BIN, 'cat')] });
    allowed(v);
  });
  test('the deny list is checked against the real path too (a link named like an allowed program)', () => {
    const d = path.join(base, 'linkbin');
    mkdirSync(d);
    symlinkSync(path.join(BIN, 'rm'), path.join(d, 'cleanup'));
    const v = checkLine('cleanup x', { allowedCommands: ['cleanup'], deniedCommands: ['rm'] }, { cwd: ROOT, pathEnv: d });
    refused(v);
    assert.equal(v.rule, 'denied');
    assert.match(v.reason, /resolves to .*rm/);
  });
  test('denied wins over allowed', () => {
    const v = check('rm x', { allowedCommands: ['rm'], deniedCommands: ['rm'] });
    refused(v);
    assert.equal(v.rule, 'denied');
  });
  test('with no allowlist, anything on PATH that is not denied is allowed', () => {
    allowed(check('curl x', { deniedCommands: ['rm'] }));
    refused(check('rm x', { deniedCommands: ['rm'] }));
  });
  test('an empty allowlist allows nothing', () => {
    const v = check('ls', { allowedCommands: [] });
    refused(v);
    assert.equal(v.rule, 'not-allowlisted');
  });
  test('a program missing from PATH is refused before anything runs', () => {
    const v = check('ls && git status', { allowedCommands: ['ls', 'git'] }, ROOT);
    allowed(v);
    const w = checkLine('ls && gitx status', { allowedCommands: ['ls', 'gitx'] }, { cwd: ROOT, pathEnv: BIN });
    refused(w);
    assert.equal(w.rule, 'not-found');
    assert.equal(w.step, 1);
  });
});

describe('argv form', () => {
  test('the arguments are never read as a line', () => {
    const v = checkArgv('echo', ['a; rm -rf /', '$(id)', '|', '&&', '*'], POLICY, { cwd: ROOT, pathEnv: BIN });
    allowed(v);
    assert.equal(v.steps.length, 1);
    assert.deepEqual(v.steps[0].argv, ['echo', 'a; rm -rf /', '$(id)', '|', '&&', '*']);
  });
  test('the program goes through the same rules', () => {
    refused(checkArgv('rm', ['-rf', 'x'], POLICY, { cwd: ROOT, pathEnv: BIN }));
    refused(checkArgv('ls; rm', [], POLICY, { cwd: ROOT, pathEnv: BIN }));
    refused(checkArgv('cd', ['..'], POLICY, { cwd: ROOT, pathEnv: BIN }));
    refused(checkArgv('eval', ['x'], { deniedCommands: [] }, { cwd: ROOT, pathEnv: BIN }));
    refused(checkArgv('echo', ['a\u0000b'], POLICY, { cwd: ROOT, pathEnv: BIN }));
  });
});

describe('long lines: no cap after which checking stops', () => {
  test(`a line of exactly ${MAX_LINE_BYTES} bytes is checked and allowed`, () => {
    const line = `echo ${'a'.repeat(MAX_LINE_BYTES - 5)}`;
    assert.equal(Buffer.byteLength(line), MAX_LINE_BYTES);
    allowed(check(line));
  });
  test('one byte more is refused as over-long', () => {
    const v = check(`echo ${'a'.repeat(MAX_LINE_BYTES - 4)}`);
    refused(v);
    assert.equal(v.construct, 'over-long line');
  });
  test('the limit counts UTF-8 bytes, not characters', () => {
    const v = check(`echo '${'é'.repeat(MAX_LINE_BYTES / 2)}'`);
    refused(v);
    assert.equal(v.construct, 'over-long line');
  });
  test('a 200 KB line is refused quickly', () => {
    const t0 = Date.now();
    refused(check(`echo ${'a '.repeat(100_000)}`));
    assert.ok(Date.now() - t0 < 1000);
  });
  test('a denied program after 2000 allowed steps is still found', () => {
    const line = `${'true && '.repeat(2000)}rm -rf x`;
    const v = check(line);
    refused(v);
    assert.equal(v.rule, 'denied');
    assert.equal(v.step, 2000);
  });
  test('2000 allowed steps are all reported', () => {
    const v = check(`${'true; '.repeat(1999)}true`);
    allowed(v);
    assert.equal(v.steps.length, 2000);
  });
});

describe('control characters', () => {
  test('one trailing newline is trimmed; a second is refused', () => {
    allowed(check('ls -la\n'));
    refused(check('ls -la\n\n'));
  });
  test('a trailing CRLF is refused (CR is never accepted)', () => {
    refused(check('ls -la\r\n'));
  });
  test('a newline inside quotes is literal data', () => {
    const v = check('git commit -m "line1\nline2"');
    allowed(v);
    assert.deepEqual(v.steps[0].argv, ['git', 'commit', '-m', 'line1\nline2']);
  });
  test('tab separates words outside quotes and is literal inside them', () => {
    const v = check("echo\ta\t'b\tc'");
    allowed(v);
    assert.deepEqual(v.steps[0].argv, ['echo', 'a', 'b\tc']);
  });
  for (const ch of ['\r', '\v', '\f', '\u0000', '\u0007', '\u001b', '\u007f', '\u0085']) {
    test(`refused even inside quotes: ${JSON.stringify(ch)}`, () => {
      const v = check(`echo 'a${ch}b'`);
      refused(v);
      assert.equal(v.position, 7);
    });
  }
});

describe('unicode lookalikes and invisible characters', () => {
  for (const [line, what] of [
    ['ɡit status', 'U+0261 script g'],
    ['еcho x', 'Cyrillic е'],
    ['ｇｉｔ status', 'fullwidth letters'],
    ['git\u00a0status', 'no-break space between words'],
    ['gi\u200bt status', 'zero width space'],
    ['echo x；rm', 'fullwidth semicolon'],
    ['echo x \u2028rm', 'line separator'],
    ['ls \u2013la', 'en dash instead of -'],
  ] as const) {
    test(`refused outside quotes: ${what}`, () => {
      const v = check(line);
      refused(v);
      assert.match(v.construct, /U\+/);
    });
  }
  for (const ch of ['\u202e', '\u200b', '\u2066', '\ufeff', '\u2028', '\ue000']) {
    test(`refused inside quotes: ${JSON.stringify(ch)} hides or reorders text`, () => {
      refused(check(`echo 'safe${ch}text'`));
    });
  }
  test('printable unicode inside quotes is a literal argument', () => {
    const v = check(`echo 'café' "日本語" '🙂'`);
    allowed(v);
    assert.deepEqual(v.steps[0].argv, ['echo', 'café', '日本語', '🙂']);
  });
  test('names are never normalised: NFD café does not match NFC café', () => {
    const nfc = 'caf\u00e9';
    const nfd = 'cafe\u0301';
    stubBin(path.join(base, 'ubin'), [nfc]);
    refused(checkLine(`'${nfd}'`, { allowedCommands: [nfc] }, { cwd: ROOT, pathEnv: path.join(base, 'ubin') }));
  });
});

test('words keep ~ and = where sh keeps them literal', () => {
  const v = check('git diff HEAD~1 a=b --format=x@y%z+1,2');
  allowed(v);
  assert.deepEqual(v.steps[0].argv, ['git', 'diff', 'HEAD~1', 'a=b', '--format=x@y%z+1,2']);
});

test('a cd fan-out past the tracked limit is refused, not guessed', () => {
  // each conditional cd doubles nothing here, but alternating targets grow the set by one each
  const dirs: string[] = [];
  for (let i = 0; i < 70; i++) {
    const d = path.join(ROOT, 'fan', `d${i}`);
    mkdirSync(d, { recursive: true });
    dirs.push(`true && cd ${d}`);
  }
  const v = check(dirs.join(' ; '));
  refused(v);
  assert.equal(v.rule, 'cd-fanout');
});

test('an executable file standing where a directory is expected is not a cd target', () => {
  writeFileSync(path.join(ROOT, 'sub', 'notdir'), '');
  chmodSync(path.join(ROOT, 'sub', 'notdir'), 0o755);
  refused(check('cd sub/notdir'));
});

describe('argument rules: what the checker meets on the disk never makes it throw', () => {
  const { root, cleanup } = tempRoot('cxl-checker-args-');
  after(cleanup);
  writeFileSync(path.join(root, 'f'), 'x');
  const pol = { allowedCommands: ['cat', 'diff'], allowedDir: root };
  test('a segment too long for the file system, a path through a file: classified, not thrown', () => {
    for (const line of [`cat ${'a'.repeat(300)}`, `cat f/${'b'.repeat(300)}/x`, 'cat f/x', `cat ${'x/'.repeat(3000)}y`]) {
      assert.equal(checkLine(line, pol, { cwd: root }).verdict, 'allow', line.slice(0, 40));
    }
  });
  test('the harmless devices are not "outside": diff a /dev/null', () => {
    assert.equal(checkLine('diff f /dev/null', pol, { cwd: root }).verdict, 'allow');
    const v = checkLine('cat /dev/sda', pol, { cwd: root });
    assert.equal(v.verdict === 'refuse' && v.rule, 'path-outside');
  });
});
