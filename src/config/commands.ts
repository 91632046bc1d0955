// Custom slash commands: Markdown files whose text becomes the prompt, `.contenox/commands/*.md`
// in the project and `~/.contenox/commands/*.md` for the person. Front matter gives a
// description and an argument hint; `$ARGUMENTS` is what follows the command, `$1`..`$9` its
// words. A project's commands come from the workspace, which may be a cloned repository: they
// are part of what the person trusts (trust.ts hashes them), so they load only from a trusted
// folder, and then from the very text that was trusted; one that links outside the project is
// not read at all. A project command of the same name replaces the person's own; no command may
// take a built-in command's name.
import fs from 'node:fs';
import path from 'node:path';
import type { ProjectTrust } from './trust.ts';
import { applies } from './trust.ts';

export interface CustomCommand {
  name: string;
  description: string;
  /** how the arguments are written, for the completion list (`<issue number>`) */
  argumentHint?: string;
  /** the prompt, `$ARGUMENTS` and `$1`..`$9` not yet filled */
  body: string;
  source: 'project' | 'user';
  /** where it came from, for messages */
  file: string;
}

export interface LoadedCommands {
  commands: CustomCommand[];
  /** files that could not become a command, and why */
  problems: string[];
  /** the project has commands that are not loaded because the folder is not trusted */
  heldBack: number;
}

/** Files read from the person's own directory (the project's are bounded by trust.ts). */
const MAX_USER_FILES = 200;
const MAX_FILE_BYTES = 64 * 1024;
const NAME = /^[A-Za-z][\w-]{0,63}$/;

/** Front matter (`---` lines) as `key: value` pairs, and the text after it. */
export function splitFrontMatter(text: string): { meta: Record<string, string>; body: string } {
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { meta: {}, body: text };
  const meta: Record<string, string> = {};
  for (const line of m[1].split(/\r?\n/)) {
    const kv = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!kv) continue;
    let v = kv[2].trim();
    if (/^(["']).*\1$/.test(v)) v = v.slice(1, -1);
    meta[kv[1].toLowerCase().replace(/_/g, '-')] = v;
  }
  return { meta, body: text.slice(m[0].length) };
}

function fromText(name: string, text: string, source: CustomCommand['source'], file: string): CustomCommand {
  const { meta, body } = splitFrontMatter(text);
  const firstLine = body.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  const description = meta.description || firstLine.replace(/^#+\s*/, '').slice(0, 80) || `the ${source} command ${name}`;
  return { name, description, ...(meta['argument-hint'] ? { argumentHint: meta['argument-hint'] } : {}), body: body.trim(), source, file };
}

/** The person's own commands, from ~/.contenox/commands (never a link out of it to a protected place: plain files only). */
function userCommands(home: string, problems: string[]): CustomCommand[] {
  const dir = path.join(home, '.contenox', 'commands');
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.md')).sort().slice(0, MAX_USER_FILES);
  } catch {
    return [];
  }
  const out: CustomCommand[] = [];
  for (const n of names) {
    const file = path.join(dir, n);
    try {
      const st = fs.lstatSync(file);
      if (!st.isFile()) {
        problems.push(`${file}: not a regular file (a link or a directory), so it is no command`);
        continue;
      }
      if (st.size > MAX_FILE_BYTES) {
        problems.push(`${file}: ${st.size} bytes, over the ${MAX_FILE_BYTES} a command may have`);
        continue;
      }
      out.push(fromText(n.slice(0, -3), fs.readFileSync(file, 'utf8'), 'user', file));
    } catch (err) {
      problems.push(`${file}: cannot be read (${(err as Error).message})`);
    }
  }
  return out;
}

/** The project's commands, from the texts its trust was given for (a file that was not read, a link out of the project, is none). */
function projectCommands(project: Pick<ProjectTrust, 'state' | 'material'>, problems: string[]): { commands: CustomCommand[]; heldBack: number } {
  const files = Object.entries(project.material?.files ?? {}).filter(([rel]) => rel.startsWith('.contenox/commands/') && rel.endsWith('.md'));
  if (!applies(project.state)) return { commands: [], heldBack: files.length };
  const dir = project.material?.dir ?? '';
  const commands: CustomCommand[] = [];
  for (const [rel, text] of files) {
    if (text.startsWith('\u0000')) problems.push(`${path.join(dir, rel)}: ${text.slice(1)}, so it is no command`);
    else commands.push(fromText(path.basename(rel).slice(0, -3), text, 'project', path.join(dir, rel)));
  }
  return { commands, heldBack: 0 };
}

/**
 * Every custom command a session may use: the person's, then the project's (trusted only),
 * a project command replacing the person's of the same name. `reserved`: built-in command names.
 */
export function loadCommands(o: { home: string; project: Pick<ProjectTrust, 'state' | 'material'>; reserved: readonly string[] }): LoadedCommands {
  const problems: string[] = [];
  const byName = new Map<string, CustomCommand>();
  const project = projectCommands(o.project, problems);
  for (const c of [...userCommands(o.home, problems), ...project.commands]) {
    if (!NAME.test(c.name)) {
      problems.push(`${c.file}: \`${c.name}\` is no command name (a letter, then letters, digits, _ and -)`);
      continue;
    }
    if (o.reserved.includes(c.name)) {
      problems.push(`${c.file}: /${c.name} is a built-in command, which keeps its name; rename the file`);
      continue;
    }
    byName.set(c.name, c);
  }
  return { commands: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), problems, heldBack: project.heldBack };
}

/** The words of an argument string: whitespace separates, "…" and '…' group. */
export function argumentWords(args: string): string[] {
  const out: string[] = [];
  for (const m of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

/**
 * The prompt a command sends: `$ARGUMENTS` is the whole argument string, `$1`..`$9` its words
 * (empty when absent). A command that names no argument gets them after its text.
 */
export function expandCommand(c: Pick<CustomCommand, 'body'>, args: string): string {
  const words = argumentWords(args);
  const trimmed = args.trim();
  let used = false;
  const text = c.body.replace(/\$(ARGUMENTS|[1-9])(?![0-9])/g, (_m, what: string) => {
    used = true;
    return what === 'ARGUMENTS' ? trimmed : (words[Number(what) - 1] ?? '');
  });
  return !used && trimmed !== '' ? `${text}\n\n${trimmed}` : text;
}

/** `/name rest` → the command it names, and its argument string. */
export function matchCommand(text: string, commands: readonly CustomCommand[]): { command: CustomCommand; args: string } | undefined {
  const m = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const command = commands.find((c) => c.name === m[1]);
  return command ? { command, args: m[2] ?? '' } : undefined;
}
