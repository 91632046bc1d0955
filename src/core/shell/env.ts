// The environment spawned programs get: this process's, minus anything that looks like a secret,
// plus settings that stop tools from waiting on a terminal nobody is watching.

// Names that carry credentials: *_TOKEN, *_KEY, *_SECRET, *PASSWORD*, and provider API keys.
const SECRET_NAME = [
  /(^|_)TOKEN$/i,
  /(^|_)KEY$/i,
  /(^|_)SECRET$/i,
  /PASSWORD/i,
  /PASSWD/i,
  /(^|_)API_?KEY/i,
  /(^|_)ACCESS_KEY/i,
  /(^|_)SECRET_/i,
  /(^|_)CREDENTIALS?$/i,
  /(^|_)AUTH_TOKEN/i,
  /^(OPENAI|ANTHROPIC|GEMINI|GOOGLE|MISTRAL|GROQ|DEEPSEEK|OPENROUTER|XAI|COHERE|TOGETHER|FIREWORKS|PERPLEXITY|HF|HUGGING_?FACE|AZURE_OPENAI|AWS|GH|GITHUB|GITLAB|NPM|CONTENOX)_.*(KEY|TOKEN|SECRET|PASS)/i,
];

/** True when an environment variable of this name is dropped before spawning. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.some((re) => re.test(name));
}

export interface EnvOptions {
  /** keep every variable (policy said so) */
  keepSecrets?: boolean;
  /** names kept even if they look like secrets */
  keep?: string[];
  /** set or override (applied last, never scrubbed: the caller chose them) */
  extra?: Record<string, string>;
}

/** The environment for a spawned program, built from `base` (normally process.env). */
export function childEnv(base: Record<string, string | undefined>, opts: EnvOptions = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined) continue;
    if (!opts.keepSecrets && isSecretName(k) && !opts.keep?.includes(k)) continue;
    out[k] = v;
  }
  // No prompts and no pagers: nobody can answer them.
  out.GIT_TERMINAL_PROMPT = '0';
  out.GIT_PAGER = 'cat';
  out.PAGER = 'cat';
  return { ...out, ...opts.extra };
}
