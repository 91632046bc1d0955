// The terminal's own reports in its input (late answers to the queries at start, focus changes,
// strings of any kind) never become keys or typed text, however the reads cut them; a lone Esc
// is still Esc, Alt+key still Alt+key, and a paste stays text. Pure: no terminal, the same on
// Node and Deno.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scanEscape } from '../../src/ui/escape_sequence.ts';
import { ESC_TIMEOUT_MS, InputDecoder, REPORT_TIMEOUT_MS, type InputEvent } from '../../src/ui/input.ts';

const ESC = '\u001B';
const BEL = '\u0007';
const ST = `${ESC}\\`;
const OSC11 = `${ESC}]11;rgb:ffff/ffff/dddd`;
const DA1 = `${ESC}[?64;1;2;6;22c`;

/** Reports as terminals send them: each must leave no key behind. */
const REPORTS: Record<string, string> = {
  'OSC 11, BEL': `${OSC11}${BEL}`,
  'OSC 11, ST': `${OSC11}${ST}`,
  'OSC 11, 8-bit ST': `${OSC11}\u009C`,
  'OSC 11, rgba': `${ESC}]11;rgba:0000/0000/0000/ffff${BEL}`,
  'OSC 10 (foreground)': `${ESC}]10;rgb:cccc/cccc/cccc${ST}`,
  'OSC 4 (palette)': `${ESC}]4;1;rgb:cdcd/0000/0000${BEL}`,
  'OSC 52 (clipboard)': `${ESC}]52;c;${'aGVsbG8gd29ybGQ='.repeat(40)}${BEL}`,
  'OSC l (window title)': `${ESC}]lmy title${ST}`,
  'DA1': DA1,
  'DA2': `${ESC}[>0;276;0c`,
  'DSR (status)': `${ESC}[0n`,
  'CPR (cursor position)': `${ESC}[24;80R`,
  'DECRPM (mode)': `${ESC}[?2026;2$y`,
  'kitty keyboard flags': `${ESC}[?1u`,
  'colour scheme (DSR 997)': `${ESC}[?997;1n`,
  'window size (XTWINOPS)': `${ESC}[8;30;100t`,
  'DCS XTVERSION': `${ESC}P>|tmux 3.4${ST}`,
  'DCS DECRQSS': `${ESC}P1$r0;1m${ST}`,
  'DCS XTGETTCAP': `${ESC}P1+r544e=787465726d${ST}`,
  'APC (kitty graphics)': `${ESC}_Gi=31;OK${ST}`,
  'PM': `${ESC}^private${ST}`,
  'SOS': `${ESC}Xstring${ST}`,
};

/** Events as one line each; typed text joined up, so where the reads cut it does not matter. */
function show(evs: InputEvent[]): string[] {
  const out: string[] = [];
  let text = '';
  const endText = () => {
    if (text !== '') out.push(JSON.stringify(text));
    text = '';
  };
  for (const e of evs) {
    if (e.kind === 'key' && e.input !== '' && !e.key.ctrl && !e.key.meta && !/^(return|tab|backspace|escape)$/.test(e.name ?? '')) {
      text += e.input;
      continue;
    }
    endText();
    if (e.kind === 'key') out.push(e.name ?? `?${JSON.stringify(e.input)}`);
    else if (e.kind === 'paste') out.push(`paste:${JSON.stringify(e.text)}`);
    else if (e.kind === 'focus') out.push(e.focused ? 'focus-in' : 'focus-out');
    else out.push('report');
  }
  endText();
  return out;
}

/** `pieces` read one after another, `gap` ms apart, then whatever is held decided. */
function read(pieces: string[], gap = 1): string[] {
  const d = new InputDecoder();
  const evs = pieces.flatMap((p, i) => d.feed(p, i * gap));
  return show([...evs, ...d.expire(Number.POSITIVE_INFINITY)]);
}

/** Every way to cut `s` in two reads, and byte by byte. */
function cuts(s: string): string[][] {
  const all = [[s], [...s]];
  for (let k = 1; k < s.length; k++) all.push([s.slice(0, k), s.slice(k)]);
  return all;
}

test('each report, alone or between typed keys, leaves only the keys', () => {
  for (const [what, seq] of Object.entries(REPORTS)) {
    const isString = !seq.startsWith(`${ESC}[`);
    assert.deepEqual(read([seq]), isString ? ['report'] : [], what);
    assert.deepEqual(read([`ab${seq}cd\r`]), isString ? ['"ab"', 'report', '"cd"', 'return'] : ['"abcd"', 'return'], `${what} between keys`);
  }
});

test('the late answers to the start-up queries, cut at every byte, are never typed text', () => {
  for (const term of [BEL, ST]) {
    const stream = `hi${OSC11}${term}${DA1}yo\r`;
    for (const pieces of cuts(stream)) {
      assert.deepEqual(read(pieces), ['"hi"', 'report', '"yo"', 'return'], `cut as ${JSON.stringify(pieces)}`);
    }
  }
  // the answers alone, as they come after the query stopped waiting
  for (const pieces of cuts(`${OSC11}${ST}${DA1}`)) assert.deepEqual(read(pieces), ['report'], `cut as ${JSON.stringify(pieces)}`);
});

test('a report cut between reads is joined even when its rest comes a while later (ssh), within the bound', () => {
  const gap = REPORT_TIMEOUT_MS - 10;
  assert.deepEqual(read([`${ESC}]11;rgb:ff`, `ff/ffff/ffff${BEL}x`], gap), ['report', '"x"']);
  assert.deepEqual(read([`${ESC}[?64;`, '1c', 'x'], gap / 2), ['"x"']);
  // even the ESC alone, then the rest just inside the Esc bound
  assert.deepEqual(read([ESC, `]11;rgb:0/0/0${BEL}`], ESC_TIMEOUT_MS - 1), ['report']);
  assert.deepEqual(read([ESC, '[?64;1c'], ESC_TIMEOUT_MS - 1), []);
});

test('an unterminated report is dropped; the key after it still acts', () => {
  const open = `${ESC}]11;rgb:ffff/ff`;
  assert.deepEqual(read([open, '\r']), ['return'], 'Enter ends it and is Enter');
  assert.deepEqual(read([`${open}\r`]), ['return']);
  assert.deepEqual(read([open, `${ESC}[A`]), ['up'], 'an arrow ends it and is the arrow');
  assert.deepEqual(read([`${open}${ESC}b`]), ['meta+b'], 'ESC that does not make ST begins the next key');
  assert.deepEqual(read([`${ESC}P>|xterm`, '\t']), ['tab']);
  assert.deepEqual(read([`${ESC}[?64;`, '\r']), ['return'], 'a CSI cut short too');
  // nothing after it: typed text that comes after the bound is text
  const d = new InputDecoder();
  assert.deepEqual(d.feed(open, 0), []);
  assert.equal(d.deadline(), REPORT_TIMEOUT_MS);
  assert.deepEqual(show(d.feed('hello', REPORT_TIMEOUT_MS + 1)), ['"hello"']);
  assert.equal(d.deadline(), undefined);
});

test('a lone Esc is Esc after a short wait; ESC and what completes a sequence within it is that sequence', () => {
  const d = new InputDecoder();
  assert.deepEqual(d.feed(ESC, 1000), [], 'held for what may follow');
  assert.equal(d.deadline(), 1000 + ESC_TIMEOUT_MS);
  assert.deepEqual(d.expire(1000 + ESC_TIMEOUT_MS - 1), []);
  assert.deepEqual(show(d.expire(1000 + ESC_TIMEOUT_MS)), ['escape']);
  assert.equal(d.deadline(), undefined);
  // Esc, then a key after the wait: Esc and that key, not Alt+key
  assert.deepEqual(read([ESC, 'b'], ESC_TIMEOUT_MS + 1), ['escape', '"b"']);
  assert.deepEqual(read([ESC, '[A'], ESC_TIMEOUT_MS + 1), ['escape', '"[A"']);
  // within it: one sequence
  assert.deepEqual(read([ESC, '[A']), ['up']);
  assert.deepEqual(read([`${ESC}[`, '1;5D']), ['ctrl+left']);
  // Esc twice, and Esc then an arrow in one read
  assert.deepEqual(read([`${ESC}${ESC}`]), ['escape']);
  assert.deepEqual(read([`${ESC}${ESC}[D`]), ['meta+left']);
});

test('Alt+key, including the keys that begin a report, is still Alt+key', () => {
  assert.deepEqual(read([`${ESC}b`]), ['meta+b']);
  assert.deepEqual(read([`${ESC}B`]), ['meta+shift+b']);
  assert.deepEqual(read([`${ESC}\r`]), ['meta+return']);
  assert.deepEqual(read([`${ESC}\u007F`]), ['meta+backspace']);
  assert.deepEqual(read([`${ESC}é`]), ['meta+é']);
  // Alt+], Alt+Shift+P, Alt+_, Alt+[ alone: the key, once nothing followed
  assert.deepEqual(read([`${ESC}]`]), ['meta+]']);
  assert.deepEqual(read([`${ESC}P`]), ['meta+shift+p']);
  assert.deepEqual(read([`${ESC}_`]), ['meta+_']);
  assert.deepEqual(read([`${ESC}[`]), ['meta+[']);
  // ... and with a key straight after (no report holds a control character)
  assert.deepEqual(read([`${ESC}]\r`]), ['meta+]', 'return']);
  assert.deepEqual(read([`${ESC}[\r`]), ['meta+[', 'return']);
});

test('focus reports are focus, however cut, and text inside a paste', () => {
  assert.deepEqual(read([`${ESC}[I`]), ['focus-in']);
  assert.deepEqual(read([`${ESC}[`, 'O']), ['focus-out']);
  assert.deepEqual(read([ESC, '[', 'I', 'x']), ['focus-in', '"x"']);
  assert.deepEqual(read([`${ESC}[200~a${ESC}[Ib${ESC}[201~`]), [`paste:${JSON.stringify(`a${ESC}[Ib`)}`]);
});

test('a bracketed paste holding ESC ] and a DA answer stays paste text, cut at every byte', () => {
  const inner = `see ${ESC}]11;rgb:0/0/0${BEL} and ${DA1} and ${ESC}]8;;http://x${ST}\rend`;
  const stream = `${ESC}[200~${inner}${ESC}[201~z`;
  for (const pieces of cuts(stream)) assert.deepEqual(read(pieces), [`paste:${JSON.stringify(inner)}`, '"z"'], `cut as ${JSON.stringify(pieces)}`);
});

test('a report after a paste, and a paste after a report, each as it is', () => {
  assert.deepEqual(read([`${ESC}[200~x${ESC}[201~${OSC11}${BEL}${ESC}[200~y${ESC}[201~`]), ['paste:"x"', 'report', 'paste:"y"']);
});

test('a report of a megabyte in 4 KiB reads is dropped whole, at once, and the keys after it act', () => {
  for (const [open, end] of [[`${ESC}]52;c;`, BEL], [`${ESC}_G`, ST]]) {
    const d = new InputDecoder();
    const started = Date.now();
    const evs = d.feed(open, 0);
    // the end cut between reads: ST's ESC closes one read
    for (let i = 0; i < 256; i++) evs.push(...d.feed('QUJD'.repeat(1024) + (i === 255 ? end[0] : ''), 1));
    evs.push(...d.feed(`${end.slice(1)}ok\r`, 2));
    assert.deepEqual(show(evs), ['report', '"ok"', 'return'], JSON.stringify(open));
    // scanned once, not again from its start at every read (that took seconds)
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
  }
});

test('scanEscape: where each sequence ends, and when the input ends before it does', () => {
  const end = (s: string) => {
    const r = scanEscape(s, 0);
    return r === 'pending' ? r : `${r.kind}:${r.end}`;
  };
  assert.equal(end(`${ESC}[A!`), 'key:3');
  assert.equal(end(`${ESC}[[A!`), 'key:4', "the Linux console's F1");
  assert.equal(end(`${ESC}OP!`), 'key:3');
  assert.equal(end(`${ESC}b!`), 'key:2');
  assert.equal(end(`${ESC}😀!`), 'key:3', 'a whole code point');
  assert.equal(end(`${DA1}!`), `key:${DA1.length}`, 'a CSI report is a key sequence the key parser names none');
  assert.equal(end(`${OSC11}${BEL}!`), `string:${OSC11.length + 1}`);
  assert.equal(end(`${OSC11}${ST}!`), `string:${OSC11.length + 2}`);
  assert.equal(end(`${OSC11}\r`), `broken:${OSC11.length}`);
  assert.equal(end(`${ESC}[12;\r`), 'broken:5');
  for (const s of [ESC, `${ESC}[`, `${ESC}[?64;1`, `${ESC}O`, `${ESC}${ESC}`, `${ESC}${ESC}[`, `${ESC}]`, OSC11, `${OSC11}${ESC}`, `${ESC}P>|x`]) assert.equal(end(s), 'pending', JSON.stringify(s));
});
