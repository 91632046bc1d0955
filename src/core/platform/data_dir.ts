// Where cxl keeps its state (sessions, prompt history): $XDG_DATA_HOME/cxl, else ~/.local/share/cxl.
// In core so the agent (sessions) and the client (prompt history) find the same place.
import os from 'node:os';
import path from 'node:path';

export function dataDir(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_DATA_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'cxl');
  return path.join(env.HOME || os.homedir(), '.local', 'share', 'cxl');
}
