// A workspace with credentials, ignored files, heavy dirs, binaries and symlinks in and out,
// shared by the grep / list_dir / find_files tests.
import fs from 'node:fs';
import path from 'node:path';
import { build, tree } from '../fs_helpers.ts';

export function hostileTree(): { root: string; outside: string } {
  const outside = tree({ 'leak.txt': 'API_KEY outside the root\n' });
  const root = tree({
    'src/app.ts': 'const API_KEY = process.env.API_KEY;\nexport {};\n',
    'src/lib/util.ts': '// API_KEY helper\n',
    'src/lib/CRLF.txt': 'API_KEY\r\nsecond\r\n',
    '.env': 'API_KEY=sk-live-dotenv\n',
    '.env.production': 'API_KEY=sk-live-prod\n',
    'config/.env.local': 'API_KEY=sk-live-local\n',
    '.ssh/id_rsa': 'API_KEY -----BEGIN OPENSSH PRIVATE KEY-----\n',
    'keys/id_ed25519': 'API_KEY ed25519-private\n',
    'certs/server.pem': 'API_KEY pem-private\n',
    'deploy.key': 'API_KEY deploy-private\n',
    '.aws/credentials': 'API_KEY aws-secret\n',
    '.netrc': 'machine x password API_KEY-netrc\n',
    '.SSH2/ok.txt': 'API_KEY not quarantined (.SSH2 is not .ssh)\n',
    'node_modules/pkg/index.js': 'API_KEY node_modules\n',
    'dist/out.js': 'API_KEY dist\n',
    'build/gen.ts': 'API_KEY build\n',
    '.git/config': 'API_KEY git-config\n',
    '.gitignore': 'ignored/\n*.log\n!keep.log\n',
    'ignored/secret.txt': 'API_KEY ignored\n',
    'app.log': 'API_KEY log\n',
    'keep.log': 'API_KEY keep\n',
    'sub/.gitignore': 'local.txt\n',
    'sub/local.txt': 'API_KEY sub-local\n',
    'sub/other.txt': 'API_KEY other\n',
    'bin.dat': Buffer.from('\u0000API_KEY binary\n'),
    '.hidden/h.txt': 'API_KEY hidden\n',
    'run.sh': { content: '#!/bin/sh\n', mode: 0o755 },
    'big.bin': Buffer.alloc(2 * 1024 * 1024 + 10),
  });
  build(root, {
    'link_out': { symlink: outside },
    'link_env': { symlink: path.join(root, '.env') },
    'src/link_in': { symlink: path.join(root, 'src/lib') },
  });
  fs.chmodSync(path.join(root, 'run.sh'), 0o755);
  return { root, outside };
}

/** What grep API_KEY over `.` may show: nothing quarantined, asked, denied, ignored, binary, or behind a link. */
export const API_KEY_HITS = [
  '.SSH2/ok.txt:1: API_KEY not quarantined (.SSH2 is not .ssh)',
  '.hidden/h.txt:1: API_KEY hidden',
  'keep.log:1: API_KEY keep',
  'src/app.ts:1: const API_KEY = process.env.API_KEY;',
  'src/lib/CRLF.txt:1: API_KEY',
  'src/lib/util.ts:1: // API_KEY helper',
  'sub/other.txt:1: API_KEY other',
].join('\n');

/** Strings that must never appear in any traversal's output. */
export const NEVER_SHOWN = ['sk-live', 'OPENSSH', 'ed25519-private', 'pem-private', 'deploy-private', 'aws-secret', 'netrc', 'node_modules', 'dist', 'git-config', 'ignored', 'API_KEY log', 'sub-local', 'binary', 'outside the root'];
