// `cxl serve [PATH]`: a standing host for the workspace PATH (src/serve/). stdout's first line is
// where it listens; then a short status. Logs go to a rotating file in the data dir (and errors
// to stderr). SIGINT/SIGTERM: every turn cancelled, every session saved, connections closed,
// units it fired left to their own process groups as `cxl acp` leaves them; exit 0.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import process from 'node:process';
import pkg from '../../package.json' with { type: 'json' };
import { onTerminate } from '../core/platform/runtime.ts';
import { DEFAULT_LIMITS, startHost, type HostLimits } from '../serve/host.ts';
import { RotatingLog } from '../serve/log.ts';
import { SHAPE_TEXT } from '../serve/shape.ts';
import { loadToken } from '../serve/token.ts';
import { agentOptions } from './agent_options.ts';
import { AGENT_FLAGS, MODEL_FLAGS_HELP, setupFromFlags } from './agent_setup.ts';
import { parseFlags, UsageError } from './args.ts';

const HELP = `cxl serve: a standing host for a workspace, serving ACP over Streamable HTTP and WebSocket

Usage: cxl serve [PATH] [--listen HOST:PORT] [--allow-remote] [--token-file FILE] [--envelope NAME]
                 [--provider ollama|openai] [--model NAME] [--max-turns N] [--max-connections N]
                 [--max-body BYTES] [--idle-close D]

  PATH            the workspace its sessions are rooted in (default: the current directory)
  --listen        where to listen (default 127.0.0.1:7272; port 0 picks a free one)
  --allow-remote  listen on an address other than loopback (put TLS in front: docs/serve.md)
  --token-file    the bearer token every request must carry; else CXL_SERVE_TOKEN; else one is
                  made once and kept 0600 in the data dir (its path is printed, never the token)
  --envelope      the envelope new sessions start in (default: serve: reads allowed, writes and
                  commands denied, missions allowed)
  --max-connections   connections at once (default ${DEFAULT_LIMITS.maxConnections})
  --max-body          largest request body or WebSocket message in bytes (default ${DEFAULT_LIMITS.maxBodyBytes})
  --idle-close        an HTTP connection with no stream and no request this long is closed (default 30m)
  --provider, --model, --max-turns: as cxl acp
${MODEL_FLAGS_HELP}

Sessions get list_dir, grep, find_files, stat_file, count_stats, native-git, native-jq, native-go,
the mission tools and configured MCP servers and remote tools; never read_file, write_file,
edit_file, sed or local_shell, whatever a client declares. Attach with \`cxl --connect URL\`.`;

export const DEFAULT_LISTEN = '127.0.0.1:7272';
const EXIT_BOUND_MS = 3000;

/** `HOST:PORT` (`[::1]:7272` for IPv6). */
export function parseListen(s: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(s);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`cxl serve: --listen takes HOST:PORT (e.g. ${DEFAULT_LISTEN}, or 127.0.0.1:0 for any free port); got ${s}.`);
  return { host: m[1] ?? m[2], port };
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (net.isIPv4(host)) return host.startsWith('127.');
  return host === '::1';
}

function positiveInt(name: string, v: unknown, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`cxl serve: --${name} must be a positive whole number; got ${String(v)}.`);
  return n;
}

function duration(name: string, v: unknown, dflt: number): number {
  if (v === undefined) return dflt;
  const m = /^(\d+)(ms|s|m|h)?$/.exec(String(v));
  if (!m) throw new UsageError(`cxl serve: --${name} takes a duration such as 90s, 30m or 2h; got ${String(v)}.`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
}


export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl serve', argv, {
    ...AGENT_FLAGS,
    listen: { type: 'string' },
    'allow-remote': { type: 'boolean' },
    'token-file': { type: 'string' },
    'max-connections': { type: 'string' },
    'max-body': { type: 'string' },
    'idle-close': { type: 'string' },
  }, HELP);
  if (!flags) return 0;
  const { values, positionals } = flags;
  if (positionals.length > 1) throw new UsageError(`cxl serve: one workspace PATH at most; got ${positionals.join(' ')}.`);
  const workspace = path.resolve(positionals[0] ?? process.cwd());
  if (!fs.statSync(workspace, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`cxl serve: ${workspace} is not a directory; give the workspace to serve.`);
  const { host, port } = parseListen((values.listen as string | undefined) ?? DEFAULT_LISTEN);
  if (!isLoopback(host) && values['allow-remote'] !== true) {
    throw new UsageError(`cxl serve: ${host} is not a loopback address. Anyone who can reach it and has the token gets this host; pass --allow-remote to mean it, and put TLS in front (a reverse proxy: docs/serve.md).`);
  }
  const limits: Partial<HostLimits> = {
    maxConnections: positiveInt('max-connections', values['max-connections'], DEFAULT_LIMITS.maxConnections),
    maxBodyBytes: positiveInt('max-body', values['max-body'], DEFAULT_LIMITS.maxBodyBytes),
    idleMs: duration('idle-close', values['idle-close'], DEFAULT_LIMITS.idleMs),
  };
  // the host's default envelope is `serve`; --envelope (or nothing else) overrides
  const setup = await setupFromFlags('cxl serve', { ...values, envelope: (values.envelope as string | undefined) ?? 'serve' }, { cwd: workspace });
  const token = (() => {
    try {
      return loadToken({ file: values['token-file'] as string | undefined, env: process.env, dataDir: setup.dataDir });
    } catch (err) {
      throw new UsageError(`cxl serve: ${(err as Error).message}`);
    }
  })();
  const logFile = new RotatingLog(path.join(setup.dataDir, 'serve'));
  const log = (msg: string) => logFile.line(msg);
  const hostObj = await startHost({
    workspace,
    host,
    port,
    token,
    limits,
    log,
    agent: agentOptions(setup, values, log),
  }).catch((err: NodeJS.ErrnoException) => {
    logFile.close();
    if (err.code === 'EADDRINUSE' || err.name === 'AddrInUse') throw new UsageError(`cxl serve: ${host}:${port} is in use; pick another with --listen HOST:PORT (port 0 picks a free one).`);
    throw err;
  });
  const envelope = setup.modesFor(workspace).current;
  process.stdout.write(
    [
      `listening on ${hostObj.url}`,
      `  workspace  ${workspace}`,
      `  model      ${setup.provider ? `${setup.provider.model} (${setup.provider.name})` : `none: ${setup.providerProblem ?? 'not configured'}`}`,
      `  envelope   ${envelope}`,
      `  shape      ${SHAPE_TEXT}`,
      `  token      ${token.from === 'CXL_SERVE_TOKEN' ? 'from CXL_SERVE_TOKEN' : `in ${token.from}${token.made ? ' (made now, 0600)' : ''}`}`,
      `  log        ${logFile.file}`,
      `  attach     cxl --connect ${hostObj.url}`,
      '',
    ].join('\n'),
  );
  log(`listening on ${hostObj.url} for ${workspace} (cxl ${pkg.version}, envelope ${envelope})`);
  // the handlers stay until the exit: a second signal while shutting down does not cut it short
  const signal = await new Promise<NodeJS.Signals>((resolve) => onTerminate(resolve));
  log(`${signal}: cancelling the running turns, saving the sessions, closing ${hostObj.connections()} connections`);
  const bound = setTimeout(() => {
    log('could not finish shutting down in time; exiting');
    process.exit(0);
  }, EXIT_BOUND_MS);
  try {
    await hostObj.close(1000);
    await setup.closeAll();
  } catch (err) {
    log(`while shutting down: ${err instanceof Error ? err.message : String(err)}`);
  }
  clearTimeout(bound);
  log('stopped');
  logFile.close();
  process.exit(0);
}
