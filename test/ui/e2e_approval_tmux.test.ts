// The approval moment end to end: `cxl` in tmux, under the runtime running this test, with the
// built-in agent and a scripted model (an OpenAI-compatible server on 127.0.0.1 that answers
// each request from a script, and holds an answer until the test lets it go). A person typing
// ahead never answers an approval; a tall diff scrolls to its last line; lines are numbered as
// the file is; an argument of newlines hides no operand; Trojan Source shows its marks; an
// interpreter allowed for the session is allowed for that line only; off-list programs reach
// the envelope; edits allowed unasked show their diff; Esc stops a streamed answer at once and
// queued prompts come back; the bell and OSC 9 go out; closing the terminal ends the agent too.
// Nothing destructive is ever allowed: every rm is rejected, and its operands checked on screen.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { moduleCommand, runtimeName } from '../../src/core/platform/runtime.ts';
import { startFakeOpenAI, type FakeServer, type Reply } from '../fixtures/fake_models.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { Tmux } from '../helpers/tmux.ts';

const FIFTY = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Setup {
  dir: string;
  rcFile: string;
  tmux: Tmux;
  srv: FakeServer;
  /** every byte the pane wrote (tmux pipe-pane) */
  output: string;
  cleanup(): Promise<void>;
}

/** A workspace, stub programs on PATH (python3 and pytest that only print), the model server, and cxl in tmux. */
async function start(script: Reply[], o: { columns?: number; rows?: number; args?: string[]; files?: Record<string, string> } = {}): Promise<Setup> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-ask-')));
  // inside the workspace: commands run in a sandbox with a private /tmp, where the workspace is what shows
  const bin = path.join(dir, '.stubs');
  mkdirSync(bin);
  for (const [name, body] of [
    ['python3', '#!/bin/sh\necho "python3 ran $*"\n'],
    ['pytest', '#!/bin/sh\necho "stub pytest ran: no tests"\n'],
  ]) {
    writeFileSync(path.join(bin, name), body);
    chmodSync(path.join(bin, name), 0o755);
  }
  for (const [rel, text] of Object.entries({ 'long.txt': FIFTY, ...o.files })) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  const srv = await startFakeOpenAI(script);
  const tmux = new Tmux();
  const rcFile = path.join(dir, '.rc');
  const pipe = `${dir}.pane.out`;
  const env = [
    'NO_COLOR=1',
    'CI=true',
    `HOME=${dir}`,
    `XDG_DATA_HOME=${dir}/.data`,
    `XDG_CONFIG_HOME=${dir}/.config`,
    `PATH=${bin}:${process.env.PATH}`,
    `OPENAI_BASE_URL=${srv.url}`,
    'OPENAI_API_KEY=sk-test',
  ];
  tmux.start(dir, [...cxlCommand(), '--provider', 'openai', '--model', 'fake-model', ...(o.args ?? [])], env, rcFile, o.columns ?? 100, o.rows ?? 24);
  tmux.run('pipe-pane', '-o', '-t', 'cxl', `cat >> ${quote([pipe])}`);
  // the status line names the model once the session is open (a narrow one without the word `model`)
  await tmux.waitFor(/\ncxl · (model )?fake-model · .*session [0-9a-f]/, "the built-in agent's session");
  return {
    dir,
    rcFile,
    tmux,
    srv,
    get output() {
      return existsSync(pipe) ? readFileSync(pipe, 'latin1') : '';
    },
    async cleanup() {
      tmux.kill();
      await srv.close();
      await removeDir(dir);
      rmSync(pipe, { force: true });
    },
  };
}

async function send(tmux: Tmux, text: string): Promise<void> {
  tmux.type(text);
  await tmux.waitFor(new RegExp(`─\\n› ${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), `the typed ${text}`);
  tmux.keys('Enter');
}

/** The screen with wrapped rows joined back (continuations of a `$ ` step are indented six spaces). */
const joined = (screen: string) => screen.replace(/\n {6}(?=\S)/g, '');

/**
 * Remove a workspace once the UI and its agent, killed with the session, have stopped writing
 * into it (the session store, the prompt history): a removal racing their last write retries.
 */
async function removeDir(dir: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      if (i >= 20 || !/ENOTEMPTY|EBUSY/.test(`${(err as NodeJS.ErrnoException).code} ${(err as Error).message}`)) throw err;
      await sleep(100);
    }
  }
}

/** A function that lets a gated reply go. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

test(`approvals in tmux (${runtimeName}): typing ahead answers nothing; line 40 is 40; bidi marks; every operand; exact interpreter scope; pytest not refused; the bell and OSC 9`, { timeout: 180_000 }, async () => {
  const edit = gate();
  const script: Reply[] = [
    { toolCalls: [{ name: 'read_file', arguments: { path: 'long.txt' } }] },
    { gate: edit.promise, toolCalls: [{ name: 'edit_file', arguments: { path: 'long.txt', old_string: 'line 40\n', new_string: 'line forty\n' } }] },
    { text: 'Renamed.' },
    { toolCalls: [{ name: 'write_file', arguments: { path: 'trojan.js', content: 'if (isAdmin) { \u202e } \u2066// check later\u2069 {\n' } }] },
    { text: 'Not written.' },
    { toolCalls: [{ name: 'local_shell', arguments: { command: 'rm', args: ['-rf', `build${'\n'.repeat(60)}`, 'src'] } }] },
    { text: 'Not removed.' },
    { toolCalls: [{ name: 'local_shell', arguments: { command: 'python3 a.py' } }] },
    { toolCalls: [{ name: 'local_shell', arguments: { command: 'python3 b.py' } }] },
    { text: 'Ran a only.' },
    { toolCalls: [{ name: 'local_shell', arguments: { command: 'pytest -q' } }] },
    { text: 'Tests ran.' },
  ];
  const s = await start(script, { files: { 'src/keep.txt': 'keep\n', 'a.py': 'print("a")\n', 'b.py': 'print("b")\n' } });
  const { tmux } = s;
  try {
    await send(tmux, 'rename line 40');
    await tmux.waitFor(/read_file.*long\.txt/, 'the read');
    // typing ahead at a person's speed; the model's edit (and its approval) comes mid-word
    for (const ch of 'yes ') {
      tmux.type(ch);
      await sleep(90);
    }
    edit.open();
    // the typing goes on until the approval is up and a few keys past it (however long a busy
    // machine takes to bring it), so keys always arrive across the moment it appears
    const words = 'and also all of this and more words than a busy machine needs';
    let typed = '';
    let after = -1;
    while (typed.length < words.length && after < 3) {
      tmux.type(words[typed.length]);
      typed += words[typed.length];
      await sleep(90);
      if (after >= 0) after++;
      else if (/── approval/.test(tmux.screen())) after = 0;
    }
    assert.ok(after === 3, `the approval appeared while typing went on (typed "${typed}")`);
    const draft = `yes ${typed}`;
    await sleep(1000);
    // a loaded machine may still be drawing the last keys: the draft is waited for, then checked
    const shown = new RegExp(`your prompt: ${draft.trimEnd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
    let screen = await tmux.waitFor(shown, `the typed text ("${draft}") in the draft`, 10_000);
    assert.match(screen, /── approval/, `still asking: no typed letter answered it (typed "${typed}"):\n${screen}`);
    assert.match(screen, /\n\s*40 - line 40\n\s*40 \+ line forty\n/, 'the change is numbered as the file is');
    assert.equal(readFileSync(path.join(s.dir, 'long.txt'), 'utf8'), FIFTY, 'nothing written before the answer');
    assert.match(s.output, /\u0007\u001B\]9;waiting for approval: local_fs\.edit_file: long\.txt\u0007/, 'the bell and OSC 9 went out');
    await tmux.answer('y');
    screen = await tmux.waitFor(/Renamed\./, 'the turn to end', 20_000, () => tmux.scrollback());
    assert.match(readFileSync(path.join(s.dir, 'long.txt'), 'utf8'), /\nline forty\n/);
    // waited for, not read once: a capture can catch a frame half written (seen under Deno at load
    // 4: the composer's row without its last letter)
    await tmux.waitFor(new RegExp(`─\\n› ${draft.trimEnd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\n`), 'the draft in the composer, nothing lost, nothing sent', 10_000);
    for (let i = 0; i < draft.length; i++) tmux.keys('BSpace');

    await send(tmux, 'trojan');
    screen = await tmux.waitFor(/── approval[\s\S]*trojan\.js/, 'the write approval');
    assert.match(screen, /1 \+ if \(isAdmin\) \{ ⟨U\+202E⟩ \} ⟨U\+2066⟩\/\/ check later⟨U\+2069⟩ \{/, 'the bidi controls are marks');
    await tmux.answer('n');
    await tmux.waitFor(/Not written\./, 'the rejection', 20_000, () => tmux.scrollback());
    assert.equal(existsSync(path.join(s.dir, 'trojan.js')), false);

    await send(tmux, 'clean');
    screen = await tmux.waitFor(/── approval[\s\S]*\$ rm/, 'the rm approval');
    assert.match(joined(screen), new RegExp(`\\$ rm -rf ?\\$'build${'\\\\n'.repeat(60)}' src\\n`), `every operand on screen, src included:\n${screen}`);
    await tmux.answer('n');
    await tmux.waitFor(/Not removed\./, 'the rejection', 20_000, () => tmux.scrollback());
    assert.ok(existsSync(path.join(s.dir, 'src/keep.txt')), 'src is still there');

    await send(tmux, 'run a');
    screen = await tmux.waitFor(/── approval[\s\S]*\$ python3 a\.py/, 'the python3 a.py approval');
    assert.match(screen, /2\. Allow for this session \(run exactly `python3 a\.py`, no other python3 line\)/, 'the option says it is that line only');
    await tmux.answer('a');
    screen = await tmux.waitFor(/── approval[\s\S]*\$ python3 b\.py/, 'python3 b.py asking again', 20_000);
    assert.match(tmux.scrollback(), /python3 ran a\.py/, 'a.py ran');
    await tmux.answer('n');
    await tmux.waitFor(/Ran a only\./, 'the turn to end', 20_000, () => tmux.scrollback());

    await send(tmux, 'pytest');
    screen = await tmux.waitFor(/Tests ran\./, 'the pytest turn', 20_000, () => tmux.scrollback());
    assert.match(screen, /stub pytest ran: no tests/, 'pytest reached the envelope (its prefix allowlist) and ran');
    assert.doesNotMatch(screen, /not on _allowed_commands|policy_refused/);
    tmux.keys('C-d');
  } finally {
    edit.open();
    await s.cleanup();
  }
});

for (const [columns, rows] of [
  [100, 24],
  [60, 15],
] as const) {
  test(`approvals in tmux (${runtimeName}): a 120-line diff at ${columns}×${rows} is scrolled to its last line before answering`, { timeout: 90_000 }, async () => {
    const text = Array.from({ length: 120 }, (_, i) => `generated line ${i + 1}`).join('\n') + '\n';
    const s = await start([{ toolCalls: [{ name: 'write_file', arguments: { path: 'gen.txt', content: text } }] }, { text: 'Left alone.' }], { columns, rows });
    const { tmux } = s;
    try {
      await send(tmux, 'generate');
      let screen = await tmux.waitFor(/── approval[\s\S]*lines 1–\d+ of 120/, 'the approval with its position');
      assert.doesNotMatch(screen, /120 \+ generated line 120/);
      for (let i = 0; i < 80 && !/120 \+ generated line 120\n/.test(tmux.screen()); i++) {
        tmux.keys('NPage');
        await sleep(60);
      }
      screen = await tmux.waitFor(/120 \+ generated line 120\n/, 'the last line on screen');
      assert.match(screen, /lines \d+–120 of 120/);
      assert.match(screen, /Allow once|1 y Allow once/, 'the options are on screen');
      for (const line of screen.split('\n')) assert.ok([...line].length <= columns, `wider than ${columns}: ${line}`);
      await tmux.answer('n');
      await tmux.waitFor(/Left alone\./, 'the rejection', 20_000, () => tmux.scrollback());
      assert.equal(existsSync(path.join(s.dir, 'gen.txt')), false);
    } finally {
      await s.cleanup();
    }
  });
}

test(`approvals in tmux (${runtimeName}): an edit allowed unasked (auto_edit) shows its diff at its line`, { timeout: 90_000 }, async () => {
  const s = await start(
    [{ toolCalls: [{ name: 'read_file', arguments: { path: 'long.txt' } }] }, { toolCalls: [{ name: 'edit_file', arguments: { path: 'long.txt', old_string: 'line 40\n', new_string: 'line forty\n' } }] }, { text: 'Renamed.' }],
    { args: ['--envelope', 'auto_edit'] },
  );
  const { tmux } = s;
  try {
    await send(tmux, 'rename line 40');
    const screen = await tmux.waitFor(/Renamed\./, 'the turn', 20_000, () => tmux.scrollback());
    assert.doesNotMatch(screen, /── approval/, 'nobody was asked');
    assert.match(screen, /✓ edit local_fs\.edit_file: long\.txt {2}\+1 -1\n\s+37 {3}line 37[\s\S]*\n\s+40 - line 40\n\s+40 \+ line forty\n/, 'the change, its lines numbered as the file is');
    assert.doesNotMatch(screen, /"old_sha256"/, 'the raw JSON result stays behind Ctrl+O');
  } finally {
    await s.cleanup();
  }
});

test(`approvals in tmux (${runtimeName}): Esc during a streamed answer ends the turn within a second; the queued prompt comes back to the composer`, { timeout: 90_000 }, async () => {
  const story = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
  const s = await start([{ text: `Once upon a time ${story}`, wordDelayMs: 60 }, { text: 'should not be asked' }]);
  const { tmux } = s;
  try {
    await send(tmux, 'tell me a story');
    await tmux.waitFor(/Once upon a time word\d+/, 'the answer streaming');
    tmux.type('and then?');
    await tmux.waitFor(/─\n› and then\?/, 'the next prompt typed');
    tmux.keys('Enter');
    await tmux.waitFor(/queued: and then\?/, 'the prompt queued behind the turn');
    const t0 = Date.now();
    tmux.keys('Escape');
    await tmux.waitFor(/⊘ cancelled/, 'the turn to end cancelled', 5_000, () => tmux.scrollback());
    const took = Date.now() - t0;
    assert.ok(took < 1000, `the turn ended ${took} ms after Esc`);
    const screen = tmux.screen();
    assert.match(screen, /─\n› and then\?/, 'the queued prompt is back in the composer');
    assert.doesNotMatch(screen, /queued: and then\?/);
    await sleep(500);
    assert.equal(s.srv.requests.length, 1, 'and it was not sent');
  } finally {
    await s.cleanup();
  }
});

/** Every process whose parent chain leads to `root` (read from /proc). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [pid, pp] of parent) if (pp === p && !out.includes(pid)) (out.push(pid), walk(pid));
  };
  walk(root);
  return out;
}

function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

test(`approvals in tmux (${runtimeName}): tmux kill-session leaves no agent process, even one that ignores its stdin closing`, { timeout: 90_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-hup-')));
  const tmux = new Tmux();
  // an agent that outlives its stdin: the scripted agent, then a long sleep in the same process group
  const agent = `${quote(moduleCommand(fileURLToPath(new URL('../fixtures/scripted_agent.ts', import.meta.url))))}; sleep 300`;
  try {
    tmux.start(dir, [...cxlCommand(), '--agent', quote(['sh', '-c', agent])], ['NO_COLOR=1', 'CI=true', `HOME=${dir}`], path.join(dir, '.rc'));
    await tmux.waitFor(/scripted-agent · .*mode Ask/, 'the session');
    const pane = Number(tmux.run('display', '-p', '-t', 'cxl', '#{pane_pid}').trim());
    const before = descendants(pane);
    const agentShell = before.find((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sleep 300');
      } catch {
        return false;
      }
    });
    assert.ok(agentShell, `the agent's shell among ${before.join(', ')}`);
    tmux.run('kill-session', '-t', 'cxl');
    const deadline = Date.now() + 8000;
    let left = before.filter(running);
    while (left.length > 0 && Date.now() < deadline) {
      await sleep(100);
      left = before.filter(running);
    }
    assert.deepEqual(
      left.map((pid) => `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}`),
      [],
      'every process the UI started is gone',
    );
  } finally {
    tmux.kill();
    await removeDir(dir);
  }
});
