// Who a commit is by: GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL, else user.name and user.email from the
// repository's config, the user's global config (~/.gitconfig, $XDG_CONFIG_HOME/git/config) and
// the system's, first found wins, as git decides. Only these two keys are read: nothing else of
// any config (no include, no program it names) is followed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

export interface Identity {
  name: string;
  email: string;
}

/** The value of `section.key` in a git config text (last one wins, as in git), or undefined. */
export function configValue(text: string, section: string, key: string): string | undefined {
  let cur = '';
  let found: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    const sec = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]\s*(.*)$/.exec(line);
    if (sec) {
      cur = sec[1].toLowerCase();
      line = sec[2];
      if (!line) continue;
    }
    if (cur !== section) continue;
    const m = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!m || m[1].toLowerCase() !== key) continue;
    found = unquote(m[2] ?? '');
  }
  return found;
}

function unquote(s: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length) out += s[++i] === 't' ? '\t' : s[i] === 'n' ? '\n' : s[i];
    else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '#' || c === ';')) break;
    else out += c;
  }
  return out.trim();
}

function read(file: string): string {
  try {
    return fs.statSync(file).size > 1 << 20 ? '' : fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The commit identity for the repository whose git dir is `gitdir`, or null when none is set. */
export function commitIdentity(gitdir: string, env: Record<string, string | undefined> = process.env, home = os.homedir()): Identity | null {
  const xdg = env.XDG_CONFIG_HOME || path.join(home, '.config');
  const files = [path.join(gitdir, 'config'), path.join(xdg, 'git', 'config'), path.join(home, '.gitconfig'), '/etc/gitconfig'].map(read);
  const pick = (key: string, envName: string) => env[envName]?.trim() || files.map((t) => configValue(t, 'user', key)).find((v) => v);
  const name = pick('name', 'GIT_AUTHOR_NAME');
  const email = pick('email', 'GIT_AUTHOR_EMAIL');
  return name && email ? { name, email } : null;
}
