// The host's bearer token: from --token-file, else CXL_SERVE_TOKEN, else one cxl makes once and
// keeps 0600 in its data dir. The token itself is never printed or logged: only where it is.
// Every request is compared in constant time (digests of equal length, timingSafeEqual).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Token {
  /** where it came from, for the status line: a file's path or the variable's name */
  from: string;
  /** true when this start made it */
  made: boolean;
  matches(header: string | null | undefined): boolean;
}

/** The shortest token accepted from a file or the environment (a guessable one is refused). */
const MIN_LENGTH = 16;

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

function tokenOf(value: string, from: string, made: boolean): Token {
  const want = digest(value);
  return {
    from,
    made,
    matches(header) {
      if (!header) return false;
      const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
      // digest first: the comparison takes the same time whatever the length of what was sent
      return timingSafeEqual(digest(m ? m[1] : ''), want) && m !== null;
    },
  };
}

function check(value: string, from: string): string {
  const v = value.trim();
  if (v.length < MIN_LENGTH || /\s/.test(v)) throw new Error(`the token in ${from} must be at least ${MIN_LENGTH} characters with no spaces; make one with \`openssl rand -base64 32\`.`);
  return v;
}

/** The token: `file` when given, else the variable, else the data dir's own (made now if absent). */
export function loadToken(o: { file?: string; env: Record<string, string | undefined>; dataDir: string }): Token {
  if (o.file !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(o.file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read --token-file ${o.file}: ${(err as Error).message}`);
    }
    return tokenOf(check(text, o.file), path.resolve(o.file), false);
  }
  if (o.env.CXL_SERVE_TOKEN) return tokenOf(check(o.env.CXL_SERVE_TOKEN, 'CXL_SERVE_TOKEN'), 'CXL_SERVE_TOKEN', false);
  const file = defaultTokenFile(o.dataDir);
  try {
    return tokenOf(check(fs.readFileSync(file, 'utf8'), file), file, false);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = randomBytes(32).toString('base64url');
  // 'wx': two hosts starting at once do not overwrite each other's; the loser reads the winner's
  try {
    fs.writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return tokenOf(check(fs.readFileSync(file, 'utf8'), file), file, false);
    throw err;
  }
  return tokenOf(value, file, true);
}

export function defaultTokenFile(dataDir: string): string {
  return path.join(dataDir, 'serve', 'token');
}

/** A client's token: --token-file, else CXL_SERVE_TOKEN, else the data dir's (a client on the host's own machine). */
export function clientToken(o: { file?: string; env: Record<string, string | undefined>; dataDir: string }): string | undefined {
  if (o.file !== undefined) return fs.readFileSync(o.file, 'utf8').trim();
  if (o.env.CXL_SERVE_TOKEN) return o.env.CXL_SERVE_TOKEN.trim();
  try {
    return fs.readFileSync(defaultTokenFile(o.dataDir), 'utf8').trim();
  } catch {
    return undefined;
  }
}
