// A toolchain's config file as an unasked command may read it: the same file with every line
// that holds a credential left out. `~/.gitconfig` holds `user.name` a test suite needs beside an
// `insteadOf` URL with a token in it; `~/.cargo/config.toml` holds a linker beside
// `[registry] token`. Hiding the file whole breaks the build; binding it whole hands the token
// to whatever the test suite runs. What is left out: a line whose key names a secret (token,
// password, secret, credential, API key, auth, an HTTP header), a line whose value holds a URL
// with a login in it (or `user:pass@host` without a scheme, an Anaconda `/t/TOKEN/`
// channel, an `Authorization` value), with the lines a value continues on; in git config, a
// `[credential]` section whole and a section whose name holds a login (`[url "https://TOKEN@…"]`).

/** Key names that say the value is a secret (matched anywhere in the key, any case). */
const SECRET_KEY = /token|passw(or)?d|^pass$|smtppass|secret|credential|api[-_]?key|apikey|access[-_]?key|private[-_]?key|extraheader|(^|[^a-z])_?auth$|^auth$|_auth[^o]/i;

/** A `key = value` or `key: value` line: the key, and what follows the separator. */
const KEY_LINE = /^\s*["']?([^\s=:"'[\]#;]+(?:\s+[^\s=:"'[\]#;]+)*)["']?\s*[=:]\s*(.*)$/;

/** A key inside a line (TOML inline tables: `{ index = "…", token = "…" }`). */
const INNER_KEY = /(?:^|[\s{,])["']?([\w.:/@-]+)["']?\s*=/g;

/** Values that carry a login whatever their key. */
function valueHoldsSecret(value: string, key: string): boolean {
  if (/[a-z][a-z0-9+.-]*:\/\/[^/\s@"']+@/i.test(value)) return true; // https://user:pass@host, https://TOKEN@host
  const words = value.split(/[\s,|"']+/);
  if (/proxy/i.test(key) && words.some((el) => /^[^/?#]*@/.test(el.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')))) return true;
  if (words.some((el) => /^[^\s/@:=]+:[^\s/@]+@[^\s/@]+/.test(el))) return true; // user:pass@host without a scheme, under any key
  if (/\/t\/[A-Za-z0-9_-]{8,}\//.test(value)) return true; // conda channel token
  if (/\b(?:Bearer|Basic|token)\s+[A-Za-z0-9+/=._~-]{8,}/.test(value)) return true; // a header value
  return false;
}

function lineHoldsSecret(line: string): boolean {
  const m = KEY_LINE.exec(line);
  if (m && SECRET_KEY.test(m[1])) return true;
  for (const k of line.matchAll(INNER_KEY)) if (SECRET_KEY.test(k[1])) return true;
  // the whole line: a value on a line of its own (an ini list's next line) has no key of its own
  return valueHoldsSecret(line, m?.[1] ?? '');
}

/** How many brackets and triple quotes a line leaves open (rough: strings are skipped). */
function opens(line: string): number {
  const bare = line.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '');
  let depth = 0;
  for (const c of bare) {
    if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
  }
  const triple = (line.match(/"""|'''/g) ?? []).length % 2;
  return depth + triple;
}

/** The lines of `text` that `keep` keeps, its final newline kept (a dropped last line must not take it along). */
function byLine(text: string, keep: (lines: string[]) => string[]): string {
  const nl = text.endsWith('\n');
  return keep((nl ? text.slice(0, -1) : text).split('\n')).join('\n') + (nl ? '\n' : '');
}

/**
 * Lines of `key = value` / `key: value` config (TOML, ini, npmrc, pip.conf, cabal, a Go env
 * file, `.condarc`): each line holding a secret left out, with the lines its value runs on to
 * (an array or table left open, a trailing backslash).
 */
export function scrubLines(text: string): string {
  return byLine(text, (lines) => {
    const out: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (!lineHoldsSecret(lines[i])) {
        out.push(lines[i]);
        continue;
      }
      // skip what the dropped value goes on with
      let open = opens(lines[i]);
      let cont = /\\$/.test(lines[i]);
      while ((open > 0 || cont) && i + 1 < lines.length) {
        i++;
        open += opens(lines[i]);
        cont = /\\$/.test(lines[i]);
      }
    }
    return out;
  });
}

/** A git config section that is dropped whole: credential helpers and their settings, or a name holding a login. */
function secretSection(header: string): boolean {
  const name = header.trim().toLowerCase();
  return /^credential\b/.test(name) || valueHoldsSecret(header, '');
}

/**
 * git-config(1) text: a `[credential …]` section and a section whose name holds a login left out
 * whole; elsewhere, a line whose key names a secret (`extraHeader`, `smtpPass`, `token`) or whose
 * value holds a login (`proxy = user:pass@host`, an `insteadOf` URL with a token), with its
 * backslash-continued lines.
 */
export function scrubGitConfig(text: string): string {
  return byLine(text, (lines) => {
    const out: string[] = [];
    let dropSection = false;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const header = /^\s*\[([^\]]*)\](.*)$/.exec(line);
      if (header) {
        dropSection = secretSection(header[1]);
        if (dropSection) continue;
        // `[section] key = value` on one line: the header stays, the pair goes
        out.push(header[2].trim() && lineHoldsSecret(header[2]) ? line.slice(0, line.indexOf(']') + 1) : line);
        continue;
      }
      if (!(dropSection || lineHoldsSecret(line))) {
        out.push(line);
        continue;
      }
      while (/\\$/.test(lines[i]) && i + 1 < lines.length) i++;
    }
    return out;
  });
}

export type ScrubFormat = 'git' | 'lines';

export function scrub(text: string, format: ScrubFormat): string {
  return format === 'git' ? scrubGitConfig(text) : scrubLines(text);
}
