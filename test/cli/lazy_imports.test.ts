// The scripted subcommands (`cxl tool`, `cxl check`, `cxl config`, and `cxl approvals` and
// `cxl mission` that scripts poll) start cold in every script
// that calls them, so each must load only what it uses: this walks the static import graph of
// each entry (what loads before its first line runs; `import()` is left out, being lazy by
// definition) and fails when a heavy package or a layer it has no use for is reached.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Specifiers a module loads eagerly: static imports and re-exports that are not type-only. */
export function staticImports(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out: string[] = [];
  const re = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const m of code.matchAll(re)) if (!m[1]) out.push(m[2]);
  return out;
}

/** Every module reached from `entry` by static imports: repo-relative paths for src files, bare names for packages. */
function closure(entry: string): Map<string, string> {
  const seen = new Map<string, string>(); // module -> the module that imported it first
  const queue = [entry];
  seen.set(entry, '(entry)');
  while (queue.length) {
    const file = queue.shift()!;
    for (const spec of staticImports(readFileSync(path.join(root, file), 'utf8'))) {
      let key: string;
      if (spec.startsWith('.')) {
        key = path.relative(root, path.resolve(root, path.dirname(file), spec));
        if (!/\.(tsx?|json)$/.test(key) || !existsSync(path.join(root, key))) throw new Error(`${file}: cannot follow import ${spec}`);
      } else if (spec.startsWith('node:')) {
        continue;
      } else {
        key = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      }
      if (seen.has(key)) continue;
      seen.set(key, file);
      if (!key.endsWith('.json') && key.startsWith('src/')) queue.push(key);
    }
  }
  return seen;
}

function chain(graph: Map<string, string>, mod: string): string {
  const path: string[] = [mod];
  let at = graph.get(mod);
  while (at && at !== '(entry)') {
    path.unshift(at);
    at = graph.get(at);
  }
  return path.join(' → ');
}

// What none of the scripted subcommands needs before it has parsed its arguments.
const HEAVY = ['@modelcontextprotocol/sdk', '@agentclientprotocol/sdk', 'ink', 'react', 'zod', '@readme/openapi-parser', 'ajv', 'js-yaml', 'isomorphic-git', 'jq-wasm'];
const LAYERS = [/^src\/ui\//, /^src\/client\//, /^src\/agent\/acp\//, /^src\/agent\/setup\.ts$/, /^src\/agent\/loop\//, /^src\/agent\/sessions\//, /^src\/agent\/providers\//];

describe('scripted subcommands load only what they use', () => {
  for (const [entry, allowed] of [
    ['src/cli/tool.ts', [] as RegExp[]],
    ['src/cli/check.ts', []],
    // config asks the model's server for its context window: the providers are its business
    ['src/cli/config.ts', [/^src\/agent\/providers\//, /^src\/agent\/loop\/model_requests\.ts$/]],
    // the records of missions and asks: no agent, no model
    ['src/cli/approvals.ts', []],
    ['src/cli/mission.ts', []],
  ] as const) {
    it(`${entry} reaches no heavy package and no layer it does not use`, () => {
      const graph = closure(entry);
      const bad = [...graph.keys()].filter((m) => HEAVY.includes(m) || LAYERS.some((re) => re.test(m) && !allowed.some((a) => a.test(m))));
      assert.deepEqual(bad.map((m) => chain(graph, m)), []);
    });
  }

  it('every layer pattern names files that exist (a moved room would otherwise be checked no more)', () => {
    const all = [...closure('src/cli.ts').keys(), ...closure('src/cli/acp.ts').keys(), ...closure('src/cli/ui.ts').keys(), ...closure('src/ui/App.tsx').keys()];
    for (const re of LAYERS) assert.ok(all.some((m) => re.test(m)), `${re} matches no module of src`);
  });

  it('each code-cached bundle (src/cli/scripted_<name>.ts) imports its subcommand lazily and no other', () => {
    for (const sub of ['tool', 'check', 'config']) {
      const source = readFileSync(path.join(root, `src/cli/scripted_${sub}.ts`), 'utf8');
      assert.deepEqual(staticImports(source).filter((s) => /^\.\/(tool|check|config)\.ts$/.test(s)), [], sub);
      assert.deepEqual([...source.matchAll(/import\('\.\/(\w+)\.ts'\)/g)].map((m) => m[1]), [sub], sub);
    }
  });

  it('the walk sees through re-exports and multi-line imports, and skips type-only ones', () => {
    const src = [
      "import type { A } from './a.ts';",
      "import {\n  b,\n  c,\n} from './b.ts';",
      "export { d } from './d.ts';",
      "export type { E } from './e.ts';",
      "import './side.ts';",
      "// import { x } from './commented.ts';",
      "const f = await import('./lazy.ts');",
    ].join('\n');
    assert.deepEqual(staticImports(src), ['./b.ts', './d.ts', './side.ts']);
  });

  it('a heavy import added to a scripted entry would be caught', () => {
    // the UI's App and the ACP agent load Ink and the ACP SDK by design: the walk must see them there
    assert.ok(closure('src/ui/App.tsx').has('ink'), 'the walk did not reach ink from the UI');
    assert.ok(closure('src/agent/acp/agent.ts').has('@agentclientprotocol/sdk'), 'the walk did not reach the ACP SDK from the agent');
  });
});
