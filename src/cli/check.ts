// `cxl check "<line>"`: the command policy's verdict on a line, explained: the steps, each
// program and its resolved path, the rule that allowed or refused it (an argument rule by name:
// `find -exec`, `path-quarantine`), and the session envelope's decision with the argument rule
// that kept a step from running unasked. `--batch` reads JSON lines and answers one JSON line
// each (with an envelope's decision when one is named). Nothing is ever run. The decision is the
// gate's own (core/gate/decision.ts), the sandbox this machine has included, so what check says
// is what a call does.
import process from 'node:process';
import { writeStdout } from '../core/platform/runtime.ts';
import { ConfigError, formatIssue, loadConfig } from '../config/load.ts';
import type { SandboxFacts } from '../core/contract/toolset.ts';
import type { CompiledEnvelope, Decision } from '../core/envelope/index.ts';
import { ToolError } from '../core/errors.ts';
import { hasHidden, markHidden } from '../core/hidden_text.ts';
import type { CallVerdict } from '../core/gate/decision.ts';
import { lineVerdict } from './line_verdict.ts';
import { checkLine, type CheckedStep, type ShellPolicy, type Verdict } from '../core/shell/checker.ts';
import { displayArgv } from '../core/shell/runner.ts';
import { LocalTerminalHost } from '../core/shell/local_terminal.ts';
import { envelopeSandbox, isWorking, type SandboxProfile, type SandboxState } from '../core/shell/sandbox/settings.ts';
import { DEFAULT_DENIED_COMMANDS, splitList } from '../core/shell/shell_policy.ts';
import { parseFlags, UsageError } from './args.ts';

const HELP = `Usage: cxl check "<line>" [flags]
       cxl check --batch [flags] < lines.jsonl

Explains what the local_shell command policy does with a command line, without running it:
the steps, each program and the path it resolves to on PATH, and the rule that allowed or
refused it (with the construct and its offset). Exit 0 when allowed, 1 when refused.

Flags:
  --allow a,b     _allowed_commands (default: none, as shipped: the envelope decides)
  --deny c,d      _denied_commands (default: the shipped list)
  --dir D         _allowed_dir: no cd may leave it (default: none)
  --cwd D         where the line starts (default: --dir, else the current directory)
  --envelope NAME the session envelope whose decision on an allowed line is reported too
                  (default: default_envelope of agents.toml, else \`default\`); exit 1 when it denies.
                  The sandbox profile the line would run under is reported with it.
                  With --batch, every answer carries that envelope's decision as a call
                  here would meet it (without a working sandbox the prefix allowlist asks)
  --trust-project apply this folder's own .contenox/agents.toml for this run (untrusted, your
                  own configuration decides; \`cxl trust\` records trust)
  --json          print the verdict as JSON
  --batch         read {"cmd": "...", "allowed_commands": [...], "denied_commands": [...],
                  "allowed_dir": "...", "cwd": "...", "envelope": "..."} per stdin line (missing
                  lists take the flags' or the shipped defaults); write {"verdict", "reason",
                  "steps", ...} per line, and "envelope": {...} when an envelope is named
  -h, --help      this help

A command policy alone refuses what needs a human (a read-approve path such as .env); with an
envelope (the one-line form, or --batch with one) the line is allowed by the policy and the
envelope's decision says that it asks.`;

export interface CheckInput {
  cmd: string;
  policy: ShellPolicy;
  cwd?: string;
  /** a human can be asked (an envelope is consulted): what needs one is the envelope's question */
  askable?: boolean;
}

/** The verdict as plain JSON: verdict, reason, steps, and for a refusal rule/construct/position/step. */
export function verdictJson(v: Verdict): Record<string, unknown> {
  const steps = v.steps.map(stepJson);
  if (v.verdict === 'allow') return { verdict: 'allow', reason: v.reason, steps, start_dir: v.startDir, ...(v.allowedDir ? { allowed_dir: v.allowedDir } : {}) };
  return { verdict: 'refuse', reason: v.reason, rule: v.rule, construct: v.construct, position: v.position, step: v.step, ...(v.argRule ? { arg_rule: v.argRule } : {}), steps };
}

function stepJson(s: CheckedStep): Record<string, unknown> {
  const common = { index: s.index, op: s.op, argv: s.argv, rule: s.rule };
  if (s.kind === 'cd') return { kind: 'cd', ...common, target: s.target };
  // what the argument rules found without refusing (unknown flags, what needs a human)
  const found = s.args.findings.map((f) => ({ rule: f.rule, level: f.level, why: f.why }));
  return { kind: 'run', ...common, program: s.program, resolved: s.resolved, real: s.real, cwd: s.cwd, ...(s.args.inner > 0 ? { runs: s.argv.slice(s.args.inner) } : {}), ...(found.length ? { arg_findings: found } : {}) };
}

/** The envelope's decision as JSON: its rule, and the argument rule that kept a step from running unasked. */
export function decisionJson(d: Decision): Record<string, unknown> {
  return { action: d.action, rule: d.rule, envelope: d.envelope, sentence: d.sentence, ...(d.argRule ? { arg_rule: d.argRule } : {}) };
}

/** The envelope of agents.toml by name (default: its default_envelope); a broken config or an unknown name is a usage error. */
function loadEnvelope(name: string | undefined, trustProject: boolean): { env: CompiledEnvelope; shown: string } {
  try {
    const cfg = loadConfig({ trustProject: trustProject || undefined });
    const env = cfg.envelope(name);
    // `acme (project)`: a project's own envelope says so, as on the status line and in `cxl config`
    return { env, shown: cfg.shownName(env.name) };
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(`cxl check: the configuration is broken:\n${err.issues.map(formatIssue).join('\n')}`);
    if (err instanceof ToolError) throw new UsageError(`cxl check: ${err.message}`);
    throw err;
  }
}

const printable = (line: string) => !hasHidden(line);

/** The verdict in words, for a terminal. */
export function renderVerdict(line: string, v: Verdict, policy: ShellPolicy): string {
  const out: string[] = [];
  const stepLine = (s: CheckedStep) => {
    const op = s.op ? `${s.op} ` : '';
    const where = s.kind === 'cd' ? `-> ${s.target}` : s.resolved === s.real ? s.resolved : `${s.resolved} (-> ${s.real})`;
    return `  ${s.index + 1}. ${op}${displayArgv(s.argv)}\n       ${where}  [${s.rule}]`;
  };
  if (v.verdict === 'allow') {
    out.push(`allow: ${v.reason}`);
    for (const s of v.steps) {
      out.push(stepLine(s));
      if (s.kind === 'run') for (const f of s.args.findings) out.push(`       argument rule ${f.rule} (${f.level}): ${f.why}`);
    }
  } else {
    out.push(`refuse: ${v.reason}`);
    out.push(`  rule: ${v.rule}; construct: ${v.construct}; step ${v.step + 1}; offset ${v.position}`);
    if (v.argRule) out.push(`  argument rule: ${v.argRule.rule}: ${v.argRule.why}`);
    if (printable(line) && line.length <= 240 && v.position <= line.length) {
      out.push(`  ${line}`);
      out.push(`  ${' '.repeat(v.position)}^`);
    } else {
      // JSON escapes the controls; the bidi, zero-width and tag characters it leaves are marked
      out.push(`  line (escaped): ${markHidden(JSON.stringify(line.length > 240 ? `${line.slice(0, 240)}…` : line))}`);
    }
    if (v.steps.length) {
      out.push('  steps allowed before it:');
      out.push(...v.steps.map(stepLine));
    }
  }
  const list = (l: string[] | undefined) => (l === undefined ? '(none)' : l.length ? l.join(',') : '(empty: nothing allowed)');
  out.push(`policy: _allowed_commands=${policy.allowedCommands === undefined ? '(no allowlist)' : list(policy.allowedCommands)}; _denied_commands=${list(policy.deniedCommands)}; _allowed_dir=${policy.allowedDir ?? '(none: cd is not confined)'}`);
  return out.join('\n');
}

/** Checks one input, turning an unusable policy (missing allowed dir) into a refusal. */
export function checkInput(input: CheckInput): Verdict {
  try {
    return checkLine(input.cmd, input.policy, { cwd: input.cwd, askable: input.askable === true });
  } catch (err) {
    return { verdict: 'refuse', rule: 'policy', construct: 'policy', position: 0, step: 0, reason: `the policy cannot be applied: ${(err as Error).message}`, steps: [] };
  }
}

/** The sandbox a line would run in under `env` on this machine: the envelope's settings and what the host reports. */
function sandboxUnder(env: CompiledEnvelope, host: LocalTerminalHost): SandboxFacts {
  const { mode, network } = envelopeSandbox(env.resolved.shell);
  const state: SandboxState = mode === 'off' ? { state: 'off', reason: 'shell.sandbox = "off"' } : host.sandboxState(network);
  return { mode, network, state };
}

function stringList(v: unknown, key: string): string[] | undefined {
  if (v === undefined) return undefined;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  if (typeof v === 'string') return splitList(v);
  throw new Error(`"${key}" must be a list of strings or a comma list`);
}

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl check', argv, {
    allow: { type: 'string' },
    deny: { type: 'string' },
    dir: { type: 'string' },
    cwd: { type: 'string' },
    json: { type: 'boolean' },
    batch: { type: 'boolean' },
    envelope: { type: 'string' },
    'trust-project': { type: 'boolean' },
  }, HELP);
  if (!flags) return 0;
  const { values, positionals } = flags;
  const base: ShellPolicy = {
    // as shipped: no allowlist unless one is given (the envelope decides on every other program)
    ...(values.allow !== undefined ? { allowedCommands: splitList(values.allow as string) } : {}),
    deniedCommands: values.deny !== undefined ? splitList(values.deny as string) : DEFAULT_DENIED_COMMANDS,
    ...(values.dir !== undefined ? { allowedDir: values.dir as string } : {}),
  };
  const cwd = values.cwd as string | undefined;

  if (values.batch) {
    if (positionals.length) throw new UsageError('cxl check: --batch reads lines from stdin; give no command line.');
    // envelopes are loaded only when named (the flag, or a line's "envelope"), each once
    const envelopes = new Map<string, CompiledEnvelope>();
    const envelopeNamed = (name: string): CompiledEnvelope => {
      if (!envelopes.has(name)) envelopes.set(name, loadEnvelope(name, values['trust-project'] === true).env);
      return envelopes.get(name)!;
    };
    const { createInterface } = await import('node:readline'); // only --batch reads lines
    const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
    const host = new LocalTerminalHost({ probe: { roots: [process.cwd()] } });
    for await (const raw of rl) {
      if (raw.trim() === '') continue;
      let v: Verdict;
      let d: Decision | undefined;
      try {
        const o = JSON.parse(raw) as Record<string, unknown>;
        if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error('not a JSON object');
        if (typeof o.cmd !== 'string') throw new Error('"cmd" must be a string');
        const allowed = stringList(o.allowed_commands, 'allowed_commands');
        const denied = stringList(o.denied_commands, 'denied_commands');
        if (o.allowed_dir !== undefined && typeof o.allowed_dir !== 'string') throw new Error('"allowed_dir" must be a string');
        if (o.cwd !== undefined && typeof o.cwd !== 'string') throw new Error('"cwd" must be a string');
        if (o.envelope !== undefined && typeof o.envelope !== 'string') throw new Error('"envelope" must be a string');
        const envName = (o.envelope as string | undefined) ?? (values.envelope as string | undefined);
        const policy: ShellPolicy = {
          allowedCommands: allowed ?? base.allowedCommands,
          deniedCommands: denied ?? base.deniedCommands,
          ...((o.allowed_dir ?? base.allowedDir) !== undefined ? { allowedDir: (o.allowed_dir as string | undefined) ?? base.allowedDir } : {}),
        };
        const env = envName !== undefined ? envelopeNamed(envName) : undefined;
        v = checkInput({ cmd: o.cmd, policy, cwd: (o.cwd as string | undefined) ?? cwd, askable: env !== undefined });
        if (env && v.verdict === 'allow') d = lineVerdict(env, o.cmd, v, v.allowedDir ?? v.startDir, sandboxUnder(env, host)).decision;
      } catch (err) {
        // Fail closed: input we cannot read is a refusal, never a skip.
        v = { verdict: 'refuse', rule: 'bad-input', construct: 'input', position: 0, step: 0, reason: `this line is not a valid check request: ${(err as Error).message}`, steps: [] };
      }
      writeStdout(`${JSON.stringify({ ...verdictJson(v), ...(d ? { envelope: decisionJson(d) } : {}) })}\n`);
    }
    return 0;
  }

  if (positionals.length !== 1) throw new UsageError(`cxl check: give exactly one command line (quote it).\n\n${HELP}`);
  const line = positionals[0];
  // The second gate: what the session envelope does with a line the policy lets through. It can
  // ask, so what needs a human is its question, not the policy's refusal.
  const { env, shown: envelope } = loadEnvelope(values.envelope as string | undefined, values['trust-project'] === true);
  const v = checkInput({ cmd: line, policy: base, cwd, askable: true });
  const cv = v.verdict === 'allow' ? lineVerdict(env, line, v, v.allowedDir ?? v.startDir, sandboxUnder(env, new LocalTerminalHost({ probe: { roots: [process.cwd()] } }))) : undefined;
  const d = cv?.decision;
  const ej = d ? { envelope: decisionJson(d) } : {};
  const et = d ? `envelope ${envelope}: ${d.sentence}` : `envelope ${envelope}: not consulted (the command policy refused the line)`;
  const sj = cv?.sandbox && cv.decision.action !== 'deny' ? { sandbox: sandboxJson(cv.decision, cv.sandbox) } : {};
  const st = sj.sandbox ? `\nsandbox: ${sandboxText(sj.sandbox)}` : '';
  writeStdout(values.json ? `${JSON.stringify({ ...verdictJson(v), ...ej, ...sj }, null, 2)}\n` : `${renderVerdict(line, v, base)}\n${et}${st}\n`);
  return v.verdict === 'allow' && d?.action !== 'deny' ? 0 : 1;
}

interface SandboxAnswer {
  state: SandboxState['state'];
  /** the profile it runs under: as decided, or once a human approves it */
  profile?: SandboxProfile;
  when?: 'now' | 'once approved';
  network?: boolean;
  reason?: string;
}

/** Which sandbox profile the line would run under, from the decision. */
function sandboxJson(d: Decision, sb: NonNullable<CallVerdict['sandbox']>): SandboxAnswer {
  if (!isWorking(sb.state)) return { state: sb.state.state, ...(sb.state.reason ? { reason: sb.state.reason } : {}) };
  return { state: sb.state.state, profile: sb.profile, when: d.action === 'approve' ? 'once approved' : 'now', network: sb.network };
}

function sandboxText(a: SandboxAnswer): string {
  if (!a.profile) return `${a.state}${a.reason ? ` (${a.reason})` : ''}: the line would run unsandboxed`;
  const what = a.profile === 'read-only' ? 'read-only (the workspace cannot be written)' : 'workspace-write (the workspace is writable, minus the write wall)';
  return `${a.state}, ${what}${a.when === 'once approved' ? ', once approved' : ''}; network ${a.network ? 'on' : 'off'}`;
}
