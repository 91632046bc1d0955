// Remote tools: what the layer adds over a bare fetch. One GET call through RemoteToolset
// (schema check, request plan, fetch, capped read, JSON parse) against fetch + JSON.parse of the
// same URL; loading a document of 50 and 200 operations against fetching and parsing it (and
// how the cost grows with its size); and `cxl tool read_file` in a project that configures a
// remote service against one that does not (the OpenAPI parser must not load for it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { RemoteToolset } from '../src/agent/tools/remote/toolset.ts';
import { runCxl } from '../test/helpers/cxl.ts';
import { median, report, timeMs } from './report.ts';

function documentOf(n: number): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    paths[`/things${i}/{id}`] = {
      get: { operationId: `getThing${i}`, summary: `Get thing ${i}`, parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }, { name: 'fields', in: 'query', schema: { type: 'array', items: { type: 'string' } } }], responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } } },
      put: { operationId: `putThing${i}`, summary: `Replace thing ${i}`, parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, responses: { '200': { description: 'ok' } } },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'bench', version: '1' },
    paths,
    components: { schemas: { Thing: { type: 'object', required: ['name'], properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, owner: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } } } } } } },
  };
}

const docs = new Map([50, 200].map((n) => [n, JSON.stringify(documentOf(n))]));
const thing = JSON.stringify({ id: 7, name: 'seven', tags: ['a', 'b'], owner: { name: 'x', email: 'x@example.com' } });
const http = createServer((req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  const m = /^\/d(\d+)\/openapi\.json$/.exec(u.pathname);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(m ? docs.get(Number(m[1])) : thing);
});
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

// one call
const ts = await RemoteToolset.load({ name: 'b', url: base, openapi: '/d50/openapi.json' }, { env: {}, maxOutputBytes: 32_768 });
const N = 200;
const ours = await timeMs(async () => {
  for (let i = 0; i < N; i++) await ts.call('getThing3', { id: 7, fields: ['name'] });
});
const bare = await timeMs(async () => {
  for (let i = 0; i < N; i++) JSON.parse(await (await fetch(`${base}/things3/7?fields=name`)).text());
});
report({ name: 'remote tool GET call', ours: ours / N, reference: bare / N, unit: 'ms/call', against: 'fetch + JSON.parse', target: '<= 3x' });

// loading documents
const loads: number[] = [];
for (const n of [50, 200]) {
  const load = await timeMs(() => RemoteToolset.load({ name: 'b', url: base, openapi: `/d${n}/openapi.json` }, { env: {}, maxOutputBytes: 32_768 }), 5);
  const parse = await timeMs(async () => JSON.parse(await (await fetch(`${base}/d${n}/openapi.json`)).text()), 5);
  loads.push(load);
  report({ name: `load a document of ${n * 2} operations`, ours: load, reference: parse, unit: 'ms', against: 'fetch + JSON.parse of it' });
}
report({ name: 'document load growth, 400 vs 100 operations', ours: loads[1], reference: loads[0], unit: 'ms', against: '100 operations', target: '<= 6x (4x the size)' });

// `cxl tool` start-up in a project with a remote service configured (not named) and without
const dir = mkdtempSync(path.join(tmpdir(), 'cxl-bench-remote-'));
const withRemote = path.join(dir, 'with');
const without = path.join(dir, 'without');
for (const d of [withRemote, without]) {
  mkdirSync(path.join(d, '.contenox'), { recursive: true });
  writeFileSync(path.join(d, 'a.txt'), 'hello\n');
}
writeFileSync(path.join(withRemote, '.contenox', 'agents.toml'), `[remote_tools.b]\nurl = "${base}"\nopenapi = "/d200/openapi.json"\n`);
const cli = (cwd: string) => async () => {
  const r = await runCxl(['tool', 'read_file', '{"path":"a.txt"}'], { cwd, env: { HOME: dir } });
  if (r.code !== 0) throw new Error(r.stderr);
};
// interleaved, so machine load falls on both alike
const times: [number[], number[]] = [[], []];
await cli(withRemote)();
await cli(without)();
for (let i = 0; i < 9; i++) {
  for (const [k, d] of [withRemote, without].entries()) {
    const t0 = performance.now();
    await cli(d)();
    times[k].push(performance.now() - t0);
  }
}
const startWith = median(times[0]);
const startWithout = median(times[1]);
report({ name: 'cxl tool read_file with [remote_tools] configured', ours: startWith, reference: startWithout, unit: 'ms', against: 'no [remote_tools]', target: '<= 1.15x' });

rmSync(dir, { recursive: true, force: true });
http.closeAllConnections();
http.close();
