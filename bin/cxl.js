#!/usr/bin/env node
// The Node entry point: plain JavaScript built into dist/ by `npm run build` (run by `prepare`).
// CommonJS (bin/package.json): an ES-module entry starts Node's ESM loader first, ~5 ms of every
// start. `cxl tool`, `cxl check` and `cxl config` (started cold from scripts, many times) run from
// their own bundle each with a code cache (bin/code_cache.js); CXL_NO_CODE_CACHE=1 turns that off. The UI
// spawns its built-in agent before anything else loads (dist/early_agent.cjs, from
// src/cli/early_agent_node.ts).
'use strict';
const path = require('node:path');

const sub = process.argv[2];
if ((sub === 'tool' || sub === 'check' || sub === 'config') && !process.env.CXL_NO_CODE_CACHE) {
  require('./code_cache.js').runCached(path.join(__dirname, '..', 'dist', `scripted-${sub}.cjs`), sub);
} else {
  // the UI's agent starts now, while the rest loads (src/cli/early_agent.ts)
  if (sub === undefined || sub.startsWith('-') || /\s/.test(sub)) require('../dist/early_agent.cjs').spawnEarlyAgent(process.argv.slice(2));
  import('../dist/cli.js');
}
