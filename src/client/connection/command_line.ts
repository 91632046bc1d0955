// Splits an --agent "<command line>" into argv the way a POSIX shell would for plain words,
// quotes and backslashes. Anything needing a real shell ($, |, globs) is not interpreted: run
// such agents through `sh -c '...'` explicitly.
import { shellLine } from '../../core/shell_word.ts';

export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else cur += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) cur += line[++i];
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in the agent command line`);
  if (has || cur) out.push(cur);
  return out;
}

/** argv back as one line a shell reads the same way (for messages that name the agent command). */
export function joinCommandLine(argv: string[]): string {
  return shellLine(argv);
}
