// The go toolchain, probed once per process and explained when absent; how every go command of
// the toolset is run: the secrets scrubbed from its environment, no toolchain download
// (GOTOOLCHAIN=local), no module download (GOPROXY=off, -mod=readonly), no cgo, and inside the
// OS sandbox's read-only view of the machine when one works (the workspace and cxl's cache
// visible read-only, a private /tmp holding go's build cache for that one run, no network), so
// what a module's files make go do cannot write anything that outlives it or reach out. `go`
// itself is found outside every workspace (shell/sandbox/launch_programs.ts): a `go` a
// repository put first on PATH (node_modules/.bin, a virtualenv's bin) is never the one started.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { ToolError } from '../errors.ts';
import { childProcess, spawnSyncSettled } from '../platform/runtime.ts';
import { childEnv } from '../shell/env.ts';
import { describeSkipped, launchProgram, noteWorkspaces } from '../shell/sandbox/launch_programs.ts';
import { feedSeccomp, sandboxLaunch, SECCOMP_FD } from '../shell/sandbox/launcher.ts';
import { probeSandbox } from '../shell/sandbox/probe.ts';

export interface Toolchain {
  go: string;
  /** `go1.22.3 linux/amd64` */
  version: string;
}

// the answer of `go version` per go binary (its real path), asked of the system once
const versions = new Map<string, string | null>();

/** The go toolchain on PATH outside every workspace, or null; each binary asked for its version once. */
export function toolchain(pathEnv: string | undefined = process.env.PATH): Toolchain | null {
  const go = launchProgram('go', pathEnv).program;
  if (!go) return null;
  let version = versions.get(go);
  if (version === undefined) {
    const r = spawnSyncSettled(go, ['version'], { encoding: 'utf8', timeout: 15000, env: { ...childEnv(process.env), GOTOOLCHAIN: 'local' } });
    version = /go version (\S+ \S+)/.exec(r.stdout ?? '')?.[1] ?? null;
    versions.set(go, version);
  }
  return version ? { go, version } : null;
}

/** The toolchain for a toolset in `workspace`, or the refusal that says what to install. */
export function requireToolchain(workspace?: string, pathEnv: string | undefined = process.env.PATH): Toolchain {
  if (workspace) noteWorkspaces([workspace]);
  const t = toolchain(pathEnv);
  if (t) return t;
  const { skipped } = launchProgram('go', pathEnv);
  if (skipped.length) throw new ToolError('not_found', `native-go: no go toolchain outside the workspace: ${describeSkipped('go', skipped)}. cxl starts go only from a PATH directory no command can write; install Go system-wide (e.g. \`apt-get install golang-go\`) or put its bin directory on PATH.`);
  throw new ToolError('not_found', 'native-go: no go toolchain: the go binary is not on PATH. The native-go tools read the module with `go list` and Go\'s own type checker, so Go must be installed for any of them to answer (e.g. `apt-get install golang-go`, or https://go.dev/dl). Until then, read Go files with read_file and grep.');
}

/** Where cxl keeps the go build cache and its helper. */
export function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const dir = path.join(base, 'cxl', 'native-go');
  fs.mkdirSync(path.join(dir, 'go-build'), { recursive: true });
  return dir;
}

export interface GoRun {
  code: number | null;
  stdout: string;
  stderr: string;
  sandboxed: boolean;
}

/** The environment go runs with: scrubbed, offline, local toolchain, no cgo; `gocache` its build cache. */
export function goEnv(gocache = path.join(cacheDir(), 'go-build')): Record<string, string> {
  return childEnv(process.env, {
    extra: { GOTOOLCHAIN: 'local', GOPROXY: 'off', GOFLAGS: '-mod=readonly', CGO_ENABLED: '0', GOWORK: 'off', GOCACHE: gocache, GOSUMDB: 'off', GOTELEMETRY: 'off' },
  });
}

/** Runs `command args` in `cwd` (inside `workspace`), in the read-only sandbox when one works; stdin optional. */
export function runGo(command: string, args: string[], cwd: string, workspace: string, input?: string, timeoutMs = 120000): Promise<GoRun> {
  const probe = probeSandbox({ network: false, roots: [workspace, cacheDir()] });
  let env = goEnv();
  let cmd = command;
  let argv = args;
  let sandboxed = false;
  let launchFilter: { seccomp?: Uint8Array; cleanup?: () => void } | undefined;
  if (probe.state === 'bubblewrap' || probe.state === 'seatbelt') {
    // read-only: the workspace and cxl's cache stay visible, nothing of them writable; go's
    // build cache goes to the sandbox's private /tmp
    env = goEnv(probe.state === 'bubblewrap' ? '/tmp/cxl-go-build' : path.join(cacheDir(), 'go-build'));
    const launch = sandboxLaunch(probe, { command, args, cwd, env, outputByteLimit: 0 }, { profile: 'read-only', network: false, roots: [workspace, cacheDir()] });
    cmd = launch.command;
    argv = launch.args;
    launchFilter = launch;
    sandboxed = true;
  }
  return new Promise((resolve, reject) => {
    // a fourth pipe: bwrap reports its child's pid on fd 3; the fifth carries the unix-socket
    // filter bwrap reads (--seccomp), written from memory for this spawn
    const stdio = ['pipe', 'pipe', 'pipe', 'pipe'];
    if (launchFilter?.seccomp) stdio[SECCOMP_FD] = 'pipe';
    const child = childProcess().spawn(cmd, argv, { cwd, env, stdio: stdio as ('pipe')[], timeout: timeoutMs });
    if (launchFilter && child.pid !== undefined) feedSeccomp(launchFilter, child.stdio as unknown[]);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (err) => {
      launchFilter?.cleanup?.();
      reject(err);
    });
    child.on('close', (code) => {
      launchFilter?.cleanup?.(); // the pids group of an unasked command, as root
      resolve({ code, stdout, stderr, sandboxed });
    });
    child.stdin!.end(input ?? '');
  });
}
