// Whether an untracked path is ignored, with the rules and the answers of isomorphic-git's
// GitIgnoreManager (each .gitignore from the top down to the path's directory, .git/info/exclude
// with the top one, a path under an ignored directory ignored, a later file able to un-ignore),
// but each .gitignore read and compiled once per call instead of once per path. No config is
// read: core.excludesFile is not honoured, as before.
import fs from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

export class IgnoreRules {
  readonly #top: string;
  readonly #exclude: string;
  readonly #rules = new Map<string, Ignore>();

  constructor(top: string, gitdir: string) {
    this.#top = top;
    this.#exclude = readText(path.join(gitdir, 'info', 'exclude'));
  }

  /** The compiled rules of `folder`'s .gitignore (the top one with the exclude file's first). */
  #at(folder: string): Ignore {
    let ign = this.#rules.get(folder);
    if (!ign) {
      ign = ignore();
      if (!folder) ign.add(this.#exclude);
      ign.add(readText(path.join(this.#top, folder, '.gitignore')));
      this.#rules.set(folder, ign);
    }
    return ign;
  }

  isIgnored(filepath: string): boolean {
    if (path.posix.basename(filepath) === '.git') return true;
    const pieces = filepath.split('/');
    let ignored = false;
    for (let i = 0; i < pieces.length; i++) {
      const folder = pieces.slice(0, i).join('/');
      const rel = pieces.slice(i).join('/');
      const ign = this.#at(folder);
      const parent = path.posix.dirname(rel);
      if (parent !== '.' && ign.ignores(parent)) return true;
      ignored = ignored ? !ign.test(rel).unignored : ign.test(rel).ignored;
    }
    return ignored;
  }
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
