// The first ten minutes, end to end in a real terminal (tmux), under the runtime running this
// test: `cxl` with the built-in agent against a scripted model server on 127.0.0.1 that lists two
// models, as LM Studio and llama-swap do. What a person sees: "pick one", not "no model is
// reachable"; the /model picker; the status line naming the model at once and the window of the
// model chosen; --model winning over a resumed session's model; `!` lines kept with the session
// and back on --resume and --continue; the resume hint only for a session there is to resume; the
// status line's id whole at 100 columns; one footer row and the `?` overlay at 60; the trust
// screen said once, fitting the terminal, with the provider the session runs. Each run has its own
// tmux server, always killed.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runtimeName } from '../../src/core/platform/runtime.ts';
import { startFakeOpenAI, type FakeServer } from '../fixtures/fake_models.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { exitCode, Tmux } from '../helpers/tmux.ts';

/** The two models the server lists, each with the window it reports (vLLM's max_model_len). */
const MODELS = [
  { id: 'small-16k', object: 'model', max_model_len: 16384 },
  { id: 'big-32k', object: 'model', max_model_len: 32768 },
];

interface World {
  dir: string;
  srv: FakeServer;
  env: string[];
  cleanup(): Promise<void>;
}

async function world(): Promise<World> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-first-')));
  writeFileSync(path.join(dir, 'README.md'), 'hello\n');
  const srv = await startFakeOpenAI(() => ({ text: 'Answered.' }), { models: MODELS });
  // only OPENAI_BASE_URL: no model named, as a person pointing cxl at LM Studio does
  const env = ['NO_COLOR=1', 'CI=true', `HOME=${dir}/.home`, `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`, `OPENAI_BASE_URL=${srv.url}`];
  return {
    dir,
    srv,
    env,
    cleanup: async () => {
      await srv.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** cxl in a fresh tmux server; the caller kills it. */
function cxl(w: World, args: string[], columns = 100, rows = 30): { tmux: Tmux; rcFile: string } {
  const tmux = new Tmux();
  const rcFile = path.join(w.dir, `.rc-${Math.random().toString(36).slice(2, 8)}`);
  tmux.start(w.dir, [...cxlCommand(), ...args], w.env, rcFile, columns, rows);
  return { tmux, rcFile };
}

const count = (text: string, re: RegExp) => text.match(new RegExp(re.source, 'g'))?.length ?? 0;
const STATUS = /^cxl .*$/m;
const statusLine = (screen: string) => STATUS.exec(screen)?.[0] ?? '';

test(`first minutes (${runtimeName}): a server with two models is "pick one"; /model picks, the status line names it at once, and the window is the chosen model's`, { timeout: 120_000 }, async () => {
  const w = await world();
  const { tmux, rcFile } = cxl(w, []);
  try {
    let screen = await tmux.waitFor(/Pick a model[\s\S]*cxl · model: pick one \(\/model\) · .*session [0-9a-f]/, 'the pick-one notice and the status line');
    assert.match(screen, /Pick a model: the server at http:\/\/127\.0\.0\.1:\d+\/v1 offers 2 models and none is chosen/);
    assert.match(screen, /Its models: small-16k, big-32k\./);
    assert.doesNotMatch(screen, /No model is reachable|ollama serve|ollama pull/, 'the server answered: no unreachable, no Ollama advice');
    assert.match(statusLine(screen), /model: pick one \(\/model\)/);
    assert.doesNotMatch(statusLine(screen), /no model: see above/);

    // a prompt before one is picked: said in one line, the advice not printed again
    tmux.type('hello?');
    await tmux.waitFor(/› hello\?/, 'the typed prompt');
    tmux.keys('Enter');
    screen = await tmux.waitFor(/No model is chosen: pick one with \/model \(small-16k, big-32k\)/, 'the short answer');
    assert.equal(count(tmux.scrollback(), /Its models: small-16k, big-32k/), 1, 'the list of models is said once');
    assert.equal(w.srv.requests.length, 0, 'nothing was sent without a model');

    // /model: the picker over the server's list
    tmux.type('/model');
    await tmux.waitFor(/› \/model/, 'the typed command');
    tmux.keys('Enter');
    screen = await tmux.waitFor(/── pick a model \(2\)[\s\S]*small-16k[\s\S]*big-32k[\s\S]*none is chosen yet/, 'the model picker');
    assert.match(screen, /↑\/↓ select · Enter use this model · Esc keep the model/);
    tmux.keys('Down');
    await tmux.waitFor(/›\s+big-32k/, 'big-32k selected');
    tmux.keys('Enter');
    // at once, before any request was answered
    screen = await tmux.waitFor(/i Model: big-32k\.[\s\S]*cxl · model big-32k · /, 'the status line naming the model');
    assert.doesNotMatch(statusLine(screen), /pick one|no model/);
    assert.equal(w.srv.requests.length, 0, 'named before any request');

    tmux.type('hi');
    await tmux.waitFor(/› hi\n/, 'the typed prompt');
    tmux.keys('Enter');
    screen = await tmux.waitFor(/Answered\.[\s\S]*cxl · model big-32k · .*% of 32k/, 'the answer, used against the 32k window');
    assert.equal(w.srv.requests.at(-1)?.model, 'big-32k');

    // another model: its own window, read again as it is chosen (not the first one's 32k)
    tmux.type('/model small-16k');
    await tmux.waitFor(/› \/model small-16k/, 'the typed command');
    tmux.keys('Enter');
    screen = await tmux.waitFor(/cxl · model small-16k · .*% of 16k/, 'the 16k window on the status line');
    tmux.type('again');
    await tmux.waitFor(/› again/, 'the typed prompt');
    tmux.keys('Enter');
    await tmux.waitFor(/Answered\.[\s\S]*Answered\./, 'the second answer');
    assert.equal(w.srv.requests.at(-1)?.model, 'small-16k');
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    await w.cleanup();
  }
});

test(`first minutes (${runtimeName}): only \`!\` lines are a session: the hint resumes it with its output framed, the model gets it; --continue finds it, --model wins and says so; an empty session gives no hint`, { timeout: 150_000 }, async () => {
  const w = await world();
  try {
    // nothing done: no session is kept, and no way back is promised
    let run = cxl(w, ['--model', 'big-32k']);
    await run.tmux.waitFor(/cxl · model big-32k · .*session [0-9a-f]/, 'the session');
    run.tmux.keys('C-d');
    assert.equal(await exitCode(run.rcFile), '0');
    let screen = run.tmux.scrollback();
    run.tmux.kill();
    assert.doesNotMatch(screen, /Resume this session/, 'an empty session is not kept, so it is not offered');

    // `!` lines only, and a model chosen with /model
    run = cxl(w, []);
    await run.tmux.waitFor(/cxl · .*session [0-9a-f]/, 'the session');
    run.tmux.type('/model small-16k');
    await run.tmux.waitFor(/› \/model small-16k/, 'the typed command');
    run.tmux.keys('Enter');
    await run.tmux.waitFor(/cxl · model small-16k/, 'the model chosen');
    run.tmux.type('!echo shell-marker-41');
    await run.tmux.waitFor(/› !echo shell-marker-41/, 'the typed line');
    run.tmux.keys('Enter');
    await run.tmux.waitFor(/✓ \$ echo shell-marker-41[\s\S]*│ shell-marker-41[\s\S]*└ exit 0/, 'the shell line and its output');
    run.tmux.keys('C-d');
    assert.equal(await exitCode(run.rcFile), '0');
    screen = run.tmux.scrollback();
    run.tmux.kill();
    const hint = /Resume this session: (cxl --resume (\S+))/.exec(screen);
    assert.ok(hint, `the way back is printed:\n${screen}`);
    const id = hint[2];

    // the hint as typed: the session, its `!` line framed as it was live
    run = cxl(w, ['--resume', id]);
    screen = await run.tmux.waitFor(/✓ \$ echo shell-marker-41[\s\S]*cxl · .*session/, 'the resumed session');
    assert.doesNotMatch(screen, /Could not resume|Resource not found/);
    assert.match(screen, /✓ \$ echo shell-marker-41\n\s+│ shell-marker-41\n\s+└ exit 0 · the agent gets this output with your next prompt/, 'framed as the live screen showed it');
    assert.match(statusLine(screen), /model small-16k/, 'the model it was left on');
    run.tmux.keys('C-d');
    assert.equal(await exitCode(run.rcFile), '0');
    run.tmux.kill();

    // --continue finds it; --model wins over the model it was left on, and the screen says so
    run = cxl(w, ['--continue', '--model', 'big-32k']);
    screen = await run.tmux.waitFor(/✓ \$ echo shell-marker-41[\s\S]*Model: big-32k, as --model asks \(the session was on small-16k\)[\s\S]*cxl · model big-32k/, 'the session, on the model --model names');
    run.tmux.type('what did I run?');
    await run.tmux.waitFor(/› what did I run\?/, 'the typed prompt');
    run.tmux.keys('Enter');
    await run.tmux.waitFor(/Answered\./, 'the answer');
    const asked = JSON.stringify(w.srv.requests.at(-1)?.messages);
    assert.equal(w.srv.requests.at(-1)?.model, 'big-32k');
    assert.match(asked, /in my own shell[\s\S]*\$ echo shell-marker-41\\nshell-marker-41/, 'the model read the `!` output with the prompt, across the restart');
    run.tmux.keys('C-d');
    assert.equal(await exitCode(run.rcFile), '0');
    assert.match(run.tmux.scrollback(), new RegExp(`Resume this session: cxl --resume ${id}`));
    run.tmux.kill();
  } finally {
    await w.cleanup();
  }
});

test(`first minutes (${runtimeName}): at 100 columns the session id stays whole; at 60 the footer is one row and ? opens the keys over the screen, not into the scrollback`, { timeout: 90_000 }, async () => {
  const w = await world();
  // a long directory, as a real checkout's is
  const deep = path.join(w.dir, 'src', 'a-rather-long-checkout-name', 'app');
  mkdirSync(deep, { recursive: true });
  const { tmux, rcFile } = cxl(w, ['--cwd', deep, '--model', 'big-32k'], 100, 30);
  try {
    let screen = await tmux.waitFor(/cxl · model big-32k · .*session [0-9a-f]{8}…[0-9a-f]{4}\s*$/m, 'the status line with the whole id');
    let line = statusLine(screen);
    assert.ok(line.length <= 100, line);
    assert.match(line, /session [0-9a-f]{8}…[0-9a-f]{4}$/);

    tmux.run('resize-window', '-t', 'cxl', '-x', '60', '-y', '15');
    screen = await tmux.waitFor(/\? keys\s*$/, 'the footer at 60 columns');
    const lines = screen.replace(/\s+$/, '').split('\n');
    assert.match(lines.at(-1)!, /^Enter send · .* · \? keys$/, 'one footer row');
    line = lines.at(-2)!;
    assert.match(line, /^cxl · .* · session [0-9a-f]{8}…[0-9a-f]{4}$/, 'the status line above it, its id whole');

    const before = tmux.scrollback(500);
    tmux.keys('?');
    screen = await tmux.waitFor(/── keys 1–\d+ of \d+/, 'the keys overlay');
    assert.match(screen, /Composer:/);
    tmux.keys('Escape');
    screen = await tmux.waitFor(/\? keys\s*$/, 'the overlay closed');
    assert.doesNotMatch(screen, /── keys /);
    // nothing of it went into the scrollback
    assert.equal(count(tmux.scrollback(500), /Composer:/), count(before, /Composer:/));
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    await w.cleanup();
  }
});

test(`first minutes (${runtimeName}): the trust screen says its paragraph once, its diff fits 100 columns, and it names the provider the session runs`, { timeout: 90_000 }, async () => {
  const w = await world();
  mkdirSync(path.join(w.dir, '.contenox'));
  writeFileSync(path.join(w.dir, '.contenox', 'agents.toml'), 'default_envelope = "acme"\n[envelopes.acme]\nextends = "default"\ndescription = "the project\'s own"\n');
  const { tmux, rcFile } = cxl(w, ['--model', 'big-32k'], 100, 40);
  try {
    const screen = await tmux.waitFor(/── trust this folder\?[\s\S]*cxl · .*session [0-9a-f]/, 'the trust prompt');
    const all = tmux.scrollback();
    assert.equal(count(all, /is not applied|not trusted/), 1, `one paragraph says why it is held back:\n${all}`);
    assert.match(all, /\+default_envelope = "acme"  # \.contenox\/agents\.toml/);
    assert.match(all, / provider = "openai"  # the environment or --model/, 'the provider the session runs');
    assert.match(all, / model = "big-32k"/);
    assert.doesNotMatch(all, /ollama|qwen3/);
    // no diff row is padded past the terminal (tmux's joined capture shows a wrapped row as one)
    const joined = tmux.run('capture-pane', '-p', '-J', '-S', '-300', '-t', 'cxl');
    for (const l of joined.split('\n').filter((x) => /^[-+ ][a-z_.]+ = /.test(x))) assert.ok(l.length <= 100, `a diff row wider than 100 columns: ${l}`);
    assert.match(screen, /t trust this folder · n\/Esc not now/);
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    await w.cleanup();
  }
});

test(`first minutes (${runtimeName}): with no server answering, the advice is printed once, and a prompt says so in one line`, { timeout: 90_000 }, async () => {
  const w = await world();
  const gone = await startFakeOpenAI(() => ({ text: '' }));
  const url = gone.url;
  await gone.close();
  const env = w.env.map((e) => (e.startsWith('OPENAI_BASE_URL=') ? `OPENAI_BASE_URL=${url}` : e));
  const tmux = new Tmux();
  const rcFile = path.join(w.dir, '.rc');
  tmux.start(w.dir, [...cxlCommand(), '--model', 'm'], env, rcFile, 100, 40);
  try {
    await tmux.waitFor(/No model is reachable[\s\S]*cxl · .*no model: see above/, 'the notice and the status line');
    tmux.type('hello?');
    await tmux.waitFor(/› hello\?/, 'the typed prompt');
    tmux.keys('Enter');
    await tmux.waitFor(/The model did not answer: [\s\S]*ECONNREFUSED[\s\S]* The notice when the session opened says how to set one up\./, 'the short answer');
    const all = tmux.scrollback();
    assert.equal(count(all, /To use a model, either:/), 1, `the advice once:\n${all}`);
    assert.equal(count(all, /ollama serve/), 1);
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    await w.cleanup();
  }
});

test(`first minutes (${runtimeName}): --add-dir gives the agent a second directory, said on screen, and a read there works; a missing one is a usage error before anything starts`, { timeout: 90_000 }, async () => {
  const w = await world();
  const lib = path.join(path.dirname(w.dir), `${path.basename(w.dir)}-lib`);
  mkdirSync(lib);
  writeFileSync(path.join(lib, 'notes.txt'), 'lib notes 42\n');
  const srv = await startFakeOpenAI([{ toolCalls: [{ name: 'read_file', arguments: { path: path.join(lib, 'notes.txt') } }] }, { text: 'Read the notes.' }]);
  const env = w.env.map((e) => (e.startsWith('OPENAI_BASE_URL=') ? `OPENAI_BASE_URL=${srv.url}` : e));
  try {
    const bad = new Tmux();
    const badRc = path.join(w.dir, '.rc-bad');
    bad.start(w.dir, [...cxlCommand(), '--add-dir', 'nowhere', '--model', 'm'], env, badRc, 100, 30);
    try {
      assert.equal(await exitCode(badRc), '2');
      assert.match(bad.screen(), /cxl: --add-dir nowhere: The additional directory .* is refused: it\s+does not exist/);
    } finally {
      bad.kill();
    }
    const tmux = new Tmux();
    const rcFile = path.join(w.dir, '.rc');
    // relative to where cxl starts, as --cwd is
    tmux.start(w.dir, [...cxlCommand(), '--add-dir', `../${path.basename(lib)}`, '--model', 'm'], env, rcFile, 100, 40);
    try {
      await tmux.waitFor(new RegExp(`also reach ${lib.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(--add-dir\\)`), 'the notice');
      tmux.type('read the notes');
      tmux.keys('Enter');
      await tmux.waitFor(/Read the notes\./, 'the answer');
      const results = ((srv.requests[1]?.messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
      assert.match(results[0] ?? '', /lib notes 42/, `the read was served: ${results.join(' | ')}`);
      tmux.keys('C-d');
      assert.equal(await exitCode(rcFile), '0');
      // the way back opens the session with the same directory (the line wraps: a space at the
      // wrap is trimmed by the capture)
      assert.match(tmux.scrollback().replace(/\n/g, ''), new RegExp(`Resume this session: ?cxl ?--resume ?\\S+ ?--add-dir ?${lib.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    } finally {
      tmux.kill();
    }
  } finally {
    await srv.close();
    rmSync(lib, { recursive: true, force: true });
    await w.cleanup();
  }
});
