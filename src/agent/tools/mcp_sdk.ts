// The MCP SDK's client classes, imported in one place. The package's `./*` export maps types to
// `*.d.ts` appended to the `.js` name, which Deno cannot follow; the @ts-types hints point Deno
// at the real declaration files (tsc and both runtimes resolve the `.js` paths themselves).
// @ts-types="../../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.d.ts"
export { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
// @ts-types="../../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.d.ts"
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { Client } from '@modelcontextprotocol/sdk/client';
// @ts-types="../../../node_modules/@modelcontextprotocol/sdk/dist/esm/shared/transport.d.ts"
export type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
