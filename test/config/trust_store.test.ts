// The trust store (~/.contenox/trusted_folders.json) as people and scripts use it: several
// `cxl trust` at once each keep the others' records, a `--revoke` racing a trust of another
// folder is never undone, a process killed while it writes leaves a store that reads, and a
// damaged store is said (with its path), kept aside and never read as empty or written over
// in silence. Every case runs the built cxl as a person would.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { projectTrust, readTrustStore, trustStorePath, untrustedNotice } from '../../src/config/trust.ts';
import { lockFileOf } from '../../src/core/platform/write_lock.ts';
import { runCxl } from '../helpers/cxl.ts';
import { runWriter } from '../helpers/store_writer.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function world(folders: number): { home: string; projects: string[] } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-trust-store-')));
  dirs.push(base);
  const home = path.join(base, 'home');
  fs.mkdirSync(home);
  const projects = Array.from({ length: folders }, (_, i) => {
    const p = path.join(base, `p${i}`);
    fs.mkdirSync(path.join(p, '.contenox'), { recursive: true });
    fs.writeFileSync(path.join(p, '.contenox', 'agents.toml'), `model = "m${i}"\n`);
    return p;
  });
  return { home, projects };
}

const trust = (home: string, args: string[]) => runCxl(['trust', ...args], { env: { HOME: home, XDG_DATA_HOME: path.join(home, '.data') }, timeoutMs: 60_000 });
const trusted = (home: string) => Object.keys(readTrustStore(home).folders).sort();

test('four `cxl trust` at once, three times over: every folder is kept', { timeout: 240_000 }, async () => {
  const { home, projects } = world(12);
  for (let round = 0; round < 3; round++) {
    const rs = await Promise.all(projects.slice(round * 4, round * 4 + 4).map((p) => trust(home, [p])));
    for (const r of rs) assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(trusted(home), projects.slice(0, round * 4 + 4).sort(), `round ${round}: a record was lost`);
  }
  assert.equal(fs.existsSync(lockFileOf(trustStorePath(home))), false);
});

test('a `--revoke` racing two trusts of other folders is never undone, and both trusts are kept', { timeout: 240_000 }, async () => {
  const { home, projects } = world(7);
  const [victim] = projects;
  assert.equal((await trust(home, [victim])).code, 0);
  for (let round = 0; round < 3; round++) {
    const [a, b] = projects.slice(1 + round * 2, 3 + round * 2);
    const rs = await Promise.all([trust(home, ['--revoke', victim]), trust(home, [a]), trust(home, [b])]);
    for (const r of rs) assert.equal(r.code, 0, r.stderr);
    assert.match(rs[0].stdout, /is no longer trusted/);
    const now = trusted(home);
    assert.ok(!now.includes(victim), `round ${round}: the revoke of ${victim} was undone`);
    assert.ok(now.includes(a) && now.includes(b), `round ${round}: a trust was lost: ${now.join(', ')}`);
    // trusted again for the next round's race
    assert.equal((await trust(home, [victim])).code, 0);
  }
});

test('kill -9 while trusting and revoking, ten times: the store reads every time, and the next `cxl trust` is not held off', { timeout: 240_000 }, async () => {
  const { home, projects } = world(3);
  for (let round = 0; round < 10; round++) {
    const w = runWriter(['spin-trust', home, projects[0], projects[1]]);
    await w.started;
    await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 80)));
    w.child.kill('SIGKILL');
    await w.done;
    const read = readTrustStore(home);
    assert.equal(read.problem, undefined, `round ${round}: ${read.problem}`);
  }
  const t = performance.now();
  const r = await trust(home, [projects[2]]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(trusted(home).includes(projects[2]));
  assert.ok(performance.now() - t < 10_000, 'a dead writer\'s lock does not hold the next one until it ages out');
});

test('a damaged store is said with its path, trusts nothing, and is kept aside (never written over) by the next `cxl trust`', { timeout: 120_000 }, async () => {
  const { home, projects } = world(2);
  const file = trustStorePath(home);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (const [what, text] of [
    ['folders as a list', '{"version":1,"folders":[]}'],
    ['cut short', '{"version":1,"folders":{"/x":{"trustedAt":"2026'],
    ['emptied', ''],
  ] as const) {
    fs.writeFileSync(file, text);
    // read where a session starts: untrusted, and the notice says why and where
    const p = projectTrust(projects[0], { home });
    assert.equal(p.state, 'untrusted');
    assert.match(untrustedNotice(p)!, new RegExp(`${file.replace(/[.\\/]/g, '\\$&')} is damaged`), what);
    const list = await trust(home, ['--list']);
    assert.equal(list.code, 1, `${what}: --list does not say "No folder is trusted"`);
    assert.ok(list.stderr.includes(file), list.stderr);
    assert.doesNotMatch(list.stdout, /No folder is trusted/);
    const r = await trust(home, [projects[0]]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Trusted /);
    const aside = /it is kept as (\S+), and a new one was started/.exec(r.stderr)?.[1];
    assert.ok(aside, `${what}: ${r.stderr}`);
    assert.equal(fs.readFileSync(aside, 'utf8'), text, `${what}: the damaged store is kept as it was`);
    assert.deepEqual(trusted(home), [projects[0]], `${what}: the trust is recorded (not printed "Trusted" and dropped)`);
    fs.rmSync(aside);
    fs.rmSync(file);
  }
  // control: a good store is added to, with no word about damage
  assert.equal((await trust(home, [projects[0]])).code, 0);
  const r = await trust(home, [projects[1]]);
  assert.equal(r.stderr, '');
  assert.deepEqual(trusted(home), [...projects].sort());
});
