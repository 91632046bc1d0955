// Start-up cost of `cxl --version` on Node against `node -e 0`, spawned the same way.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { report, timeMs } from './report.ts';

const bin = fileURLToPath(new URL('../bin/cxl.js', import.meta.url));
const node = process.execPath;
const run = (args: string[]) => () => {
  const r = spawnSync(node, args, { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
};
const ours = await timeMs(run([bin, '--version']), 15);
const ref = await timeMs(run(['-e', '0']), 15);
report({ name: 'cxl --version (Node)', ours, reference: ref, unit: 'ms', against: 'node -e 0', target: '< 150 ms' });
