// Locates the ripgrep binary shipped by @vscode/ripgrep. grep and find_files use it as a fast
// engine when present; without it they fall back to the in-process implementation.
import fs from 'node:fs';

let cached: Promise<string | null> | undefined;

/** Path of the bundled `rg`, or null when the platform package is not installed. */
export function findRipgrep(): Promise<string | null> {
  cached ??= import('@vscode/ripgrep').then(
    (m: { rgPath?: string }) => (m.rgPath && fs.existsSync(m.rgPath) ? m.rgPath : null),
    () => null,
  );
  return cached;
}

/** Escapes glob metacharacters so a directory name is matched literally by `rg -g`. */
export const rgGlobLiteral = (name: string) => name.replace(/[*?[\]{}!\\]/g, '\\$&');
