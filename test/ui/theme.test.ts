// Themes: the terminal's background from its OSC 11 answer (a real exchange over a pipe-backed
// stream pair that answers as xterm does, one that answers only the device-attributes query, one
// that never answers, and keys typed meanwhile kept for the screen),
// COLORFGBG, the `theme` config key's check, /theme switching the palette, and an answer that
// comes after the wait setting the theme of the running screen (only when none came in time).
import './env.ts';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { createElement } from 'react';
import { parseConfigText } from '../../src/config/load.ts';
import { App } from '../../src/ui/App.tsx';
import { backgroundFromAnswer, backgroundFromEnv, queryBackground } from '../../src/ui/terminal_background.ts';
import { setTheme, themeColor, themeName } from '../../src/ui/theme.ts';
import { KEY, renderAt, tick } from './harness.ts';
import * as states from './states.ts';

/** A terminal that answers the queries written to it, as `answer` says (empty: it never answers), after `typed` was typed. */
function terminal(answer: (query: string) => string, typed = '') {
  const stdin = Object.assign(new PassThrough(), { raw: false, setRawMode(on: boolean) { stdin.raw = on; } });
  const stdout = {
    written: '',
    write(s: string) {
      stdout.written += s;
      if (typed !== '') stdin.write(typed);
      const a = answer(s);
      if (a !== '') setTimeout(() => stdin.write(Buffer.from(a)), 2);
      return true;
    },
  };
  return { stdin, stdout };
}

/** What is left on `stdin` for the screen: read as Ink reads it, a `readable` listener attached later. */
function leftFor(stdin: PassThrough): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    stdin.on('readable', () => {
      let c;
      while ((c = stdin.read()) !== null) got += c.toString();
    });
    setTimeout(() => resolve(got), 20);
  });
}

test('the background from OSC 11: a light one, a dark one, 8-bit and 16-bit channels', () => {
  assert.equal(backgroundFromAnswer('\u001B]11;rgb:ffff/ffff/ffff\u0007'), 'light');
  assert.equal(backgroundFromAnswer('\u001B]11;rgb:1e1e/1e1e/2e2e\u001B\\'), 'dark');
  assert.equal(backgroundFromAnswer('\u001B]11;rgb:fd/f6/e3\u0007'), 'light', 'solarized light');
  assert.equal(backgroundFromAnswer('nothing'), undefined);
  assert.equal(backgroundFromEnv({ COLORFGBG: '0;15' }), 'light');
  assert.equal(backgroundFromEnv({ COLORFGBG: '15;0' }), 'dark');
  assert.equal(backgroundFromEnv({}), undefined);
});

test('the query: OSC 11 then device attributes; an answer of both gives the theme, stdin is left raw and unread for the screen', async () => {
  const t = terminal(() => '\u001B]11;rgb:ffff/ffff/f0f0\u0007\u001B[?62;22c');
  assert.equal(await queryBackground(t), 'light');
  assert.equal(t.stdout.written, '\u001B]11;?\u0007\u001B[c');
  // raw mode is not toggled off and on before Ink takes stdin: keys typed between would be echoed
  assert.equal(t.stdin.raw, true);
  assert.equal(t.stdin.listenerCount('readable'), 0);
  assert.equal(t.stdin.listenerCount('data'), 0);
  assert.equal(t.stdin.isPaused(), false, 'never paused: a paused stdin under Deno sometimes never delivered the next keys');
  assert.equal(await leftFor(t.stdin), '', 'the answers are not left for the screen as keys');
});

test('keys typed while the answer is awaited go to the screen, not to the query: before the answer, with it, and after it', async () => {
  // typed before the query is answered, in the same read as the answer
  const a = terminal((q) => `${q === '' ? '' : 'he\u001B]11;rgb:0000/0000/0000\u001B\\l\u001B[?1;2clo'}`, 'ab');
  assert.equal(await queryBackground(a), 'dark');
  a.stdin.write('!');
  assert.equal(await leftFor(a.stdin), 'abhello!');
  // a terminal that never answers: the keys typed during the wait are kept too
  const b = terminal(() => '', 'xyz');
  const started = Date.now();
  assert.equal(await queryBackground(b, 50), undefined);
  assert.ok(Date.now() - started < 1000);
  assert.equal(await leftFor(b.stdin), 'xyz');
});

test('a key of two bytes split over two reads while the query waits is kept whole', async () => {
  const t = terminal(() => '');
  const asked = queryBackground(t, 200);
  t.stdin.write(Buffer.from([0xc3]));
  await new Promise((r) => setTimeout(r, 5));
  t.stdin.write(Buffer.from([0xa9]));
  await new Promise((r) => setTimeout(r, 5));
  t.stdin.write('\u001B[?1;2c');
  assert.equal(await asked, undefined);
  assert.equal(await leftFor(t.stdin), 'é');
});

test('a terminal that ignores OSC 11 answers the device attributes only: no theme, and no wait for the timeout', async () => {
  const t = terminal(() => '\u001B[?1;2c');
  const started = Date.now();
  assert.equal(await queryBackground(t, 5000), undefined);
  assert.ok(Date.now() - started < 1000);
});

test('`theme` in agents.toml is auto, dark or light; anything else is an error that says what to write', () => {
  assert.equal(parseConfigText('a.toml', 'theme = "light"\n').theme, 'light');
  assert.throws(() => parseConfigText('a.toml', 'theme = "solarized"\n'), /theme = "solarized".*"auto".*"dark".*"light"/s);
});

test('the light palette has no plain yellow or cyan (unreadable on white); switching changes the colours', () => {
  setTheme('light');
  try {
    assert.equal(themeName(), 'light');
    for (const name of ['warn', 'code', 'accent', 'syn_number']) assert.doesNotMatch(themeColor(name) ?? '', /^(yellow|cyan)/);
    assert.notEqual(themeColor('code', 'light'), themeColor('code', 'dark'));
  } finally {
    setTheme('dark');
  }
});

test('an answer that comes after the wait sets the theme from the next frame, once; it is never typed', async () => {
  const LIGHT = '\u001B]11;rgb:ffff/ffff/ffff\u001B\\';
  const mount = (lateBackground: boolean) => {
    const controller = { send() {}, cancel() {}, quit() {} };
    return renderAt(createElement(App, { store: states.idle(), controller, animate: false, size: { columns: 80, rows: 20 }, lateBackground }), 80, 20);
  };
  setTheme('dark');
  // the start got its answer (or the theme is configured): a later one changes nothing
  const answered = mount(false);
  try {
    await answered.press(LIGHT);
    assert.equal(themeName(), 'dark');
  } finally {
    answered.unmount();
  }
  const late = mount(true);
  try {
    const before = late.stdout.frames.length;
    // cut between two reads, as a slow link delivers it
    await late.press(LIGHT.slice(0, 9), LIGHT.slice(9));
    assert.equal(themeName(), 'light');
    assert.ok(late.stdout.frames.length > before, 'the screen is drawn again in the new palette');
    // only the first answer counts
    await late.press('\u001B]11;rgb:0000/0000/0000\u0007');
    assert.equal(themeName(), 'light');
    await late.press('ok');
    await tick();
    assert.match(late.lastFrame(), /› ok\s*$/m, 'nothing of the answers typed; the keys after them are');
  } finally {
    late.unmount();
    setTheme('dark');
  }
  // a theme the person chose before the answer came is kept
  const chose = mount(true);
  try {
    await chose.press(...'/theme dark', KEY.enter);
    await chose.press(LIGHT);
    assert.equal(themeName(), 'dark');
  } finally {
    chose.unmount();
    setTheme('dark');
  }
});
