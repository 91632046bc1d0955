// `{{env:NAME}}` in a configured value (an MCP server's header): filled from the environment
// cxl runs in when the value is used, so a token lives in the environment, not in agents.toml.

/** The one template a header value may hold. */
export const ENV_TEMPLATE = /\{\{env:([A-Za-z_][A-Za-z0-9_]*)\}\}/g;

/**
 * Each value with its `{{env:NAME}}` filled. A variable that is unset or empty, or holds a line
 * break or NUL (no header may), is an error naming the header and the variable, never the value.
 */
export function fillEnvTemplates(values: Record<string, string>, env: Record<string, string | undefined>, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, raw] of Object.entries(values)) {
    out[k] = raw.replace(ENV_TEMPLATE, (_m, name: string) => {
      const v = env[name];
      if (v === undefined || v === '') throw new Error(`${what}: header ${k} uses {{env:${name}}}, and ${name} is not set. Set ${name} in the environment cxl runs in.`);
      if (/[\r\n\0]/.test(v)) throw new Error(`${what}: ${name} (for header ${k}) holds a line break or NUL, which no header may.`);
      return v;
    });
  }
  return out;
}
