// The person's own MCP servers reach another agent: stdio ones always, http ones only to an agent
// that says it takes them; what was not passed shows in the status line and is said once. The
// peer agent (a real child process) writes the mcpServers it was sent to its stderr.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { forwardMcp, type ConfiguredMcpServer } from '../../../src/client/session/mcp_forward.ts';
import { agentSaid, peer, removePeers, shown, waitFor } from '../peer_harness.ts';

after(removePeers);

const SERVERS: ConfiguredMcpServer[] = [
  { name: 'files', command: 'node', args: ['files-mcp.js', '--root', '.'], env: { TOKEN: 'abc' } },
  { name: 'issues', url: 'http://127.0.0.1:9/mcp' },
];
const stdioOnly = peer([], { mcpServers: SERVERS });
const withHttp = peer(['--mcp-http'], { mcpServers: SERVERS });
const builtinLike = peer([], { mcpServers: SERVERS, builtin: true });

test('a stdio server is passed to an agent without mcpCapabilities; an http one is not, and the status line and a notice say so', async () => {
  const s = await waitFor(stdioOnly, (x) => x.sessionId !== undefined && agentSaid(x, 'mcpServers').length > 0, 'the session');
  const sent = JSON.parse(agentSaid(s, 'mcpServers')[0].slice('peer-agent: mcpServers '.length)) as unknown[];
  assert.deepEqual(sent, [{ name: 'files', command: 'node', args: ['files-mcp.js', '--root', '.'], env: [{ name: 'TOKEN', value: 'abc' }] }]);
  assert.deepEqual(s.mcpSkipped, ['issues (http: the agent does not take MCP servers over HTTP)']);
  assert.match(shown(s), /Not passed to Peer Agent: MCP server issues \(http: the agent does not take MCP servers over HTTP\)\. The others were passed\./);
});

test('an agent that takes http gets both; the built-in agent (which reads the configuration itself) gets none', async () => {
  const s = await waitFor(withHttp, (x) => x.sessionId !== undefined && agentSaid(x, 'mcpServers').length > 0, 'the session');
  const sent = JSON.parse(agentSaid(s, 'mcpServers')[0].slice('peer-agent: mcpServers '.length)) as Array<{ name: string; type?: string; url?: string }>;
  assert.deepEqual(sent.map((x) => [x.name, x.type ?? 'stdio', x.url]), [['files', 'stdio', undefined], ['issues', 'http', 'http://127.0.0.1:9/mcp']]);
  assert.deepEqual(s.mcpSkipped, []);
  const b = await waitFor(builtinLike, (x) => x.sessionId !== undefined, 'the session');
  assert.deepEqual(agentSaid(b, 'mcpServers'), []);
});

test('forwardMcp: a server with neither command nor url is named as not passed', () => {
  assert.deepEqual(forwardMcp([{ name: 'odd' }], { http: true, sse: true }), { servers: [], skipped: ['odd (neither a command nor a url)'] });
});

test("an http server's configured headers are passed filled from the environment; one whose variable is unset is left out and named", () => {
  const configured: ConfiguredMcpServer[] = [
    { name: 'search', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer {{env:SEARCH_TOKEN}}', 'X-Team': 'core' } },
    { name: 'other', url: 'http://127.0.0.1:2/mcp', headers: { Authorization: '{{env:NOPE_UNSET}}' } },
  ];
  const { servers, skipped } = forwardMcp(configured, { http: true }, { SEARCH_TOKEN: 't-1' });
  assert.deepEqual(servers, [{ type: 'http', name: 'search', url: 'http://127.0.0.1:1/mcp', headers: [{ name: 'Authorization', value: 'Bearer t-1' }, { name: 'X-Team', value: 'core' }] }]);
  assert.equal(skipped.length, 1);
  assert.match(skipped[0], /^other \(header Authorization uses \{\{env:NOPE_UNSET\}\}, and NOPE_UNSET is not set/);
});
