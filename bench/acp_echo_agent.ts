// The reference for bench/acp.bench.ts: the smallest agent the raw SDK makes. A prompt
// `flood N` sends N agent_message_chunk updates; `read PATH` asks the client for the file once;
// `stream N PATH` sends the file's text cut into N chunks (bench/ui_stream.bench.ts).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import * as acp from '@agentclientprotocol/sdk';
import { stdioStreams } from '../src/core/platform/runtime.ts';

const app = acp
  .agent({ name: 'echo' })
  .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, authMethods: [] }))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: randomUUID() }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const text = params.prompt.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const [cmd, arg] = text.split(' ');
    if (cmd === 'flood') {
      const n = Number(arg);
      for (let i = 0; i < n; i++) {
        await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'tok ' } } });
      }
    } else if (cmd === 'stream') {
      const all = readFileSync(text.split(' ').slice(2).join(' '), 'utf8');
      const size = Math.ceil(all.length / Number(arg));
      for (let i = 0; i < all.length; i += size) {
        await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: all.slice(i, i + size) } } });
      }
    } else if (cmd === 'read') {
      const r = await client.request(acp.methods.client.fs.readTextFile, { sessionId: params.sessionId, path: arg });
      await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: String(r.content.length) } } });
    }
    return { stopReason: 'end_turn' };
  });
const { input, output } = stdioStreams();
await app.connect(acp.ndJsonStream(output, input)).closed;
process.exit(0);
