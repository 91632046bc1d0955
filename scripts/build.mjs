// Builds src/ into dist/ for Node: one ESM bundle per entry, dependencies left external,
// subcommands split into chunks so `cxl --version` loads almost nothing.
// dist/ is never emptied first: a test run elsewhere may be executing it. Files this build did
// not write are removed afterwards (hash-named chunks never collide, so none is in use twice).
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outdir = path.join(root, 'dist');
const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  jsx: 'automatic',
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
const written = new Set(Object.keys(result.metafile.outputs).map((f) => path.resolve(root, f)));
for (const name of readdirSync(outdir)) {
  const file = path.join(outdir, name);
  if (!written.has(file)) rmSync(file, { recursive: true, force: true });
}
