// The browsing tools in a session's additional directory: list_dir, grep and find_files walk THAT
// directory (never the same path joined onto the workspace root), with the workspace's filters
// (.gitignore from there down, heavy dirs, the credential quarantine), paths shown absolute; both
// engines. Real files in a temp dir.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { additionalRoots } from '../../../src/core/local_fs/extra_roots.ts';
import { LocalFsToolset } from '../../../src/core/local_fs/toolset.ts';
import { findRipgrep } from '../../../src/core/local_fs/ripgrep.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-extra-browse-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));

const root = path.join(base, 'ws');
const lib = path.join(base, 'lib');
const files: Record<string, string> = {
  [`${lib}/src/a.txt`]: 'needle in lib\n',
  [`${lib}/src/skip.log`]: 'needle ignored\n',
  [`${lib}/.gitignore`]: '*.log\n',
  [`${lib}/node_modules/m/needle.txt`]: 'needle heavy\n',
  [`${lib}/.env`]: 'needle=secret\n',
  [`${lib}/.ssh/id_rsa`]: 'needle key\n',
  // the decoy: the extra directory's path joined onto the workspace root
  [`${root}${lib}/src/decoy.txt`]: 'needle decoy\n',
};
for (const [p, text] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}
const extra = additionalRoots([lib], { root, home: path.join(base, 'home-not-here') });

for (const engine of ['builtin', 'auto'] as const) {
  test(`${engine}: list_dir, grep and find_files in an additional directory see it, filtered as the workspace is, shown absolute`, async (t) => {
    if (engine === 'auto' && !(await findRipgrep())) return t.diagnostic('no ripgrep here: the builtin engine case covers the walk');
    const fsTools = new LocalFsToolset({ root, extra, approvals: 'allow', grepEngine: engine });
    const listed = String(await fsTools.call('list_dir', { path: lib, recursive: true }));
    assert.match(listed, /^src\/a\.txt$/m);
    assert.match(listed, /node_modules\/ {2}\(not descended: heavy directory\)/);
    assert.doesNotMatch(listed, /decoy|skip\.log|\.env|id_rsa/);
    const grep = String(await fsTools.call('grep', { path: lib, pattern: 'needle' }));
    assert.equal(grep, `${lib}/src/a.txt:1: needle in lib`);
    const found = (await fsTools.call('find_files', { path: lib, pattern: '*.txt' })) as { matches: string[] };
    assert.deepEqual(found.matches, [`${lib}/src/a.txt`]);
    // the workspace itself as before (control): the decoy is there and shown relative
    const inWs = (await fsTools.call('find_files', { pattern: '*.txt' })) as { matches: string[] };
    assert.deepEqual(inWs.matches, [`${lib.slice(1)}/src/decoy.txt`]);
  });
}

test('a hard link in an additional directory to a quarantined file there is refused as that file is: the links are looked for in the directory that holds it', async () => {
  const linked = path.join(lib, 'src', 'notes.txt');
  fs.linkSync(path.join(lib, '.ssh', 'id_rsa'), linked);
  try {
    const fsTools = new LocalFsToolset({ root, extra, approvals: 'allow', grepEngine: 'builtin' });
    await assert.rejects(fsTools.call('read_file', { path: linked }), (e: { code?: string; message: string }) => e.code === 'quarantined' && /hard link/.test(e.message));
  } finally {
    fs.rmSync(linked);
  }
});
