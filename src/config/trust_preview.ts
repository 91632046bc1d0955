// What trusting a folder would change, shown before anyone trusts it: the effective
// configuration without and with the project's own file, as a unified diff of `key = value`
// lines; and, for a folder trusted before whose configuration changed since, the change itself,
// file by file (the scripts its MCP servers run included), against the text that was trusted.
import { createTwoFilesPatch } from 'diff';
import { effectiveLines } from './describe.ts';
import { ConfigError, formatIssue, loadConfig, type LoadOptions, type ProjectConfig } from './load.ts';
import { changedFiles } from './trust.ts';

export interface TrustPreview {
  project: ProjectConfig;
  /** the effective configuration's change, as a unified diff (empty: it changes nothing) */
  effect: string;
  /** for a changed folder: what changed in its files since they were trusted */
  changes: string;
  /** why the project's configuration would not load even when trusted (trusting it would not help) */
  problems: string[];
}

/** A text as shown: one that stands for a file (absent, binary, not read) in words. */
function shownText(t: string | undefined): string {
  if (t === undefined) return '';
  return t.startsWith('\u0000') ? `(${t.slice(1)})\n` : t;
}

/** Lines of a unified diff with the `Index:` and `===` header lines left out. */
function patch(name: string, before: string, after: string): string {
  if (before === after) return '';
  return createTwoFilesPatch(`a/${name}`, `b/${name}`, before, after, '', '', { context: 2 }).split('\n').filter((l) => !/^(?:Index:|={3,})/.test(l)).join('\n');
}

/**
 * `used`: the provider and model the session really runs when the configuration leaves them to
 * the environment (OPENAI_BASE_URL, --model), shown in their place rather than the built-in
 * defaults. The lines are not padded into a column (a terminal narrower than the widest would
 * wrap every one), and the project's files are named relative to the folder.
 */
export function trustPreview(opts: Pick<LoadOptions, 'cwd' | 'home' | 'agent'>, used?: { provider: string; model: string }): TrustPreview {
  const without = loadConfig({ ...opts, trustProject: false, env: {} });
  const project = without.project;
  const preview: TrustPreview = { project, effect: '', changes: '', problems: [] };
  if (!project.material) return preview;
  const dir = project.material.dir;
  const lines = (cfg: typeof without) => effectiveLines(cfg, used, { padTo: 0, usedSource: 'the environment or --model', sourceShown: (s) => (s.startsWith(`${dir}/`) ? s.slice(dir.length + 1) : s) });
  try {
    const trusted = loadConfig({ ...opts, trustProject: true, env: {} });
    preview.effect = patch('effective configuration', `${lines(without).join('\n')}\n`, `${lines(trusted).join('\n')}\n`);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    preview.problems = err.issues.map(formatIssue);
  }
  if (project.state === 'changed' && project.record) {
    preview.changes = changedFiles(project.record, project.material)
      .map((n) => {
        const was = project.record!.files[n];
        return was === null ? `changed: ${n} (too large to show the change)` : patch(n, shownText(was), shownText(project.material!.files[n]));
      })
      .filter(Boolean)
      .join('\n');
  }
  return preview;
}

/** The preview as text for a terminal or a notice. */
export function describePreview(p: TrustPreview): string[] {
  const out: string[] = [];
  const runs = new Set(p.project.material?.runs ?? []);
  const files = Object.keys(p.project.material?.files ?? {}).filter((f) => !runs.has(f));
  out.push(`Project configuration in ${p.project.dir}: ${files.join(', ') || '(none)'}`);
  if (runs.size) out.push(`What it starts or reads from the folder (trust is bound to their content too): ${[...runs].join(', ')}`);
  if (p.changes) out.push('', 'Changed since you trusted it:', p.changes);
  if (p.problems.length) out.push('', 'It does not load, so trusting it would not apply it:', ...p.problems.map((x) => `  ${x}`));
  else if (p.effect) out.push('', 'Trusting it changes the effective configuration:', p.effect);
  else out.push('', 'Trusting it changes nothing in the effective configuration.');
  return out;
}
