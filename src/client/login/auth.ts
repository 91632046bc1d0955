// Logging in to an agent whose session/new (or prompt) answers -32000 "auth required": each
// method it offers, with what it says about it ("Run `claude /login` in the terminal") and the
// environment variable an API-key method reads. Three kinds, as agents send them:
//   agent     the agent does it when asked (`authenticate {methodId}`), maybe opening a browser;
//   env_var   the agent reads a key from its environment: which variable is named (from the
//             method's `vars`, outside the stable schema, or from its text), then `authenticate`;
//   terminal  the agent's own command with extra args/env, run by the user in a terminal (the
//             protocol forbids passing it to `authenticate`); picking it retries the session.
import type { AuthMethod } from '@agentclientprotocol/sdk';
import { shellLine, shellWord } from '../../core/shell_word.ts';

export type AuthKind = 'agent' | 'env_var' | 'terminal';

export interface AuthMethodView {
  id: string;
  name: string;
  description?: string;
  kind: AuthKind;
  /** Environment variables the method reads (env_var), and those of them the agent's environment has. */
  vars: string[];
  setVars: string[];
  /** Terminal methods: the command line the user runs to log in. */
  command?: string;
}

/** The login picker: shown while set. */
export interface AuthOffer {
  methods: AuthMethodView[];
  /** Why it is shown (the agent's words). */
  reason: string;
  /** The method being tried right now. */
  busy?: string;
  /** What happened with the last pick, shown in the picker. */
  note?: string;
  /** After logging in: start the session (session/new failed) or just go on (a prompt failed). */
  then: 'new_session' | 'continue';
}

const VAR_RE = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g;

/** Environment variable names a method's text mentions as such (`GEMINI_API_KEY`, "Use CODEX_API_KEY"). */
export function varsInText(text: string): string[] {
  const envish = /environment|env var|variable|\benv\b/i.test(text);
  const out: string[] = [];
  for (const m of text.matchAll(VAR_RE)) {
    const name = m[0];
    if ((envish || /_(?:API_)?(?:KEY|TOKEN|SECRET)$/.test(name)) && !out.includes(name)) out.push(name);
  }
  return out;
}

function rawVars(raw: Record<string, unknown> | undefined): string[] {
  if (!raw) return [];
  const out: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v) && !out.includes(v)) out.push(v);
  };
  const vars = raw.vars ?? raw.variables ?? raw.env_vars ?? raw.envVars;
  if (Array.isArray(vars)) for (const v of vars) add(typeof v === 'string' ? v : (v as { name?: unknown })?.name);
  add(raw.varName);
  add(raw.envVar);
  return out;
}

/** The methods as the user sees them (fields outside the stable schema, like `vars`, are read too). */
export function authMethodsOf(methods: AuthMethod[], agentArgv: string[], env: Record<string, string | undefined>): AuthMethodView[] {
  return methods.map((m) => {
    const r = m as unknown as Record<string, unknown>;
    const description = m.description ?? undefined;
    if ('type' in m && m.type === 'terminal') {
      // a key that is not a variable's name is one quoted word: sh runs nothing it holds
      const env = Object.entries(m.env ?? {}).map(([k, v]) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${k}=${shellWord(v)}` : shellWord(`${k}=${v}`, true)));
      const command = [...env, shellLine([...agentArgv, ...(m.args ?? [])])].join(' ');
      return { id: m.id, name: m.name, description, kind: 'terminal', vars: [], setVars: [], command };
    }
    const declared = rawVars(r);
    const vars = declared.length ? declared : varsInText(`${m.name} ${description ?? ''}`);
    const kind: AuthKind = r?.type === 'env_var' || vars.length > 0 ? 'env_var' : 'agent';
    return { id: m.id, name: m.name, description, kind, vars, setVars: vars.filter((v) => (env[v] ?? '') !== '') };
  });
}

/** The env-var part of a method's line: which variables, and whether the agent's environment has them. */
export function varsNote(m: AuthMethodView): string | undefined {
  if (m.vars.length === 0) return undefined;
  return m.vars.map((v) => `${v} (${m.setVars.includes(v) ? 'set' : 'not set'})`).join(', ');
}
