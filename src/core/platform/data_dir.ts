// Where cxl keeps its state: $XDG_DATA_HOME/cxl, else ~/.local/share/cxl. Sessions, prompt
// history and checkpoints live there. In core so the agent (sessions), the client (prompt
// history) and the protected-path table find the same place: the table hides it from commands
// and refuses it to the file tools (a session log can hold a file a person approved reading in
// another project).
import os from 'node:os';
import path from 'node:path';

export function dataDir(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_DATA_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'cxl');
  return path.join(env.HOME || os.homedir(), '.local', 'share', 'cxl');
}
