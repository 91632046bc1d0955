// The prompt history on real files, with other real processes appending at the same time: a torn
// last line never takes the next prompt, a trim never drops another UI's prompts, and a killed
// trim leaves no private copy behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { PromptHistory } from '../../../src/client/composer/prompt_history.ts';
import { runWriter } from '../../helpers/store_writer.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'cxl-history-')));
  dirs.push(d);
  return path.join(d, 'history', 'p.jsonl');
}

test('a torn last line never swallows the next prompt; a wrong-typed line is skipped, the rest loads', async () => {
  const file = temp();
  const h = new PromptHistory(file);
  await h.append({ text: 'one', at: 1 });
  // a UI killed inside its write: half a line, no newline
  fs.appendFileSync(file, '{"text":"tw');
  assert.deepEqual(h.load().map((p) => p.text), ['one']);
  await h.append({ text: 'three', at: 3 });
  fs.appendFileSync(file, '{"text":42}\n[1]\n');
  await h.append({ text: 'four', at: 4 });
  assert.deepEqual(h.load().map((p) => p.text), ['one', 'three', 'four']);
  // each skipped line named with the file and its line number (the torn one ended: line 2)
  assert.deepEqual(h.skipped.map((s) => s.split(': ')[0]), [`${file}:2`, `${file}:4`, `${file}:5`]);
  assert.match(h.skipped[0], /not JSON/);
  assert.match(h.skipped[1], /a prompt without text/);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  // control: without the torn tail ended, the next line would have been glued to it
  assert.match(fs.readFileSync(file, 'utf8'), /\{"text":"tw\n\{"text":"three"/);
});

test('two UIs appending at once, and a trim racing them: nothing either appended is lost', { timeout: 120_000 }, async () => {
  const file = temp();
  const cap = 50;
  const h = new PromptHistory(file, cap);
  // over the cap by half again: loading trims
  for (let i = 0; i < 80; i++) await h.append({ text: `old.${i}`, at: i });
  const a = runWriter(['history', file, 'a', '40']);
  const b = runWriter(['history', file, 'b', '40']);
  // trims while the other processes append
  for (let i = 0; i < 20; i++) {
    const other = new PromptHistory(file, cap);
    other.load();
    await other.tidying;
    await h.tidy(true);
  }
  assert.equal(await a.done, 0, a.out());
  assert.equal(await b.done, 0, b.out());
  const texts = new PromptHistory(file, 1000).load().map((p) => p.text);
  // the trim keeps the newest `cap`: every prompt of the two UIs that came after the last trim is
  // there, and the ones still in the file are in the order each UI wrote them
  for (const tag of ['a', 'b']) {
    const mine = texts.filter((t) => t.startsWith(`${tag}.`)).map((t) => Number(t.slice(2)));
    assert.ok(mine.length > 0, `${tag}'s prompts are there`);
    assert.deepEqual(mine, mine.slice().sort((x, y) => x - y));
    assert.equal(mine.at(-1), 39, `${tag}'s last prompt is kept`);
    // no hole: from its oldest kept prompt on, every one is there
    assert.deepEqual(mine, Array.from({ length: mine.length }, (_, i) => mine[0] + i), `${tag}: ${mine.join(',')}`);
  }
  await h.tidy(true);
  assert.ok(new PromptHistory(file, 1000).load().length <= cap);
});

test('a trim killed mid-write leaves no copy of the history: the next start removes it', { timeout: 60_000 }, async () => {
  const file = temp();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const w = runWriter(['spin-history', file]);
  await w.started;
  // what a UI killed inside a trim leaves: a temp file beside the history, named as the atomic write names it
  const orphan = path.join(path.dirname(file), `.${path.basename(file)}.cxl-0123456789ab.tmp`);
  fs.writeFileSync(orphan, 'private prompts\n', { mode: 0o600 });
  w.child.kill('SIGKILL');
  await w.done;
  const h = new PromptHistory(file);
  const before = h.load();
  await h.tidying;
  assert.ok(!fs.existsSync(orphan), 'the leftover copy is removed');
  // appends after a kill -9 mid-append go on a line of their own
  await h.append({ text: 'after the kill', at: Date.now() });
  const after = h.load().map((p) => p.text);
  assert.equal(after.at(-1), 'after the kill');
  assert.ok(after.length === before.length + 1, `${before.length} then ${after.length}`);
  assert.deepEqual(fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp')), []);
});
