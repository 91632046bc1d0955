#!/usr/bin/env node
// The Node entry point: plain JavaScript built into dist/ by `npm run build` (run by `prepare`).
// `cxl tool`, `cxl check` and `cxl config` (started cold from scripts, many times) run from one
// bundle with a code cache (bin/code_cache.js); CXL_NO_CODE_CACHE=1 turns that off.
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const sub = process.argv[2];
if ((sub === 'tool' || sub === 'check' || sub === 'config') && !process.env.CXL_NO_CODE_CACHE) {
  const { runCached } = await import('./code_cache.js');
  runCached(fileURLToPath(new URL('../dist/scripted.cjs', import.meta.url)), sub);
} else {
  await import('../dist/cli.js');
}
