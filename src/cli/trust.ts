// `cxl trust [DIR]`: show what a folder's own configuration would change, then trust it (the
// record lives in ~/.contenox, outside every project); `--show` only shows; `--revoke` takes
// trust back; `--list` lists the trusted folders. A configuration that does not load is not
// trusted: the problems are printed instead.
import path from 'node:path';
import process from 'node:process';
import { homeDir } from '../config/load.ts';
import { listTrusted, revokeFolder, trustFolder, type StoreChange } from '../config/trust.ts';
import { describePreview, trustPreview } from '../config/trust_preview.ts';
import { parseFlags, UsageError } from './args.ts';

const HELP = `Usage: cxl trust [DIR]            show what DIR's configuration changes, then trust it
       cxl trust --show [DIR]     show only
       cxl trust --revoke [DIR]   take trust back
       cxl trust --list           the folders trusted, with when

A folder's own configuration (.contenox/agents.toml, the chain it names, .contenox/commands/)
applies only once the folder is trusted: until then cxl starts none of its MCP servers, fills
none of its {{env:...}} values and decides by your own configuration. Trust is bound to the
content, and to the project files the configuration runs (an MCP server's script): when any of
them changes, cxl asks again. DIR defaults to the current directory.
For automation, --trust-project or CXL_TRUST_PROJECT=1 trusts a folder for one run.`;

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl trust', argv, { show: { type: 'boolean' }, revoke: { type: 'boolean' }, list: { type: 'boolean' } }, HELP);
  if (!flags) return 0;
  const { values, positionals } = flags;
  if (positionals.length > 1) throw new UsageError('cxl trust: give at most one folder. Run `cxl trust --help`.');
  if ([values.show, values.revoke, values.list].filter(Boolean).length > 1) throw new UsageError('cxl trust: --show, --revoke and --list each do one thing; give one of them.');
  const home = homeDir(process.env.HOME);
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const err = (s: string) => process.stderr.write(`${s}\n`);
  const aside = (a: StoreChange['aside']) => a && err(`The trust store was damaged (${a.why}): it is kept as ${a.file}, and a new one was started; trust the other folders again if you need them.`);
  if (values.list) {
    const all = listTrusted(home);
    if (all.problem) {
      err(`cxl trust: ${all.problem}.`);
      return 1;
    }
    if (all.folders.length === 0) out('No folder is trusted.');
    for (const t of all.folders) out(`${t.dir}  (trusted ${t.trustedAt})`);
    return 0;
  }
  const dir = path.resolve(positionals[0] ?? process.cwd());
  if (values.revoke) {
    let done: Awaited<ReturnType<typeof revokeFolder>>;
    try {
      done = await revokeFolder(dir, home);
    } catch (e) {
      err(`cxl trust --revoke: ${(e as Error).message}`);
      return 1;
    }
    aside(done.aside);
    out(done.changed ? `${dir} is no longer trusted: its own configuration will not apply.` : `${dir} was not trusted.`);
    return 0;
  }
  const preview = trustPreview({ cwd: dir, home });
  const state = preview.project.state;
  if (state === 'none') {
    out(`${dir} has no configuration of its own (.contenox/agents.toml, .contenox/commands/): there is nothing to trust.`);
    return 0;
  }
  if (state === 'own') {
    out(`${dir} is your home directory: its .contenox/agents.toml is your own configuration and always applies.`);
    return 0;
  }
  for (const l of describePreview(preview)) out(l);
  if (values.show) return 0;
  if (preview.problems.length) {
    process.stderr.write('\nNot trusted: fix the problems above first (trusting a configuration that does not load would stop cxl from starting here).\n');
    return 1;
  }
  if (state === 'trusted') {
    out('\nAlready trusted, as it is now.');
    return 0;
  }
  try {
    aside((await trustFolder(dir, home, preview.project.material?.hash))?.aside);
  } catch (e) {
    process.stderr.write(`\nNot trusted: ${(e as Error).message}\n`);
    return 1;
  }
  out(`\nTrusted ${dir}. Its configuration applies from the next cxl start; if it changes, cxl asks again.`);
  return 0;
}
