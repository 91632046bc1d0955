// Builds src/ into dist/ for Node: one ESM bundle per entry, dependencies left external,
// subcommands split into chunks so `cxl --version` loads almost nothing.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  jsx: 'automatic',
  sourcemap: 'linked',
  logLevel: 'warning',
});
