// What a cold `cxl tool stat_file` really runs of cxl's own code and its bundled packages, read
// from the built output (test/cli/lazy_imports.test.ts walks the source; an esbuild change, a
// shared chunk or a moved import() would land here first). Two paths: the ES-module build
// (CXL_NO_CODE_CACHE=1), whose loaded chunks are recorded by a module hook and named by their
// source maps; and the code-cached bundles, dist/scripted-<name>.cjs, which must not hold the UI or the
// agent's session machinery at all. bin/ is Node's entry, so this drives `node` (found on PATH
// under Deno).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/cxl.ts';
import { runtimeName } from '../../src/core/platform/runtime.ts';

const nodeBin = runtimeName === 'node' ? process.execPath : 'node';
const dist = path.join(repoRoot, 'dist');
let dir: string;

// The UI, the client, the agent's session machinery and the SDKs, Ink, React and zod: none is of
// any use to one local tool call.
const FORBIDDEN = [/^src\/ui\//, /^src\/client\//, /^src\/agent\/(acp|loop|sessions|providers|checkpoints|context)\//, /^src\/agent\/setup\.ts$/, /node_modules\/(ink|react|react-reconciler|yoga-layout|zod|@modelcontextprotocol|@agentclientprotocol|marked|lowlight)\//];
const forbidden = (sources: Iterable<string>, list = FORBIDDEN) => [...sources].filter((s) => list.some((re) => re.test(s)));
// the code-cached bundle also serves `cxl config`, which asks the model's server for its window
// (the providers and the context window's arithmetic); it runs a module only when its subcommand
// imports it, so those may be in it
const NEVER_BUNDLED = FORBIDDEN.filter((re) => !String(re).includes('providers')).concat([/^src\/agent\/(acp|sessions|checkpoints)\//]);

// What each built-in toolset but local_fs is beyond its registry entry (builtin.ts), the policy
// and tool names that entry reads (policy.ts, shell_policy.ts, tools.ts, tool.ts), and the two
// shell modules the configuration itself reads (config/schema.ts: shell.env's name pattern and the
// sandbox section)
const TOOLSET_IMPLEMENTATIONS = [/^src\/core\/shell\/(?!builtin\.ts$|shell_policy\.ts$|env\.ts$|sandbox\/settings\.ts$)/, /^src\/core\/native_git\/(?!builtin\.ts$|policy\.ts$|tools\.ts$)/, /^src\/core\/native_go\/(?!builtin\.ts$|policy\.ts$|tools\.ts$)/, /^src\/core\/native_jq\/(?!builtin\.ts$|policy\.ts$|tool\.ts$)/];

/** The repo-relative sources of every dist/ chunk a run of `cxl <args>` (the ES-module build) loaded. */
function loadedSources(args: string[], status = 0): { sources: Set<string>; chunks: string[]; stdout: string } {
  const list = path.join(dir, `chunks-${Math.random().toString(36).slice(2)}.txt`);
  const r = spawnSync(nodeBin, ['--import', pathToFileURL(path.join(dir, 'register.mjs')).href, path.join(repoRoot, 'bin', 'cxl.js'), ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', CXL_NO_CODE_CACHE: '1', CXL_CHUNK_LIST: list },
    encoding: 'utf8',
  });
  assert.equal(r.status, status, r.stderr);
  const chunks = [...new Set(fs.readFileSync(list, 'utf8').split('\n').filter((u) => u.startsWith('file:')))]
    .map((u) => new URL(u).pathname)
    .filter((f) => path.dirname(f) === dist && f.endsWith('.js'));
  const sources = new Set<string>();
  for (const chunk of chunks) {
    const map = JSON.parse(fs.readFileSync(`${chunk}.map`, 'utf8')) as { sources: string[] };
    for (const s of map.sources) sources.add(path.relative(repoRoot, path.resolve(dist, s)));
  }
  return { sources, chunks, stdout: r.stdout };
}

describe('what a cold cxl tool stat_file runs of the build', () => {
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-chunks-'));
    fs.writeFileSync(path.join(dir, 'f.txt'), 'hello\n');
    // the hook runs on Node's loader thread; it appends each module URL it loads to the list
    const hook = "import fs from 'node:fs'; export async function load(url, context, next) { fs.appendFileSync(process.env.CXL_CHUNK_LIST, url + '\\n'); return next(url, context); }";
    fs.writeFileSync(path.join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});\n`);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the ES-module build loads no chunk holding the UI, the client, the agent session, an SDK, Ink, React or zod', () => {
    const { sources, chunks, stdout } = loadedSources(['tool', 'stat_file', '{"path":"f.txt"}']);
    assert.equal(JSON.parse(stdout).result.size, 6);
    // the hook saw the run: main.js and the tool's own module are among what it loaded
    assert.ok(chunks.some((c) => path.basename(c) === 'main.js'), `no main.js among ${chunks.join(', ')}`);
    assert.ok(sources.has('src/cli/tool.ts') && sources.has('src/core/local_fs/stat.ts'), 'the loaded chunks hold no tool.ts: this test would pass for the wrong reason');
    assert.deepEqual(forbidden(sources), []);
  });

  it('loads no implementation of local_shell, native-git, native-go or native-jq: the registry holds their names and import()s each when it is opened', () => {
    const { sources, stdout } = loadedSources(['tool', 'stat_file', '{"path":"f.txt"}']);
    assert.equal(JSON.parse(stdout).result.size, 6);
    const loaded = forbidden(sources, TOOLSET_IMPLEMENTATIONS);
    assert.deepEqual(loaded, []);
    // the same list does catch them: a call of git_status loads native-git's (it answers that
    // this is no repository: exit 1)
    const git = loadedSources(['tool', 'git_status', '{}'], 1);
    assert.ok(git.sources.has('src/core/native_git/toolset.ts'), 'a git_status call loaded no native_git/toolset.ts: the check above would pass for the wrong reason');
    assert.ok(!forbidden(git.sources, TOOLSET_IMPLEMENTATIONS.filter((re) => !String(re).includes('native_git'))).length);
  });

  it('the same call through the ES-module build of the UI does load them (the check can see them)', () => {
    // `cxl --help` is answered by main.js alone; the UI's chunk is what `cxl` without arguments
    // imports: its source map names Ink and src/ui, so the list above would catch them
    const app = fs.readdirSync(dist).find((f) => /^App-[A-Z0-9]+\.js$/.test(f));
    assert.ok(app, 'dist/ has no App chunk: run `node scripts/build.mjs`');
    const map = JSON.parse(fs.readFileSync(path.join(dist, `${app}.map`), 'utf8')) as { sources: string[] };
    assert.notDeepEqual(forbidden(map.sources.map((s) => path.relative(repoRoot, path.resolve(dist, s)))), []);
  });

  it('the code-cached bundles (tool, check, config) hold no module of the UI, the client, the agent session or its SDKs, nor another subcommand', () => {
    for (const sub of ['tool', 'check', 'config']) {
      // each bundled module is a lazy initialiser keyed by its path (the subcommand is import()ed;
      // a CommonJS package's modules are keyed so too)
      const bundle = fs.readFileSync(path.join(dist, `scripted-${sub}.cjs`), 'utf8');
      const modules = new Set([...bundle.matchAll(/"((?:src\/|[^"]*node_modules\/)[^"]+\.(?:tsx?|m?js|cjs))"\(/g)].map((m) => m[1]));
      assert.ok(modules.has(`src/cli/${sub}.ts`) && modules.has('src/core/local_fs/stat.ts'), `${sub}: the bundle's module keys were not found (${modules.size}): this test would pass for the wrong reason`);
      assert.deepEqual(forbidden(modules, NEVER_BUNDLED), [], sub);
      assert.deepEqual(['tool', 'check', 'config'].filter((other) => other !== sub && modules.has(`src/cli/${other}.ts`)), [], sub);
      // a toolset's implementation is a lazy initialiser too: run when the toolset is opened
      assert.ok(modules.has('src/core/native_git/toolset.ts'), `${sub}: native-git's toolset is not a lazy module of the bundle`);
    }
  });
});
