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
} as const;

export function setupFromFlags(command: string, values: Record<string, unknown>): ReturnType<typeof agentSetup> {
  return agentSetup({
    cwd: process.cwd(),
    env: process.env,
    provider: values.provider as string | undefined,
    model: values.model as string | undefined,
    envelope: values.envelope as string | undefined,
    maxTurns: values['max-turns'] as string | undefined,
    command,
  }).catch((err: unknown) => {
    if (isToolError(err)) throw new UsageError(`${command}: ${err.message}`);
    throw err;
  });
}
