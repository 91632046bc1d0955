// The worker jq runs in: jq (jq-wasm 1.0.1, jq 1.7.1 in WebAssembly) answers synchronously and
// would block whatever thread runs it, so it runs here, where the toolset can end it at its
// deadline (runner.ts terminates the worker). Plain JavaScript, so the same file runs from the
// sources and from an installed package under Node and Deno alike. One request at a time:
// {id, program, input, flags} in, jq's output or error out (JqRequest and JqReply in runner.ts).
//
// jq-wasm moves jq's standard streams one byte at a time and copies the whole buffer for each
// byte (`stdin = stdin.slice(1)`; a new array one byte longer for every byte of output), which
// is quadratic: a 250 KB document took 13 s to read, 64 KB of output a second. Its glue code is
// loaded here with those three statements rewritten to take a view (stdin) and to grow the
// output buffers by doubling, and nothing else changed; each rewrite must match exactly as
// expected, or the worker refuses to start (a newer jq-wasm is checked, not trusted).
//
// A WebAssembly trap (an abort, memory out of bounds, the stack exhausted) leaves the module
// unusable: the reply says so and the toolset ends this worker.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);

/** `buf` with one more byte: a view of a buffer grown by doubling, so appending stays linear. */
function appendByte(buf, byte) {
  if (buf.byteOffset === 0 && buf.length < buf.buffer.byteLength) {
    const view = new Uint8Array(buf.buffer, 0, buf.length + 1);
    view[buf.length] = byte;
    return view;
  }
  const next = new Uint8Array(Math.max(256, buf.length * 2));
  next.set(buf);
  next[buf.length] = byte;
  return next.subarray(0, buf.length + 1);
}

const REWRITES = [
  { what: 'stdin', from: /stdinBuffer = stdinBuffer\.slice\(1\);/g, to: 'stdinBuffer = stdinBuffer.subarray(1);', count: 1 },
  {
    what: 'stdout and stderr',
    from: /const tmp = new Uint8Array\((std(?:out|err)Buffer)\.length \+ 1\);\s*tmp\.set\(\1, 0\);\s*tmp\[tmp\.length - 1\] = charCode;\s*\1 = tmp;/g,
    to: '$1 = __cxlAppendByte($1, charCode);',
    count: 2,
  },
];

function loadJq() {
  const file = require.resolve('jq-wasm/dist/build/jq.js');
  let src = fs.readFileSync(file, 'utf8');
  for (const r of REWRITES) {
    const found = src.match(r.from)?.length ?? 0;
    if (found !== r.count) throw new Error(`jq-wasm's ${file} is not the version this worker was written for (its ${r.what} code was found ${found} times, not ${r.count}); pin jq-wasm 1.0.1.`);
    src = src.replace(r.from, r.to);
  }
  const module = { exports: {} };
  new Function('module', 'exports', 'require', '__filename', '__dirname', '__cxlAppendByte', src)(module, module.exports, require, file, path.dirname(file), appendByte);
  return module.exports();
}

let instance;

parentPort.on('message', async (m) => {
  try {
    instance ??= loadJq();
    parentPort.postMessage({ id: m.id, ok: true, out: await (await instance).raw(m.input, m.program, m.flags) });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const crashed = err instanceof WebAssembly.RuntimeError || err instanceof RangeError || /Aborted\(|RuntimeError|memory access out of bounds|call stack/i.test(msg);
    parentPort.postMessage({ id: m.id, ok: false, err: msg, crashed });
  }
});
