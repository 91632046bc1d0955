// `[remote_tools.<name>]` in agents.toml: what is accepted, every mistake reported at its
// file:line, header values never repeated in a message, the entry in an [agents.<name>] section,
// and layering (a later level replaces a whole entry).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, formatIssue, mergeLayers, parseConfigText } from '../../src/config/load.ts';

function problems(toml: string): string[] {
  try {
    parseConfigText('agents.toml', toml);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map(formatIssue);
    throw err;
  }
  return [];
}

test('a full entry is accepted: url, openapi, headers with {{env:VAR}}, timeout, include, exclude', () => {
  const data = parseConfigText(
    'agents.toml',
    '[remote_tools.pets]\nurl = "http://127.0.0.1:8000/api"\nopenapi = "specs/pets.yaml"\ntimeout = "5s"\ninclude = ["listPets", "get*"]\nexclude = ["deletePet"]\n[remote_tools.pets.headers]\nAuthorization = "Bearer {{env:PETS_TOKEN}}"\n',
  );
  assert.deepEqual(data.remote_tools, {
    pets: { url: 'http://127.0.0.1:8000/api', openapi: 'specs/pets.yaml', timeoutMs: 5000, include: ['listPets', 'get*'], exclude: ['deletePet'], headers: { Authorization: 'Bearer {{env:PETS_TOKEN}}' } },
  });
});

test('each bad entry is reported with file:line and what to do; a header value is never repeated', () => {
  const toml = [
    '[remote_tools.a]', // 1
    'url = "ftp://x"', // 2
    '[remote_tools.b]', // 3
    'openapi = "/o.json"', // 4
    '[remote_tools.c]', // 5
    'url = "http://user:pw@127.0.0.1"', // 6
    'timeout = "soon"', // 7
    'retries = 3', // 8
    '[remote_tools.c.headers]', // 9
    'X-Key = "{{secret:ABC-hunter2}}"', // 10
    'X-Num = 12345', // 11
    '[remote_tools.local_fs]', // 12
    'url = "http://127.0.0.1"', // 13
    '[remote_tools."bad.name"]', // 14
    'url = "http://127.0.0.1"', // 15
  ].join('\n');
  const p = problems(toml);
  const at = (line: number, re: RegExp) => assert.ok(p.some((x) => x.startsWith(`agents.toml:${line}:`) && re.test(x)), `line ${line} ${re}:\n${p.join('\n')}`);
  at(2, /uses ftp; only http and https/);
  at(3, /needs `url`, the service's base URL/);
  at(6, /holds credentials; put them in headers/);
  at(7, /is not a duration/);
  at(8, /unknown key `retries` in \[remote_tools\.c\]; valid keys: url, openapi, headers, timeout, include, exclude/);
  at(10, /holds a `\{\{…\}\}` that is not `\{\{env:NAME\}\}`/);
  at(11, /header `X-Num` must be a string/);
  at(12, /name of a built-in toolset/);
  at(14, /not a remote tools name/);
  assert.doesNotMatch(p.join('\n'), /hunter2|12345|pw@/);
});

test('in an [agents.<name>] section; a later level replaces the whole entry; a name shared with an MCP server is refused', () => {
  const user = parseConfigText('user.toml', '[remote_tools.pets]\nurl = "http://127.0.0.1:1"\ntimeout = "9s"\n');
  const project = parseConfigText('project.toml', '[remote_tools.pets]\nurl = "http://127.0.0.1:2"\n[agents.ops.remote_tools.deploy]\nurl = "http://127.0.0.1:3"\n');
  const plain = mergeLayers([['user.toml', user], ['project.toml', project]]);
  assert.deepEqual(plain.data.remote_tools, { pets: { url: 'http://127.0.0.1:2' } });
  assert.equal(plain.sources.get('remote_tools.pets.url'), 'project.toml');
  const ops = mergeLayers([['user.toml', user], ['project.toml', project]], { agent: 'ops' });
  assert.deepEqual(Object.keys(ops.data.remote_tools ?? {}), ['pets', 'deploy']);
  assert.equal(ops.sources.get('remote_tools.deploy.url'), 'project.toml [agents.ops]');
  const clash = parseConfigText('c.toml', '[mcp_servers.pets]\ncommand = "x"\n');
  assert.throws(() => mergeLayers([['user.toml', user], ['c.toml', clash]]), (e: ConfigError) => /\[remote_tools\.pets\] and \[mcp_servers\.pets\] share a name/.test(e.message));
});

test('a remote service may not take a built-in toolset\'s name, nor the native- namespace', () => {
  for (const name of ['native-git', 'native-jq', 'native-go', 'native-later']) {
    assert.throws(() => parseConfigText('a.toml', `[remote_tools.${name}]\nurl = "http://127.0.0.1:1"\n`), (e: ConfigError) => /name of a built-in toolset \(or in their `native-` namespace\)/.test(e.message), name);
  }
});
