// Which process holds a mission or an ask, and whether it is gone: a record whose process died
// (kill -9, a crash, a closed laptop) must not stay `open` and count against the fleet cap for ever.
// On this host a pid that no longer exists is certain; elsewhere only the heartbeat's age can tell.
import os from 'node:os';
import process from 'node:process';

export interface Owner {
  host: string;
  pid: number;
}

export function currentOwner(): Owner {
  return { host: os.hostname(), pid: process.pid };
}

/** true: certainly gone; false: alive here; undefined: another host, only the heartbeat can tell. */
export function ownerGone(o: Owner | undefined): boolean | undefined {
  if (!o || o.host !== os.hostname()) return undefined;
  if (o.pid === process.pid) return false;
  try {
    process.kill(o.pid, 0);
    return false;
  } catch (err) {
    // EPERM: it exists, owned by someone else
    return (err as NodeJS.ErrnoException).code !== 'EPERM';
  }
}
