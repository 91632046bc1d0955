// What a project's configuration makes cxl start or read besides its own text, where that lives
// in the project: the program an [mcp_servers.*] entry runs and every file or folder its
// arguments and environment name (`node tools/helper.js`, `python3 -m pkg`, PATH = "./bin"), a
// [remote_tools.*] OpenAPI file. Trust binds their content as it binds the configuration's
// (trust.ts): a replaced script is a changed project and is asked about again. What those
// programs load in turn without naming it on the command line (a script's own imports) is not
// followed; docs/config.md says how far this goes.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { nodeCrypto } from '../core/platform/runtime.ts';

/** A file's text is kept (and shown as a diff) up to this; past it, its size and hash stand for it. */
const TEXT_BYTES = 1024 * 1024;
/** A folder named on a command line is bound entry by entry, up to this many entries. */
export const MAX_TREE_ENTRIES = 5000;
/** Past this many bytes hashed in one folder, its further files are bound by size, times and inode. */
const MAX_TREE_BYTES = 32 * 1024 * 1024;

/** `\u0000` starts a text that stands for a file rather than being it (absent, binary, too large). */
export const ABSENT = '\u0000absent';

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

function within(root: string, p: string): boolean {
  const r = path.relative(root, p);
  return r !== '' && !r.startsWith('..') && !path.isAbsolute(r);
}

function sha256(data: Uint8Array | string): string {
  return nodeCrypto().createHash('sha256').update(data).digest('hex');
}

/** A file as trust binds it: its text, or a line naming its size and hash when it is binary or large. */
export function fileBinding(file: string): string {
  const data = fs.readFileSync(file);
  if (data.length <= TEXT_BYTES && !data.includes(0)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(data);
    } catch {
      // not UTF-8: a binary
    }
  }
  return `\u0000${data.length <= TEXT_BYTES ? 'binary' : 'large'} file, ${data.length} bytes, sha256 ${sha256(data)}`;
}

/** A folder as trust binds it: one line per entry below it (a file's hash, a link's target), `.git` left out. */
function treeBinding(dir: string, root: string): string {
  const lines: string[] = [];
  let hashed = 0;
  let count = 0;
  const walk = (d: string): boolean => {
    let names: string[];
    try {
      names = fs.readdirSync(d).sort();
    } catch (err) {
      lines.push(`${path.relative(root, d)}/ unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      return true;
    }
    for (const n of names) {
      if (n === '.git') continue;
      if (++count > MAX_TREE_ENTRIES) {
        lines.push(`\u0000more than ${MAX_TREE_ENTRIES} entries: the rest is not bound`);
        return false;
      }
      const p = path.join(d, n);
      const rel = path.relative(root, p);
      const st = fs.lstatSync(p, { throwIfNoEntry: false, bigint: true });
      if (!st) continue;
      if (st.isSymbolicLink()) lines.push(`${rel} -> ${fs.readlinkSync(p)}`);
      else if (st.isDirectory()) {
        lines.push(`${rel}/`);
        if (!walk(p)) return false;
      } else if (st.isFile()) {
        if (hashed + Number(st.size) <= MAX_TREE_BYTES) {
          hashed += Number(st.size);
          lines.push(`${rel} sha256 ${sha256(fs.readFileSync(p))}`);
        } else lines.push(`${rel} ${st.size} bytes, changed ${st.ctimeNs}, modified ${st.mtimeNs}, inode ${st.ino}`);
      } else lines.push(`${rel} (not a file)`);
    }
    return true;
  };
  walk(dir);
  return `${lines.join('\n')}\n`;
}

/**
 * Collects what one path names: its content when it is inside the project (a folder's entries,
 * a file's text), `ABSENT` when it is not there yet but would be (so one created later is a
 * change). The project folder itself and paths outside it are not the project's to bind.
 */
class Binder {
  readonly files: Record<string, string> = {};

  constructor(readonly root: string) {}

  add(p: string, absentToo: boolean): void {
    const abs = path.resolve(this.root, p);
    // stat first, without throwing for a path that is not there (most PATH places are not):
    // an exception per look-up was most of the cost
    let real: string | undefined;
    try {
      if (statQuiet(abs)) real = fs.realpathSync.native(abs);
    } catch {
      real = undefined;
    }
    if (!within(this.root, abs) && !(real !== undefined && within(this.root, real))) return;
    const rel = within(this.root, abs) ? path.relative(this.root, abs) : path.relative(this.root, real!);
    if (Object.hasOwn(this.files, rel)) return;
    if (real === undefined) {
      if (absentToo) this.files[rel] = ABSENT;
      return;
    }
    try {
      const st = fs.statSync(real);
      if (st.isDirectory()) this.files[`${rel}/`] = treeBinding(real, this.root);
      else if (st.isFile()) this.files[rel] = fileBinding(real);
    } catch (err) {
      this.files[rel] = `\u0000unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  }
}

function statQuiet(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined; // ENOTDIR, EACCES: not there for us
  }
}

/** Words of a command-line string that may name a path: the word, what follows `=`, each part of a `:` list. */
function pathWords(s: string): string[] {
  const out = new Set<string>();
  for (const w of s.split(/\s+/)) {
    if (!w) continue;
    if (!w.startsWith('-')) out.add(w);
    const eq = w.indexOf('=');
    const value = eq >= 0 ? w.slice(eq + 1) : w;
    if (eq >= 0 && value) out.add(value);
    for (const part of value.split(path.delimiter)) if (part && !part.startsWith('-')) out.add(part);
  }
  return [...out];
}

/** Whether a word is written as a path (`./x`, `tools/x`, `../x`), so one absent now is bound as absent. */
const pathShaped = (w: string) => (w.includes('/') || w.startsWith('.')) && !/^[A-Za-z][\w+.-]*:\/\//.test(w);

/** One stdio MCP server's command line, env and working folder (the project folder). */
function bindServer(b: Binder, spec: Table): void {
  const command = typeof spec.command === 'string' ? spec.command : undefined;
  if (!command) return;
  const args = Array.isArray(spec.args) ? spec.args.filter((a): a is string => typeof a === 'string') : [];
  const env = isTable(spec.env) ? Object.fromEntries(Object.entries(spec.env).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
  if (command.includes('/')) b.add(command, true);
  else {
    // the program is looked up on the PATH the server gets: a place inside the project on it
    // (`./bin`, `.`) would run a file put there instead, so each such place is bound, as what is
    // there or as absent. Places outside are not looked at (no stat each: this runs at every start).
    const search = env.PATH ?? process.env.PATH ?? '';
    for (const entry of search.split(path.delimiter)) {
      const dir = path.resolve(b.root, entry || '.');
      if (dir === b.root || within(b.root, dir)) b.add(path.join(dir, command), true);
    }
  }
  args.forEach((a, i) => {
    // `-m pkg.mod`: the module is looked up from the working folder first
    if (args[i - 1] === '-m' && /^[A-Za-z_][\w.]*$/.test(a)) {
      const mod = a.replace(/\./g, '/');
      if (fs.existsSync(path.join(b.root, mod))) b.add(mod, false);
      else b.add(`${mod}.py`, true);
    }
    for (const w of pathWords(a)) b.add(w, pathShaped(w));
  });
  for (const v of Object.values(env)) for (const w of pathWords(v)) b.add(w, pathShaped(w));
}

/** A remote service's OpenAPI document, when it is a file (relative to the agents.toml's folder). */
function bindOpenapi(b: Binder, spec: Table, configDir: string): void {
  const o = spec.openapi;
  if (typeof o !== 'string' || o === '' || /^https?:\/\//i.test(o) || o.startsWith('/') || o.startsWith('~/')) return;
  const file = o.startsWith('file://') ? decodeURIComponent(new URL(o).pathname) : path.resolve(configDir, o);
  b.add(file, true);
}

/**
 * The project files a parsed project agents.toml starts or reads, project-relative path (a
 * folder ends in `/`) → how trust binds it. `dir` is the project folder, real path.
 */
export function boundFiles(dir: string, doc: Table): Record<string, string> {
  const b = new Binder(dir);
  const configDir = path.join(dir, '.contenox');
  const sections: Table[] = [doc];
  if (isTable(doc.agents)) for (const a of Object.values(doc.agents)) if (isTable(a)) sections.push(a);
  for (const s of sections) {
    if (isTable(s.mcp_servers)) for (const spec of Object.values(s.mcp_servers)) if (isTable(spec)) bindServer(b, spec);
    if (isTable(s.remote_tools)) for (const spec of Object.values(s.remote_tools)) if (isTable(spec)) bindOpenapi(b, spec, configDir);
  }
  return b.files;
}
