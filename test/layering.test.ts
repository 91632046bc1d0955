// The house's floors and rooms as a test instead of a convention: each room (a folder of src/,
// or a sub-folder of core/ and agent/) may import only the rooms listed for it, no file imports
// in a circle, and every room has a README saying what lives there. Rules are data here; the
// READMEs say the same in words.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { CORE_TOOLSETS } from '../src/core/registry/builtin_toolsets.ts';
import { repoRoot } from './helpers/cxl.ts';

/** The floors every toolset of core stands on: the vocabulary and the contract's rooms. */
const CONTRACT_FLOOR = ['core/.', 'core/platform', 'core/protect', 'core/envelope', 'core/contract'];

/** Each built-in toolset's room, from the one registry: the contract's floor and the rooms it says it uses. */
const TOOLSET_ROOMS: Record<string, readonly string[]> = Object.fromEntries(CORE_TOOLSETS.map((t) => [`core/${t.room}`, [...CONTRACT_FLOOR, ...(t.uses ?? []).map((u) => `core/${u}`)]]));

/** The client's feature rooms: each may use the connection and the session's model, never another feature. */
const CLIENT_FEATURES = ['permissions', 'elicitation', 'login', 'models', 'config_options', 'shell', 'trust', 'rewind', 'fork'];

/** Which rooms a room may import from (its own room always). `core/.` is core's root vocabulary. */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  'core/.': [],
  'core/platform': ['core/.'],
  'core/protect': ['core/.', 'core/platform'],
  'core/envelope': ['core/.', 'core/platform', 'core/protect'],
  'core/contract': ['core/.', 'core/platform', 'core/protect', 'core/envelope'],
  ...TOOLSET_ROOMS,
  'core/registry': [...CONTRACT_FLOOR, ...Object.keys(TOOLSET_ROOMS)],
  // the gate knows no toolset: each answers the contract
  'core/gate': CONTRACT_FLOOR,
  config: ['core/*'],
  // the client's rooms (client/README.md): the connection at the bottom, the session's model on
  // it, what the client serves and the composer on that, one room a feature beside each other;
  // the root (acp_client.ts, state.ts) joins them
  'client/connection': ['core/*'],
  'client/session': ['core/*'],
  'client/hosts': ['client/session', 'core/*'],
  'client/composer': ['client/session', 'core/*'],
  ...Object.fromEntries(CLIENT_FEATURES.map((f) => [`client/${f}`, ['client/connection', 'client/session', 'config', 'core/*']])),
  'client/.': ['client/*', 'config', 'core/*'],
  ui: ['client/*', 'core/*'],
  'agent/providers': ['config', 'core/*'],
  'agent/context': ['agent/providers', 'config', 'core/*'],
  'agent/sessions': ['agent/providers', 'core/*'],
  'agent/missions': ['core/*'],
  'agent/checkpoints': ['core/*'],
  'agent/tools': ['agent/missions', 'config', 'core/*'],
  'agent/loop': ['agent/providers', 'agent/context', 'agent/tools', 'config', 'core/*'],
  'agent/units': ['agent/loop', 'agent/context', 'agent/providers', 'agent/sessions', 'agent/tools', 'agent/missions', 'config', 'core/*'],
  'agent/acp': ['agent/loop', 'agent/context', 'agent/providers', 'agent/sessions', 'agent/tools', 'agent/missions', 'agent/units', 'agent/checkpoints', 'config', 'core/*'],
  'agent/.': ['agent/*', 'config', 'core/*'],
  serve: ['agent/*', 'config', 'core/*'],
  cli: ['agent/*', 'client/*', 'config', 'core/*', 'serve', 'ui'],
};

/** The room of a file under src/: `core/gate`, `agent/.`, `client/hosts`, `ui`, `cli` (src/cli.ts and src/cli/). */
export function roomOf(rel: string): string {
  const parts = rel.split('/');
  if (parts[0] !== 'src') return 'outside';
  if (parts[1] === 'cli.ts' || parts[1] === 'cli') return 'cli';
  if (parts[1] === 'core' || parts[1] === 'agent' || parts[1] === 'client') return parts.length > 3 ? `${parts[1]}/${parts[2]}` : `${parts[1]}/.`;
  return parts[1];
}

function allows(from: string, to: string): boolean {
  if (from === to || to === 'outside') return true;
  return (ALLOWED[from] ?? []).some((r) => r === to || (r.endsWith('/*') && to.startsWith(r.slice(0, -1))));
}

export interface Edge {
  from: string;
  to: string;
  /** `import type` / `export type`: no runtime edge, but still a dependency */
  typeOnly: boolean;
}

/** Every relative import of a source text (static, re-export and dynamic), as repo-relative paths. */
export function importsOf(rel: string, text: string): Edge[] {
  const out: Edge[] = [];
  const dir = path.posix.dirname(rel);
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s*)?'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = m[3] ?? m[4];
    out.push({ from: rel, to: path.posix.normalize(path.posix.join(dir, spec)), typeOnly: m[2] !== undefined });
  }
  return out;
}

/** Imports that cross into a room the importer may not use. */
export function violations(edges: readonly Edge[]): string[] {
  return edges.filter((e) => !allows(roomOf(e.from), roomOf(e.to))).map((e) => `${e.from} (${roomOf(e.from)}) imports ${e.to} (${roomOf(e.to)})`);
}

/** Groups of files that import each other in a circle (Tarjan's strongly connected components). */
export function circles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (next.get(v) ?? []).includes(v)) found.push(group.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(repoRoot, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(repoRoot, rel)).isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

const files = sourceFiles('src');
const edges = files.flatMap((f) => importsOf(f, readFileSync(path.join(repoRoot, f), 'utf8')));

test('every import of src/ stays within the rooms its own room may use', () => {
  assert.ok(edges.length > 300, `the import scan found only ${edges.length} imports: the pattern broke`);
  assert.deepEqual(violations(edges), []);
});

test('no files of src/ import each other in a circle', () => {
  assert.deepEqual(circles(edges), []);
});

test('every room of src/ has a rule and a README saying what lives there and what it may import', () => {
  const rooms = new Set(files.map(roomOf));
  for (const room of rooms) {
    assert.ok(ALLOWED[room], `room ${room} has no entry in ALLOWED`);
    const dir = room === 'cli' ? 'src/cli' : `src/${room.replace(/\/\.$/, '')}`;
    assert.ok(existsSync(path.join(repoRoot, dir, 'README.md')), `${dir}/README.md is missing`);
  }
});

test("the gate imports only the contract's rooms: no toolset, no shell module, no agent", () => {
  const gate = edges.filter((e) => e.from.startsWith('src/core/gate/'));
  assert.ok(gate.length >= 5, `the scan found only ${gate.length} imports of core/gate`);
  const outside = gate.map((e) => e.to).filter((to) => !['core/gate', ...CONTRACT_FLOOR].includes(roomOf(to)));
  assert.deepEqual(outside, []);
  // a gate that reached into a toolset again is a violation
  assert.deepEqual(violations(importsOf('src/core/gate/gate.ts', "import { LocalFsToolset } from '../local_fs/toolset.ts';\n")), ['src/core/gate/gate.ts (core/gate) imports src/core/local_fs/toolset.ts (core/local_fs)']);
});

test('the checker catches an upward import, a sideways import between core rooms and a circle', () => {
  const fake = [
    ...importsOf('src/core/paths.ts', "import { x } from './gate/gate.ts';\n"),
    ...importsOf('src/core/shell/runner.ts', "import type { Y } from '../local_fs/file_io.ts';\n"),
    ...importsOf('src/client/state.ts', "export { z } from '../ui/theme.ts';\nconst m = await import('../agent/setup.ts');\n"),
    ...importsOf('src/client/models/models.ts', "import type { ClientStore } from '../state.ts';\n"),
    ...importsOf('src/client/session/views.ts', "import type { ShellRunView } from '../shell/user_shell.ts';\n"),
    ...importsOf('src/ui/a.ts', "import { b } from './b.ts';\n"),
    ...importsOf('src/ui/b.ts', "import {\n  a,\n} from './a.ts';\n"),
  ];
  assert.deepEqual(violations(fake), [
    'src/core/paths.ts (core/.) imports src/core/gate/gate.ts (core/gate)',
    'src/core/shell/runner.ts (core/shell) imports src/core/local_fs/file_io.ts (core/local_fs)',
    'src/client/state.ts (client/.) imports src/ui/theme.ts (ui)',
    'src/client/state.ts (client/.) imports src/agent/setup.ts (agent/.)',
    'src/client/models/models.ts (client/models) imports src/client/state.ts (client/.)',
    'src/client/session/views.ts (client/session) imports src/client/shell/user_shell.ts (client/shell)',
  ]);
  assert.equal(fake[1].typeOnly, true);
  assert.deepEqual(circles(fake), [['src/ui/a.ts', 'src/ui/b.ts']]);
});

/**
 * Places in a source text where built-in toolsets are listed by hand: two of their names as
 * neighbouring items of an array or keys of an object (`['local_fs', 'local_shell']`,
 * `local_fs: …,\n  local_shell: …`). The registry (core/registry/builtin_toolsets.ts) is the one list.
 */
export function handLists(text: string, names: readonly string[]): string[] {
  const alt = names.map((n) => n.replace(/[-]/g, '\\$&')).join('|');
  const item = `(?:'(?:${alt})'|"(?:${alt})"|(?<=^[ \\t]*)(?:${alt})(?=\\s*:))`;
  const pair = new RegExp(`${item}\\s*(?::[^\\n]*)?,\\s*(?:\\/\\/[^\\n]*\\s*)*${item}`, 'gm');
  return [...text.matchAll(pair)].map((m) => m[0].replace(/\s+/g, ' '));
}

test('the built-in toolsets are listed once, in core/registry/builtin_toolsets.ts: a second hand-written list fails', () => {
  const names = CORE_TOOLSETS.map((t) => t.name);
  const found = files.filter((f) => f !== 'src/core/registry/builtin_toolsets.ts').flatMap((f) => handLists(readFileSync(path.join(repoRoot, f), 'utf8'), names).map((l) => `${f}: ${l}`));
  assert.deepEqual(found, []);
  // the check sees what it is for
  assert.deepEqual(handLists("tools: ['local_fs', 'local_shell', 'native-git'],", names), ["'local_fs', 'local_shell'"]);
  assert.equal(handLists("const P = {\n  local_fs: Object.keys(A),\n  'native-git': B,\n};", names).length, 1);
  assert.deepEqual(handLists("if (toolset === 'local_fs') return x; // local_shell, too", names), []);
});

test('comments cite documents the repository has: every docs/*.md named in src/ exists, no outside spec sections', () => {
  for (const f of files) {
    const text = readFileSync(path.join(repoRoot, f), 'utf8');
    assert.doesNotMatch(text, /\b(?:REFERENCE(?:\.md)? ?§?\d|SEAMS ?§)/, `${f} cites a document that is not in the repository`);
    for (const m of text.matchAll(/\bdocs\/([\w-]+\.md)/g)) assert.ok(existsSync(path.join(repoRoot, 'docs', m[1])), `${f} cites docs/${m[1]}, which does not exist`);
  }
});
