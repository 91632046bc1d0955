// Real repositories in temp dirs for the native-git tests, made with the git binary (as a user's
// repository is) under a fixed identity and a config that runs nothing; a toolset and a gate over
// them; and a way to catch a refusal's code and message.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError } from '../../../src/core/errors.ts';
import { Gate, type Approver } from '../../../src/core/gate/gate.ts';
import { parseGitPolicy } from '../../../src/core/native_git/policy.ts';
import { NativeGitToolset } from '../../../src/core/native_git/toolset.ts';

export const AUTHOR = { name: 'Test Author', email: 'test@example.com' };

/** A fresh temp dir (real path), removed after the file. */
export function tempDir(prefix = 'cxl-git-'): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

/** Runs the git binary in `dir` with nothing of the user's configuration and no hooks. */
export function git(dir: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: AUTHOR.name,
      GIT_AUTHOR_EMAIL: AUTHOR.email,
      GIT_COMMITTER_NAME: AUTHOR.name,
      GIT_COMMITTER_EMAIL: AUTHOR.email,
    },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Writes files (relative paths) under `dir`. */
export function write(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

/** A repository on branch main whose commits are `commits` (files written, added, committed), identity in its config. */
export function repo(commits: Array<{ files: Record<string, string>; message: string; remove?: string[] }> = [], dir = tempDir()): string {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', AUTHOR.name);
  git(dir, 'config', 'user.email', AUTHOR.email);
  for (const c of commits) {
    write(dir, c.files);
    for (const r of c.remove ?? []) git(dir, 'rm', '-q', r);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '--allow-empty', '-m', c.message);
  }
  return dir;
}

export function toolset(root: string, policy: Record<string, string> = {}): NativeGitToolset {
  return new NativeGitToolset({ root, policy: parseGitPolicy(policy).policy });
}

/** The text a tool answers with. */
export async function text(ts: NativeGitToolset, tool: string, args: Record<string, unknown> = {}): Promise<string> {
  return ((await ts.call(tool, args)) as { text: string }).text;
}

/** The refusal's message, asserting its code. */
export async function refusal(p: Promise<unknown>, code: string): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.ok(isToolError(err), `not a ToolError: ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err.message;
  }
  assert.fail(`expected ${code}, the call succeeded`);
}

/** A gate over the toolset under a shipped envelope. */
export function gate(ts: NativeGitToolset, envelope: string, approver?: Approver): Gate {
  return new Gate({ envelope: buildEnvelope(envelope, { ...SHIPPED_ENVELOPES }, FLOOR_RULES), toolsets: [ts], ...(approver ? { approver } : {}) });
}

/** Rewrites .git/index with `patch` applied to its bytes and the checksum made right again. */
export function patchIndex(dir: string, patch: (buf: Buffer) => void): void {
  const file = path.join(dir, '.git/index');
  const buf = fs.readFileSync(file);
  patch(buf);
  createHash('sha1').update(buf.subarray(0, buf.length - 20)).digest().copy(buf, buf.length - 20);
  fs.writeFileSync(file, buf);
}
