#!/usr/bin/env node
// The Node entry point: plain JavaScript built into dist/ by `npm run build` (run by `prepare`).
// CommonJS (bin/package.json): an ES-module entry starts Node's ESM loader first, ~5 ms of every
// start. `cxl tool`, `cxl check` and `cxl config` (started cold from scripts, many times) run from
// one bundle with a code cache (bin/code_cache.js); CXL_NO_CODE_CACHE=1 turns that off.
'use strict';
const path = require('node:path');

const sub = process.argv[2];
if ((sub === 'tool' || sub === 'check' || sub === 'config') && !process.env.CXL_NO_CODE_CACHE) {
  require('./code_cache.js').runCached(path.join(__dirname, '..', 'dist', 'scripted.cjs'), sub);
} else {
  import('../dist/cli.js');
}
