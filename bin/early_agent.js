// `cxl` (the UI) with the built-in agent: the agent (`cxl acp`) is spawned here, before the
// ES-module loader and the UI's modules load (~100 ms of a start under Node; under Deno, where
// dist/cli.js is the entry, src/cli.ts calls this before anything else loads), so it starts on
// the other core meanwhile. Only for a command line read the same way src/cli/ui.ts reads it (flags it
// knows, a first prompt of several words); anything else (--agent, --help, a subcommand, a flag
// it does not know) spawns nothing here and the UI spawns as before. The UI adopts the process
// only if the command line, directory and environment it computes are the same (src/cli/ui.ts,
// adoptEarlyAgent), else it kills it. CommonJS, unbundled: it runs before anything is compiled.
'use strict';
/* global Deno */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const VALUE_FLAGS = ['--cwd', '--model', '--envelope', '--provider'];
const BOOL_FLAGS = ['--continue', '--trust-project'];

/** The built-in agent's command line and directory for this UI command line, or undefined when it is not one read here. */
function plan(argv) {
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-') && !/\s/.test(first)) return undefined; // a subcommand, or a word entry.ts may call a typo
  const v = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-')) continue; // the prompt
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    if (VALUE_FLAGS.includes(name)) {
      const value = eq < 0 ? argv[++i] : a.slice(eq + 1);
      if (value === undefined || (eq < 0 && value.startsWith('-'))) return undefined;
      v[name] = value;
    } else if (BOOL_FLAGS.includes(name) && eq < 0) v[name] = true;
    else if (name === '--resume') {
      if (eq < 0 && i + 1 < argv.length && !argv[i + 1].startsWith('-')) i++; // its id
    } else return undefined; // --agent, --help, a typo: the UI decides
  }
  if (v['--provider'] === '') return undefined;
  let cwd;
  try {
    cwd = fs.realpathSync(path.resolve(v['--cwd'] ?? process.cwd()));
    if (!fs.statSync(cwd).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const entry = process.argv[1];
  if (!entry) return undefined;
  // as builtinAgentArgv and moduleCommand (src/core/platform/runtime.ts) make it: Deno needs
  // `run -A`; no loader flags under Node, since bin/ runs the built files
  const file = path.resolve(entry);
  const agentArgv = typeof Deno !== 'undefined' ? [Deno.execPath(), 'run', '-A', '--no-check', file, 'acp'] : [process.execPath, file, 'acp'];
  if (v['--provider']) agentArgv.push('--provider', v['--provider']);
  if (v['--model']) agentArgv.push('--model', v['--model']);
  if (v['--envelope']) agentArgv.push('--envelope', v['--envelope']);
  if (v['--trust-project']) agentArgv.push('--trust-project');
  return { argv: agentArgv, cwd };
}

/** Spawns the agent for this command line when it is the UI's with the built-in agent; the UI finds it at globalThis[Symbol.for('cxl.earlyAgent')]. */
function spawnEarlyAgent(argv) {
  if (process.execArgv.length > 0 || !process.stdin.isTTY || !process.stdout.isTTY) return; // loaders, inspectors, no terminal: the UI's own way
  const p = plan(argv);
  if (!p) return;
  const env = { ...process.env };
  const early = { argv: p.argv, cwd: p.cwd, env, child: undefined, error: undefined };
  // as AgentProcess spawns it: pipes, its own process group
  early.child = spawn(p.argv[0], p.argv.slice(1), { cwd: p.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  // until the UI adopts it: an error event must not crash, and is kept for the report
  early.child.on('error', (err) => (early.error ??= err));
  early.child.stdin.on('error', () => {});
  globalThis[Symbol.for('cxl.earlyAgent')] = early;
}

module.exports = { plan, spawnEarlyAgent };
