#!/usr/bin/env node
// The Node entry point: plain JavaScript built into dist/ by `npm run build` (run by `prepare`).
import '../dist/cli.js';
