// `cxl acp`: the ACP agent on stdio. stdout carries only protocol messages; logs go to stderr.
import process from 'node:process';
import * as acp from '@agentclientprotocol/sdk';
import pkg from '../../package.json' with { type: 'json' };
import { createAgent } from '../agent/acp_agent.ts';
import { stdioStreams } from '../core/runtime.ts';
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

Sessions are stored under $XDG_DATA_HOME/cxl (or ~/.local/share/cxl). Logs go to stderr.`;

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl acp', argv, {
    ...AGENT_FLAGS,
  }, HELP);
  if (!flags) return 0;
  const { values } = flags;
  const log = (msg: string) => process.stderr.write(`cxl acp: ${msg}\n`);
  const setup = await setupFromFlags('cxl acp', values);
  const app = createAgent({
    version: pkg.version,
    store: setup.store,
    modesFor: setup.modesFor,
    provider: setup.provider,
    providerProblem: setup.providerProblem,
    buildTools: setup.buildAcpTools,
    systemPrompt: setup.systemPrompt,
    maxTurns: setup.maxTurns,
    newContext: setup.newContext,
    log,
  });
  const { input, output } = stdioStreams();
  const conn = app.connect(acp.ndJsonStream(output, input));
  await conn.closed;
  await setup.closeAll();
  return 0;
}
