// The registry's entries say their tools' names without loading their implementation (`cxl tool`
// routes a bare name by them, `cxl config` lists them): those names must be what each toolset,
// once opened, offers, in its order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORE_TOOLSETS } from '../../../src/core/registry/builtin_toolsets.ts';
import { ReadLedger } from '../../../src/core/local_fs/ledger.ts';

test('each built-in toolset names the tools it offers once opened, in the same order', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-registry-'));
  try {
    const site = { root, ledger: new ReadLedger('registry'), warn: () => {} };
    for (const b of CORE_TOOLSETS) {
      assert.ok(b.tools?.length, `${b.name} declares no tools`);
      const opened = await b.open(site, b.fromFlags({}));
      assert.deepEqual(b.tools, opened.toolset.list().map((t) => t.name), b.name);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a toolset whose policy cannot be used rejects when opened, naming it', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-registry-'));
  try {
    const fsEntry = CORE_TOOLSETS.find((b) => b.name === 'local_fs')!;
    await assert.rejects(fsEntry.open({ root, ledger: new ReadLedger('registry'), warn: () => {} }, { _allowed_dir: path.join(root, 'missing') }), /missing/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
