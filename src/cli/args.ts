// Flag parsing shared by every subcommand: strict, with errors that say what to run next.
import process from 'node:process';
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses `argv` strictly against `options` plus `-h/--help`. On `--help` it prints `help` and
 * returns null: the caller exits 0.
 */
export function parseFlags<T extends FlagSpec>(
  command: string,
  argv: string[],
  options: T,
  help: string,
): { values: Record<string, string | boolean | string[] | boolean[] | undefined>; positionals: string[] } | null {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new UsageError(`${command}: ${msg.replace(/\. To specify a positional.*$/s, '')}\nRun \`${command} --help\` for the flags it takes.`);
  }
  if (parsed.values.help) {
    process.stdout.write(`${help}\n`);
    return null;
  }
  return { values: parsed.values as Record<string, string | boolean | string[] | boolean[] | undefined>, positionals: parsed.positionals };
}
