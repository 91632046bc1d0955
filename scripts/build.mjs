// Builds src/ into dist/ for Node: one ESM bundle per entry, subcommands split into chunks so
// `cxl --version` loads almost nothing. Dependencies are bundled into those chunks too: resolving
// and compiling hundreds of small files out of node_modules was most of a cold `cxl tool` (the
// MCP SDK and zod alone are ~400 files), and of the UI's first frame (Ink, React and their ~40
// packages: 490 → 300 ms). Ink, React and the reconciler are bundled together, so they stay one
// copy; yoga's wasm is inlined in its JavaScript. Left external: what needs its own files at run
// time (ripgrep's binary path, deno's binary) and react-devtools-core (Ink imports it only in
// development; it is not installed).
// dist/ is never emptied first: a test run elsewhere may be executing it. Files this build did
// not write are removed afterwards (hash-named chunks never collide, so none is in use twice).
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outdir = path.join(root, 'dist');

/** `source` with `from` replaced by `to`; a dependency's update that changed the text fails the build rather than the start. */
function patched(source, from, to, what) {
  const out = source.split(from).join(to);
  if (out === source) throw new Error(`build: ${what} no longer has the text the patch expects (see scripts/build.mjs)`);
  return out;
}
// Two costs of the UI's first frame, taken out of the bundle:
// - string-width (Ink's measure of every text): its first line that is not ASCII compiles a
//   \p{RGI_Emoji} regular expression and starts an Intl.Segmenter, ~90 ms under Node; the UI's
//   own lines (box drawing, arrows, ·) are answered by src/ui/text_width.ts first, the rest as before.
//   That expression is also made when the module loads: 12.6 ms of every start under Deno (its
//   code cache makes the literal parse its Unicode set again each time), ~1 ms under Node.
// - yoga's wasm, inlined as base64, is loaded by emscripten through fetch() when there is one: on
//   Node that loads undici (~35 ms); without fetch it decodes the same bytes itself.
const uiStart = {
  name: 'ui-start',
  setup(b) {
    const narrow = path.join(root, 'src/ui/text_width.ts');
    b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, ({ path: file }) => {
      let source = patched(readFileSync(file, 'utf8'), 'export default function stringWidth(', 'function fullStringWidth(', file);
      // Ink's copy builds its \p{RGI_Emoji} expression on first use, not as it loads (12.6 ms under Deno)
      if (file === path.join(root, 'node_modules', 'string-width', 'index.js')) {
        source = patched(source, 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;', 'let __cxlRgiEmoji; const rgiEmojiRegex = { test: (s) => (__cxlRgiEmoji ??= /^\\p{RGI_Emoji}$/v).test(s) };', file);
      }
      return {
        contents: `import { narrowWidth as __cxlNarrowWidth } from ${JSON.stringify(narrow)};\n${source}\nexport default function stringWidth(string, options) { return (options === undefined && typeof string === 'string' ? __cxlNarrowWidth(string) : undefined) ?? fullStringWidth(string, options); }\n`,
        loader: 'js',
        resolveDir: path.dirname(file),
      };
    });
    b.onLoad({ filter: /[\\/]yoga-wasm-base64-esm\.js$/ }, ({ path: file }) => ({
      contents: patched(readFileSync(file, 'utf8'), '"function"!=typeof fetch', 'true', file),
      loader: 'js',
    }));
  },
};
// bundled CommonJS packages call require() for Node built-ins; an ESM chunk has none
const BANNER = "import { createRequire as __cxlRequire } from 'node:module'; const require = __cxlRequire(import.meta.url);";
const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/main.ts'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['@vscode/ripgrep', 'deno', 'react-devtools-core'],
  // bundled CommonJS packages call require() for Node built-ins; an ESM chunk has none
  banner: { js: BANNER },
  minifyWhitespace: true,
  minifySyntax: true,
  jsx: 'automatic',
  plugins: [uiStart],
  // React, its reconciler and scheduler as their production builds, the development builds left
  // out (the reconciler alone is 754 KB with both: ~9 ms of the UI's start under Deno to read and
  // deserialise, more under Node, which parses it). Only the free global `process` is replaced:
  // cxl's own modules import theirs, and the UI still hands the user's NODE_ENV to what it runs.
  define: { 'process.env.NODE_ENV': '"production"' },
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
// The scripted subcommands (tool, check, config), each as its own CommonJS file
// (dist/scripted-<name>.cjs, from src/cli/scripted_<name>.ts): bin/cxl.js compiles it with a V8
// code cache, which only a classic script can use on Node 20. One file each, so a start reads and
// deserialises only its own subcommand's code (`cxl check` needs no local_fs, `cxl tool` no
// command checker until local_shell is opened). import() becomes a call of the bundled module
// (a lazy initialiser: a built-in toolset's implementation runs only when it is opened), or a
// require() of the packages only some calls load (an MCP server, a remote service's document, a
// git call): they stay out, so the bundle and its cache hold what every start runs.
const SCRIPTED = ['tool', 'check', 'config'];
const scripted = [];
for (const sub of SCRIPTED) {
  const outfile = path.join(outdir, `scripted-${sub}.cjs`);
  scripted.push(await build({
    absWorkingDir: root,
    entryPoints: [`src/cli/scripted_${sub}.ts`],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['@vscode/ripgrep', 'deno', '@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*', '@readme/openapi-parser', 'js-yaml', 'ajv', 'ajv/*', 'isomorphic-git'],
    supported: { 'dynamic-import': false },
    // a module that finds a file beside itself asks import.meta.url: here, the bundle's own URL
    define: { 'import.meta.url': '__cxlModuleUrl' },
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    logLevel: 'warning',
  }));
  // esbuild gives each `import fs from 'node:fs'` of the bundle its own namespace object, copying
  // every property of the built-in as a getter (__toESM): ~70 copies of fs, path, process and os,
  // 3-5 ms of every start. One copy per built-in, shared, is the same object to every reader.
  const bundled = readFileSync(outfile, 'utf8');
  const shared = bundled
    .replace(/__toESM\(require\("(node:[a-z_/]+)"\),1\)/g, '__cxlBuiltin("$1")')
    .replace(/^"use strict";/, '"use strict";var __cxlModuleUrl=require("node:url").pathToFileURL(__filename).href,__cxlBuiltins=new Map,__cxlBuiltin=n=>{let m=__cxlBuiltins.get(n);return m||__cxlBuiltins.set(n,m=__toESM(require(n),1)),m};');
  if (shared === bundled) throw new Error(`build: scripted-${sub}.cjs no longer has the shape the built-in sharing expects (see scripts/build.mjs)`);
  writeFileSync(outfile, shared);
}
// The early agent under Node (src/cli/early_agent_node.ts): bin/cxl.js requires it before the
// ES-module loader starts, so it is CommonJS.
const early = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/early_agent_node.ts'],
  outfile: path.join(outdir, 'early_agent.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifySyntax: true,
  metafile: true,
  logLevel: 'warning',
});
// The entry, dist/cli.js, on its own: it imports nothing statically, so under Deno (where it is
// what runs) the agent is spawned before Deno's Node layer starts (src/cli.ts); then main.js. In
// the main build esbuild would give it the chunk of its helpers, whose banner imports node:module.
const entry = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts'],
  outfile: path.join(outdir, 'cli.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [{ name: 'main-chunk', setup: (b) => b.onResolve({ filter: /^\.\/cli\/main\.ts$/ }, () => ({ path: './main.js', external: true })) }],
  minifySyntax: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
const entrySource = readFileSync(path.join(outdir, 'cli.js'), 'utf8');
if (/^\s*import\s*[^(\s]/m.test(entrySource) || /\brequire\s*\(/.test(entrySource) || !entrySource.includes('import("./main.js")')) {
  throw new Error('build: dist/cli.js must import nothing statically and then import ./main.js (see src/cli.ts)');
}
const written = new Set([...Object.keys(result.metafile.outputs), ...scripted.flatMap((r) => Object.keys(r.metafile.outputs)), ...Object.keys(early.metafile.outputs), ...Object.keys(entry.metafile.outputs)].map((f) => path.resolve(root, f)));
for (const name of readdirSync(outdir)) {
  const file = path.join(outdir, name);
  if (!written.has(file)) rmSync(file, { recursive: true, force: true });
}
