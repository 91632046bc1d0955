// OpenAPI documents turned into tools, without a network: Swagger 2.0 and OpenAPI 3.0 schemas
// rewritten as JSON Schema, bodies flattened or kept whole, names derived and bounded, recursive
// schemas cut, external references never followed (a document cannot make cxl read a file), and
// the request each call makes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { planRequest } from '../../../../src/agent/tools/remote/http.ts';
import { dialectOf, operationsOf, type Operation } from '../../../../src/agent/tools/remote/operations.ts';
import { RemoteToolset } from '../../../../src/agent/tools/remote/toolset.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const info = { title: 't', version: '1' };
const ok = { '200': { description: 'ok' } };

function ops(doc: Record<string, unknown>, filters = {}, maxName = 64): Map<string, Operation> {
  const r = operationsOf(doc, dialectOf(doc)!, filters, maxName);
  return new Map(r.ops.map((o) => [o.tool, o]));
}

test('Swagger 2.0: body and formData parameters, collectionFormat, boolean exclusive bounds; file uploads left out', () => {
  const doc = {
    swagger: '2.0',
    info,
    consumes: ['application/json'],
    paths: {
      '/items': {
        get: { operationId: 'find', parameters: [{ name: 'ids', in: 'query', type: 'array', items: { type: 'integer' }, collectionFormat: 'multi' }, { name: 'min', in: 'query', type: 'number', minimum: 0, exclusiveMinimum: true }], responses: ok },
        post: { operationId: 'create', parameters: [{ name: 'item', in: 'body', required: true, schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, note: { type: 'string', 'x-nullable': true } } } }], responses: ok },
      },
      '/login': { post: { operationId: 'login', consumes: ['application/x-www-form-urlencoded'], parameters: [{ name: 'user', in: 'formData', type: 'string', required: true }, { name: 'pass', in: 'formData', type: 'string' }], responses: ok } },
      '/upload': { post: { operationId: 'upload', consumes: ['multipart/form-data'], parameters: [{ name: 'f', in: 'formData', type: 'file' }], responses: ok } },
    },
  };
  assert.equal(dialectOf(doc), '2.0');
  const r = operationsOf(doc, '2.0');
  assert.deepEqual(r.skipped, ['upload (POST /upload): file uploads are not supported']);
  const m = new Map(r.ops.map((o) => [o.tool, o]));
  assert.deepEqual(m.get('find')!.inputSchema.properties, { ids: { type: 'array', items: { type: 'integer' } }, min: { type: 'number', exclusiveMinimum: 0 } });
  assert.deepEqual(m.get('create')!.inputSchema.required, ['name']);
  assert.deepEqual(m.get('create')!.inputSchema.properties.note, { type: ['string', 'null'] });
  const base = new URL('http://127.0.0.1:1/api');
  assert.equal(planRequest(base, m.get('find')!, { ids: [1, 2], min: 0.5 }, 'x').url.href, 'http://127.0.0.1:1/api/items?ids=1&ids=2&min=0.5');
  const login = planRequest(base, m.get('login')!, { user: 'a b', pass: 'p&q' }, 'x');
  assert.equal(login.contentType, 'application/x-www-form-urlencoded');
  assert.equal(login.body, 'user=a+b&pass=p%26q');
});

test('OpenAPI 3.0: nullable and enums, readOnly left out of requests, bodies that cannot be flattened kept whole', () => {
  const doc = {
    openapi: '3.0.3',
    info,
    paths: {
      '/things/{id}': {
        put: {
          operationId: 'replace',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['id', 'state'], properties: { id: { type: 'string', readOnly: true }, state: { type: 'string', enum: ['on', 'off'], nullable: true }, size: { type: 'integer', maximum: 9, exclusiveMaximum: true } } } } } },
          responses: ok,
        },
        patch: {
          operationId: 'tags',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } },
          responses: ok,
        },
      },
      '/notes': { post: { operationId: 'note', requestBody: { required: true, content: { 'text/plain': { schema: { type: 'string' } } } }, responses: ok } },
      // a body property named like a parameter: the body stays one argument
      '/search': { get: { operationId: 'search', requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: ok } },
      '/clash': { post: { operationId: 'clash', parameters: [{ name: 'name', in: 'query', schema: { type: 'string' } }], requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } } }, responses: ok } },
    },
  };
  const m = ops(doc);
  assert.deepEqual(operationsOf(doc, '3.0').skipped, ['search (GET /search): a GET with a request body cannot be sent (fetch refuses it)']);
  const replace = m.get('replace')!;
  // the body's id is readOnly (the server's): only the path's id remains, state is required
  assert.deepEqual(Object.keys(replace.inputSchema.properties), ['id', 'state', 'size']);
  assert.deepEqual(replace.inputSchema.required, ['id', 'state']);
  assert.deepEqual(replace.inputSchema.properties.state, { type: ['string', 'null'], enum: ['on', 'off', null] });
  assert.deepEqual(replace.inputSchema.properties.size, { type: 'integer', exclusiveMaximum: 9 });
  assert.equal(replace.body?.mode, 'flat');
  const put = planRequest(new URL('http://h:1'), replace, { id: 'a/b', state: 'on' }, 'x');
  assert.equal(put.url.pathname, '/things/a%2Fb');
  assert.equal(put.body, '{"state":"on"}');
  const tags = m.get('tags')!;
  assert.equal(tags.body?.mode, 'whole');
  assert.deepEqual(tags.inputSchema.properties.body, { type: 'array', items: { type: 'string' } });
  assert.deepEqual(tags.inputSchema.required, ['id'], 'an optional body is not required');
  assert.equal(planRequest(new URL('http://h:1'), tags, { id: 'x', body: ['a'] }, 'x').body, '["a"]');
  const note = planRequest(new URL('http://h:1'), m.get('note')!, { body: 'hello' }, 'x');
  assert.deepEqual([note.body, note.contentType], ['hello', 'text/plain']);
  assert.deepEqual(Object.keys(m.get('clash')!.inputSchema.properties), ['name', 'body']);
});

test('names: operationIds sanitised, derived names stable, duplicates numbered, every name short enough for `<service>__<tool>`', () => {
  const long = 'a'.repeat(80);
  const doc = {
    openapi: '3.1.0',
    info,
    paths: {
      '/a/{x}': { get: { responses: ok }, post: { operationId: 'pets.create/v2', responses: ok } },
      '/b': { get: { operationId: long, responses: ok }, post: { operationId: `${long}b`, responses: ok } },
      '/c': { get: { operationId: 'dup', responses: ok }, post: { operationId: 'dup', responses: ok } },
    },
  };
  const names = [...ops(doc, {}, 50).keys()];
  assert.deepEqual(names.slice(0, 2), ['get_a_x', 'pets_create_v2']);
  assert.equal(names[2], 'a'.repeat(50));
  assert.equal(names[3], `${'a'.repeat(48)}_2`);
  assert.deepEqual(names.slice(4), ['dup', 'dup_2']);
  assert.ok(names.every((n) => /^[A-Za-z0-9_-]{1,50}$/.test(n)));
  // a filter never renames what it keeps
  assert.deepEqual([...ops(doc, { include: ['dup_2'] }, 50).keys()], ['dup_2']);
  assert.deepEqual([...ops(doc, { exclude: ['get_a_x'] }, 50).keys()][0], 'pets_create_v2');
});

test('a recursive schema is followed once and then accepts anything; the tool still validates and serialises', async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-remote-ops-')));
  dirs.push(dir);
  const doc = {
    openapi: '3.1.0',
    info,
    paths: { '/tree': { post: { operationId: 'plant', requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } }, responses: ok } } },
    components: { schemas: { Node: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } } } },
  };
  fs.writeFileSync(path.join(dir, 'tree.json'), JSON.stringify(doc));
  const ts = await RemoteToolset.load({ name: 'trees', url: 'http://127.0.0.1:9', openapi: 'tree.json', baseDir: dir }, { env: {}, maxOutputBytes: 1000 });
  const schema = ts.list()[0].inputSchema;
  assert.deepEqual(schema.properties.children, { type: 'array', items: { description: '(recursive: the same shape as Node)' } });
  assert.ok(JSON.stringify(schema).length < 400);
  assert.equal(ts.preview('plant', { name: 'root', children: [{ name: 'leaf', children: [] }] }).access, 'write');
  assert.throws(() => ts.preview('plant', { children: [] }), (e: { code: string }) => e.code === 'bad_args');
});

test('external $refs are never followed: a document cannot make cxl read a local file or call another host', async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-remote-ref-')));
  dirs.push(dir);
  const secret = path.join(dir, 'secret.json');
  fs.writeFileSync(secret, JSON.stringify({ type: 'string', description: 'SECRET-CONTENT-4411' }));
  const doc = {
    openapi: '3.1.0',
    info,
    paths: {
      '/x': {
        post: {
          operationId: 'x',
          parameters: [{ name: 'q', in: 'query', schema: { $ref: `file://${secret}` } }, { name: 'r', in: 'query', schema: { $ref: 'secret.json' } }, { name: 's', in: 'query', schema: { $ref: 'http://127.0.0.1:9/schema.json' } }],
          responses: ok,
        },
      },
    },
  };
  fs.writeFileSync(path.join(dir, 'doc.json'), JSON.stringify(doc));
  const ts = await RemoteToolset.load({ name: 'refs', url: 'http://127.0.0.1:9', openapi: 'doc.json', baseDir: dir }, { env: {}, maxOutputBytes: 1000 });
  const text = JSON.stringify(ts.list());
  assert.doesNotMatch(text, /SECRET-CONTENT-4411/);
  assert.match(text, /which is not followed/);
});

test('a schema that reuses another many times over is cut at a bounded size, quickly', () => {
  // 14 levels, each with 10 properties of the next level's schema: 10^14 nodes written out
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < 14; i++) {
    const props: Record<string, unknown> = {};
    for (let k = 0; k < 10; k++) props[`p${k}`] = i === 13 ? { type: 'string' } : { $ref: `#/components/schemas/L${i + 1}` };
    schemas[`L${i}`] = { type: 'object', properties: props };
  }
  const doc = { openapi: '3.1.0', info, paths: { '/x': { post: { operationId: 'x', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/L0' } } } }, responses: ok } } }, components: { schemas } };
  const t0 = Date.now();
  const op = ops(doc).get('x')!;
  assert.ok(Date.now() - t0 < 2000, `${Date.now() - t0} ms`);
  const text = JSON.stringify(op.inputSchema);
  assert.ok(text.length < 200_000, `${text.length} characters`);
  assert.match(text, /too large to offer whole/);
});

test('a document path that would leave the service (`//host/…`, `/../…`) is refused before anything is sent', () => {
  const doc = { openapi: '3.1.0', info, paths: { '//127.0.0.2:9/steal': { get: { operationId: 'away', responses: ok } }, '/../admin': { get: { operationId: 'up', responses: ok } } } };
  const m = ops(doc);
  // at the root, `//host/…` would be read as another host
  assert.throws(() => planRequest(new URL('http://127.0.0.1:9'), m.get('away')!, {}, 'svc.away'), (e: { code: string; message: string }) => e.code === 'bad_args' && /outside http:\/\/127\.0\.0\.1:9\//.test(e.message));
  // under a base path it stays a path of the service
  assert.equal(planRequest(new URL('http://127.0.0.1:9/api'), m.get('away')!, {}, 'svc.away').url.origin, 'http://127.0.0.1:9');
  assert.throws(() => planRequest(new URL('http://127.0.0.1:9/api'), m.get('up')!, {}, 'svc.up'), (e: { code: string; message: string }) => e.code === 'bad_args' && /outside http:\/\/127\.0\.0\.1:9\/api/.test(e.message));
});
