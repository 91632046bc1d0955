// Plain-text snapshots shared by Node and Deno: snapshots/<test file name>.snap holds every
// snapshot of one test file. A missing or different snapshot fails; files are (re)written only
// with UPDATE_SNAPSHOTS=1, and never under CI=true.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const SNAPSHOT_DIR = fileURLToPath(new URL('../../snapshots/', import.meta.url));
const HEADER = (name: string) => `===== ${name} =====`;
const FOOTER = '===== end =====';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)|[@-Z\\-_])/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

function snapshotFile(testFileUrl: string): string {
  return path.join(SNAPSHOT_DIR, `${path.basename(fileURLToPath(testFileUrl))}.snap`);
}

function parse(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^===== (.*) =====$/.exec(lines[i]);
    if (!m || lines[i] === FOOTER) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && lines[j] !== FOOTER) body.push(lines[j++]);
    out.set(m[1], body.join('\n'));
    i = j;
  }
  return out;
}

function serialize(entries: Map<string, string>): string {
  const names = [...entries.keys()].sort();
  return names.map((n) => `${HEADER(n)}\n${entries.get(n)}\n${FOOTER}\n`).join('\n');
}

export function updatingSnapshots(): boolean {
  return process.env.UPDATE_SNAPSHOTS === '1' && process.env.CI !== 'true';
}

/** Compare `actual` (ANSI stripped, trailing spaces trimmed per line) with the stored snapshot. */
export function matchSnapshot(testFileUrl: string, name: string, actual: string): void {
  if (name.includes('\n') || name.includes('=====')) throw new Error(`bad snapshot name: ${name}`);
  const text = stripAnsi(actual)
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
  if (text.split('\n').includes(FOOTER)) throw new Error('snapshot text contains the footer line');
  const file = snapshotFile(testFileUrl);
  const entries = existsSync(file) ? parse(readFileSync(file, 'utf8')) : new Map<string, string>();
  const stored = entries.get(name);
  if (updatingSnapshots()) {
    if (stored !== text) {
      entries.set(name, text);
      mkdirSync(SNAPSHOT_DIR, { recursive: true });
      writeFileSync(file, serialize(entries));
    }
    return;
  }
  if (stored === undefined) {
    assert.fail(
      `snapshot "${name}" is missing from ${path.relative(process.cwd(), file)}. ` +
        'Write it on purpose with UPDATE_SNAPSHOTS=1 (never under CI=true), then review and commit it.',
    );
  }
  assert.equal(text, stored, `snapshot "${name}" differs; if the change is intended, rerun with UPDATE_SNAPSHOTS=1`);
}
