// The agent setup shared by `cxl acp` and `cxl run`, from their common flags. Configuration
// problems and unknown envelopes are usage errors: the message says what to fix, exit 2.
import process from 'node:process';
import { agentSetup } from '../agent/setup.ts';
import { isToolError } from '../core/errors.ts';
import { UsageError } from './args.ts';

export const AGENT_FLAGS = {
  provider: { type: 'string' },
  model: { type: 'string' },
  envelope: { type: 'string' },
  'max-turns': { type: 'string' },
  'context-window': { type: 'string' },
  'connect-timeout': { type: 'string' },
  'first-byte-timeout': { type: 'string' },
  'idle-timeout': { type: 'string' },
  'trust-project': { type: 'boolean' },
} as const;

export const MODEL_FLAGS_HELP = `  --context-window  the model's context window in tokens (default: what the server says, else
                    context_window in config, else 8192); compaction starts at 70% of it
  --connect-timeout, --first-byte-timeout, --idle-timeout
                    model-request timeouts (defaults 10s, 10m, 2m; also connect_timeout,
                    first_byte_timeout, idle_timeout in [agents.<name>])
  --trust-project   apply this folder's own configuration for this run without recording trust
                    (also CXL_TRUST_PROJECT=1; \`cxl trust\` records it)`;

/** `at`: the workspace (`--cwd`; default the current directory); `agent`: the [agents.<name>] in use. */
export function setupFromFlags(command: string, values: Record<string, unknown>, at: { cwd?: string; agent?: string } = {}): ReturnType<typeof agentSetup> {
  return agentSetup({
    cwd: at.cwd ?? process.cwd(),
    ...(at.agent !== undefined ? { agent: at.agent } : {}),
    env: process.env,
    provider: values.provider as string | undefined,
    model: values.model as string | undefined,
    envelope: values.envelope as string | undefined,
    maxTurns: values['max-turns'] as string | undefined,
    contextWindow: values['context-window'] as string | undefined,
    connectTimeout: values['connect-timeout'] as string | undefined,
    firstByteTimeout: values['first-byte-timeout'] as string | undefined,
    idleTimeout: values['idle-timeout'] as string | undefined,
    command,
    trustProject: values['trust-project'] === true ? true : undefined,
  }).catch((err: unknown) => {
    if (isToolError(err)) throw new UsageError(`${command}: ${err.message}`);
    throw err;
  });
}
