// Runs a CommonJS bundle with a V8 code cache kept in the user's cache directory, so a cold start
// deserialises compiled code instead of parsing and compiling ~1.5 MB again (Node 20 has no
// module compile cache; a classic script's `cachedData` is what it offers). One cache file per
// bundle, Node version and subcommand (each warms the functions its runs use). Anything wrong
// with the cache (missing, stale, corrupt, unwritable directory) only costs the compile: V8
// checks the data against the source and the flags and rejects what does not fit.
'use strict';
const fs = require('node:fs');
const { createRequire, Module } = require('node:module');
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');

/** Where the code cache lives: $CXL_CODE_CACHE_DIR, else $XDG_CACHE_HOME/cxl/code-cache, else ~/.cache/cxl/code-cache. */
function codeCacheDir(env = process.env) {
  if (env.CXL_CODE_CACHE_DIR) return env.CXL_CODE_CACHE_DIR;
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'cxl', 'code-cache');
}

function runCached(file, label) {
  const source = fs.readFileSync(file, 'utf8');
  const st = fs.statSync(file);
  const dir = codeCacheDir();
  const stem = `${path.basename(file)}-${label}-`;
  const name = `${stem}${process.version}-${process.arch}-${st.size}-${Math.trunc(st.mtimeMs)}.bin`;
  const cacheFile = path.join(dir, name);
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    // written at exit, when the run has compiled the functions it uses
    process.once('exit', () => saveCache(script, file, dir, cacheFile, stem));
  }
  const mod = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext().call(mod.exports, mod.exports, createRequire(file), mod, file, path.dirname(file));
}

function saveCache(script, file, dir, cacheFile, stem) {
  try {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cacheFile);
    // caches of older builds or Node versions of the same bundle and subcommand are dead, and so
    // are those of a bundle this build no longer has (the one `scripted.cjs` before the split)
    const bundles = new Set(fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.cjs')));
    for (const f of fs.readdirSync(dir)) {
      if (!f.endsWith('.bin') || f === path.basename(cacheFile)) continue;
      if (f.startsWith(stem) || !bundles.has(f.slice(0, f.indexOf('.cjs-') + 4))) fs.rmSync(path.join(dir, f), { force: true });
    }
  } catch {
    // a read-only or full cache directory: the next start compiles again
  }
}

module.exports = { runCached };
