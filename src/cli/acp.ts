// `cxl acp`: the ACP agent on stdio. stdout carries only protocol messages; logs go to stderr.
// It ends when its client goes away (stdin closed) or on SIGTERM/SIGINT, the same way each time:
// every running turn cancelled (the model request aborted; commands killed and released through
// the client while it is still there), every session saved, MCP servers stopped, exit within 2 s.
import process from 'node:process';
import * as acp from '@agentclientprotocol/sdk';
import { checkpointsDir, pruneOrphans } from '../agent/checkpoints/blob_store.ts';
import { createAgent } from '../agent/acp/agent.ts';
import { capMessages } from '../agent/acp/message_cap.ts';
import { onTerminate, signalExitCode, stdinStream, stdoutSink } from '../core/platform/runtime.ts';
import { agentOptions } from './agent_options.ts';
import { setupFromFlags, AGENT_FLAGS, MODEL_FLAGS_HELP } from './agent_setup.ts';
import { parseFlags } from './args.ts';

const HELP = `cxl acp: run as an ACP agent on stdio (for Zed, the cxl UI, or any ACP client)

Usage: cxl acp [--provider ollama|openai] [--model NAME] [--envelope NAME] [--max-turns N]
               [--context-window N] [--connect-timeout D] [--first-byte-timeout D] [--idle-timeout D]

  --provider      ollama (default; OLLAMA_HOST) or openai (any OpenAI-compatible server;
                  OPENAI_BASE_URL, OPENAI_API_KEY)
  --model         the model name (default qwen3:8b for ollama)
  --envelope      the envelope new sessions start in (ACP mode; default from config, else "default")
  --max-turns     model requests per prompt before the turn ends with max_turn_requests (default 25)
${MODEL_FLAGS_HELP}

Sessions are stored under $XDG_DATA_HOME/cxl (or ~/.local/share/cxl). Logs go to stderr.
Closing stdin, SIGTERM or SIGINT cancels every turn, saves every session and exits.`;


/** How long running turns get to wind down, and the hard bound on the whole exit. */
const TURN_GRACE_MS = 1000;
const EXIT_BOUND_MS = 1800;

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl acp', argv, {
    ...AGENT_FLAGS,
  }, HELP);
  if (!flags) return 0;
  const { values } = flags;
  const log = (msg: string) => process.stderr.write(`cxl acp: ${msg}\n`);
  const setup = await setupFromFlags('cxl acp', values);
  // units it fires run as `cxl mission fire --mission ID`, this same program
  const app = createAgent(agentOptions(setup, values, log));
  // the checkpoints of sessions deleted since the last start go, once the first requests are answered
  setTimeout(() => {
    try {
      pruneOrphans(checkpointsDir(setup.dataDir), setup.store.dir);
    } catch (err) {
      log(`could not prune old checkpoints: ${err instanceof Error ? err.message : String(err)}`);
    }
  }, 2000);
  // messages go out as JSON lines batched per event-loop turn, not one write each; the parse
  // errors ndJsonStream answers take the same queue, so every line keeps its place
  const sink = stdoutSink();
  // a client message over the SDK's cap fails its own call, not the connection (message_cap.ts)
  const input = capMessages(stdinStream(), { maxBytes: acp.DEFAULT_MAX_MESSAGE_BYTES, answer: (m) => void sink.write(`${JSON.stringify(m)}\n`), log });
  const conn = app.connect({ readable: acp.ndJsonStream(sink.bytes(), input).readable, writable: sink.jsonLines<acp.AnyMessage>() });
  const ended = new Promise<number>((resolve) => {
    const off = onTerminate((signal) => {
      log(`${signal}: cancelling the running turns, saving the sessions`);
      resolve(signalExitCode(signal));
    });
    void conn.closed.then(() => resolve(0)).finally(off);
  });
  const code = await ended;
  // nothing may keep the process beyond the bound: a hung model request, a client that does not
  // answer terminal/kill, an MCP server that ignores its stdin closing
  const bound = setTimeout(() => {
    log('could not finish shutting down in time; exiting');
    process.exit(code);
  }, EXIT_BOUND_MS);
  try {
    await app.shutdown({ graceMs: TURN_GRACE_MS });
    await setup.closeAll();
    // what is still queued for the client goes out before the process ends (a client that went
    // away cannot be written to: nothing to report)
    await sink.flush().catch(() => {});
  } catch (err) {
    log(`while shutting down: ${err instanceof Error ? err.message : String(err)}`);
  }
  clearTimeout(bound);
  // timers and sockets of cancelled work (an approval's timeout, a keep-alive) must not keep it alive
  process.exit(code);
}
