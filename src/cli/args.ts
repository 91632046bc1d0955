// Flag parsing shared by every subcommand: strict, with errors that say what to run next.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

export function parseFlags<T extends FlagSpec>(
  command: string,
  argv: string[],
  options: T,
): { values: Record<string, string | boolean | string[] | boolean[] | undefined>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
    return { values: values as Record<string, string | boolean | string[] | boolean[] | undefined>, positionals };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new UsageError(`${command}: ${msg.replace(/\. To specify a positional.*$/s, '')}\nRun \`${command} --help\` for the flags it takes.`);
  }
}
