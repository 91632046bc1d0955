// native-go on a small module in a temp dir, against ground truth written into the fixture:
// outlines, declarations, references by type identity, implementations both ways, descriptions,
// type errors and go vet findings (and "changed" following edits), the teaching errors, the caps;
// and, through the built cxl with no go on PATH, the clear "no go toolchain". Without a go
// toolchain on this machine the go-dependent tests say so and do not run (CI installs go).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { isToolError } from '../../../src/core/errors.ts';
import { localReplacements } from '../../../src/core/native_go/module.ts';
import { parseGoPolicy } from '../../../src/core/native_go/policy.ts';
import { NativeGoToolset } from '../../../src/core/native_go/toolset.ts';
import { runCxl } from '../../helpers/cxl.ts';
import { findOnPath, note } from '../../helpers/system_tools.ts';

const hasGo = (what: string): boolean => {
  if (findOnPath('go', process.env.PATH)) return true;
  note(`go is not on PATH: ${what} did not run (apt-get install golang-go)`);
  return false;
};

const FILES: Record<string, string> = {
  'go.mod': 'module example.com/fixture\n\ngo 1.19\n',
  'shapes/shapes.go': `// Package shapes has shapes.
package shapes

import "math"

// Shape is anything with an area.
type Shape interface {
	// Area in square units.
	Area() float64
}

// Circle is round.
type Circle struct {
	// R is the radius.
	R float64
}

// Area of the circle.
func (c Circle) Area() float64 { return math.Pi * c.R * c.R }

// Square has four equal sides.
type Square struct{ Side float64 }

// Area of the square.
func (s *Square) Area() float64 { return s.Side * s.Side }

// Unit is the unit circle.
var Unit = Circle{R: 1}

func helper() int { return 1 }
`,
  'report/report.go': `package report

import (
	"fmt"

	"example.com/fixture/shapes"
)

// Total sums the areas.
func Total(ss []shapes.Shape) float64 {
	t := 0.0
	for _, s := range ss {
		t += s.Area()
	}
	return t
}

// Print prints a report.
func Print() {
	fmt.Println(Total([]shapes.Shape{shapes.Unit, &shapes.Square{Side: 2}}), shapes.Unit.Area())
}
`,
  'other/other.go': 'package other\n\n// Circle is another circle.\ntype Circle struct{}\n',
  'typeerr/typeerr.go': 'package typeerr\n\nfunc Broken() int { return "not an int" }\n',
  'vetpkg/vetpkg.go': 'package vetpkg\n\nimport "fmt"\n\n// Say misuses a verb.\nfunc Say() { fmt.Printf("%d\\n", "text") }\n',
};

function module(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.homedir(), '.cxl-go-test-')));
  after(() => fs.rmSync(d, { recursive: true, force: true }));
  for (const [rel, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
    fs.writeFileSync(path.join(d, rel), text);
  }
  return d;
}

const go = (root: string, policy: Record<string, string> = {}) => new NativeGoToolset({ root, policy: parseGoPolicy(policy).policy });
type R = Record<string, unknown> & { text: string };
const call = async (ts: NativeGoToolset, tool: string, args: Record<string, unknown>) => (await ts.call(tool, args)) as R;

async function refusal(p: Promise<unknown>, code: string): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.ok(isToolError(err), String(err));
    assert.equal(err.code, code, err.message);
    return err.message;
  }
  assert.fail(`expected ${code}`);
}

test('symbols, definition, references, describe and implementations agree with the fixture', { timeout: 300_000 }, async () => {
  if (!hasGo('the native-go answers')) return;
  const root = module();
  const ts = go(root);
  const syms = await call(ts, 'go_symbols', { target: 'shapes' });
  assert.deepEqual((syms.symbols as { name: string }[]).map((s) => s.name), ['Circle', 'Circle.Area', 'Shape', 'Square', 'Square.Area', 'Unit', 'helper']);
  assert.match(syms.text, /struct Circle shapes\.Circle {2}shapes\/shapes\.go:13/);
  assert.match(String(syms.toolchain), /^go1\.\d+.* tests excluded, no build tags; advisory/);
  const capped = await call(go(root, { _max_symbols: '2' }), 'go_symbols', { target: 'example.com/fixture/shapes', max: 500 });
  assert.equal(capped.shown, 2);
  assert.match(String(capped.note), /\+5 more symbols not shown/);
  assert.equal((await call(ts, 'go_symbols', { dir: 'report' })).target, 'example.com/fixture/report');
  const file = await call(ts, 'go_symbols', { target: 'report/report.go' });
  assert.equal(file.kind, 'file');
  const def = await call(ts, 'go_definition', { symbol: 'shapes.Circle.Area' });
  assert.equal(def.location, 'shapes/shapes.go:19:17');
  assert.equal(def.line, 'func (c Circle) Area() float64 { return math.Pi * c.R * c.R }');
  assert.equal((await call(ts, 'go_definition', { symbol: 'example.com/fixture/shapes.Unit' })).location, 'shapes/shapes.go:28:5');
  const refs = await call(ts, 'go_references', { symbol: 'shapes.Unit', max: 10000 });
  assert.deepEqual([refs.total, refs.uses], [1, 2]);
  assert.deepEqual((refs.files as { file: string; lines: { line: number }[] }[]).map((f) => [f.file, f.lines.map((l) => l.line)]), [['report/report.go', [20]]]);
  const area = await call(ts, 'go_references', { symbol: 'shapes.Shape.Area' });
  assert.match(String(area.note), /calls THROUGH the interface/);
  assert.equal(area.total, 1);
  const desc = await call(ts, 'go_describe', { symbol: 'shapes.Circle' });
  assert.equal(desc.doc, 'Circle is round.');
  assert.deepEqual((desc.members as { name: string; kind: string; doc: string }[]).map((m) => [m.name, m.kind, m.doc]), [['R', 'field', 'R is the radius.'], ['Area', 'method', 'Area of the circle.']]);
  const impl = await call(ts, 'go_implementations', { symbol: 'shapes.Shape' });
  assert.deepEqual((impl.implementers as { name: string; receiver: string }[]).map((i) => [i.name, i.receiver]), [['shapes.Circle', 'value'], ['shapes.Square', 'pointer']]);
  const back = await call(ts, 'go_implementations', { symbol: 'shapes.Square' });
  assert.deepEqual((back.interfaces as { name: string; receiver: string }[]).map((i) => [i.name, i.receiver]), [['shapes.Shape', 'pointer']]);
  // teaching errors
  assert.match(await refusal(ts.call('go_definition', { symbol: 'Circle' }), 'not_found'), /"Circle" matches 2 declarations: other\.Circle, shapes\.Circle; re-ask with one of these qualified names/);
  assert.match(await refusal(ts.call('go_definition', { symbol: 'shapes.Circl' }), 'not_found'), /not declared in this module\. Did you mean: .*shapes\.Circle/);
  assert.match(await refusal(ts.call('go_definition', { symbol: 'shapes' }), 'not_found'), /names a package, not a symbol; use go_symbols/);
  assert.match(await refusal(ts.call('go_definition', { symbol: '(*Square).Area' }), 'not_found'), /is not a symbol name/);
  assert.match(await refusal(ts.call('go_definition', { symbol: 'a.b.c.d' }), 'not_found'), /too many dotted parts/);
  assert.match(await refusal(ts.call('go_implementations', { symbol: 'shapes.Unit' }), 'not_found'), /is a var, not a type; go_implementations relates types to interfaces/);
  assert.match(await refusal(ts.call('go_symbols', { target: 'nopkg' }), 'not_found'), /no package "nopkg" in this module/);
});

test('diagnostics: type errors first, vet findings for packages that type-check, "changed" follows edits', { timeout: 300_000 }, async () => {
  if (!hasGo('go_diagnostics')) return;
  const root = module();
  const ts = go(root);
  const all = await call(ts, 'go_diagnostics', { scope: 'all' });
  const diags = all.diagnostics as { location: string; severity: string; category: string; message: string }[];
  assert.equal(diags[0].severity, 'type-error');
  assert.match(diags[0].location, /^typeerr\/typeerr\.go:3:\d+$/);
  assert.match(diags[0].message, /cannot use "not an int"/);
  const vet = diags.filter((d) => d.severity === 'vet');
  assert.equal(vet.length, 1);
  assert.equal(vet[0].category, 'printf');
  assert.match(vet[0].location, /^vetpkg\/vetpkg\.go:6:\d+$/);
  assert.match(String(all.note), /1 package\(s\) with type errors were not vetted/);
  const first = await call(ts, 'go_diagnostics', {});
  assert.match(String(first.scope), /changed since the last go_diagnostics \(0 package/);
  fs.writeFileSync(path.join(root, 'report/report.go'), `${FILES['report/report.go']}\nfunc extra() {}\n`);
  fs.utimesSync(path.join(root, 'report/report.go'), new Date(), new Date(Date.now() + 5000));
  const changed = await call(ts, 'go_diagnostics', {});
  assert.deepEqual(changed.packages, ['example.com/fixture/report']);
  const pkg = await call(ts, 'go_diagnostics', { scope: 'package', target: 'vetpkg', passes: ['printf', 'shadow'] });
  assert.equal(pkg.vet_findings, 1);
  assert.match(String(pkg.note), /shadow is not part of go vet/);
  assert.match(await refusal(ts.call('go_diagnostics', { scope: 'everything' }), 'bad_args'), /unknown diagnostics scope "everything"; use "changed", "package", or "all"/);
  assert.match(await refusal(ts.call('go_diagnostics', { passes: 'lint' }), 'bad_args'), /unknown vet pass "lint"; available passes are printf, unusedresult, unreachable, nilfunc, shadow/);
});

test('no module, a dir outside the workspace, a module above it: said, not guessed', { timeout: 120_000 }, async () => {
  if (!hasGo('native-go module discovery')) return;
  const root = module();
  fs.mkdirSync(path.join(root, 'sub'));
  assert.match(await refusal(go(root).call('go_symbols', { dir: '../..' }), 'escape'), /outside the workspace root/);
  assert.match(await refusal(go(path.join(root, 'sub')).call('go_symbols', {}), 'escape'), /is the module root for .* but lies outside the workspace/);
  const plain = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-nogo-')));
  after(() => fs.rmSync(plain, { recursive: true, force: true }));
  assert.match(await refusal(go(plain).call('go_symbols', {}), 'not_found'), /no Go module: no go\.mod at or above/);
});

test('without go on PATH every native-go tool says so, through cxl tool', async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-nogo-')));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'go.mod'), 'module x\n');
  for (const tool of ['native-go.go_symbols', 'go_diagnostics']) {
    const r = await runCxl(['tool', tool, '{}'], { cwd: dir, env: { PATH: path.join(dir, 'empty-bin') } });
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as { code: string; error: string };
    assert.equal(out.code, 'not_found');
    assert.match(out.error, /native-go: no go toolchain: the go binary is not on PATH.*apt-get install golang-go/);
  }
});

// The go native-go starts runs with cxl's own rights before any sandbox (`go version`, the
// helper's build): a `go` the repository put first on PATH (node_modules/.bin, as `npx` runs
// cxl) must never be it. The fake writes a marker outside the workspace; its control, the same
// fake in a directory outside the workspace, does run (the fake is real).
test('a go planted in the workspace, first on PATH, is never started; the real one answers', async () => {
  if (!hasGo('the planted-go test')) return;
  const real = fs.realpathSync(findOnPath('go')!);
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-go-planted-')));
  const marks = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-go-marker-')));
  after(() => {
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(marks, { recursive: true, force: true });
  });
  fs.writeFileSync(path.join(ws, 'go.mod'), 'module example.com/planted\n\ngo 1.19\n');
  fs.writeFileSync(path.join(ws, 'p.go'), 'package planted\n\n// Answer is the answer.\nconst Answer = 42\n');
  const fakeGo = (dir: string, marker: string) => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'go'), `#!/bin/sh\necho "go ran: $*" >> '${marker}'\necho 'go version go1.99.0 linux/amd64'\n`, { mode: 0o755 });
  };
  const marker = path.join(marks, 'planted');
  const bin = path.join(ws, 'node_modules', '.bin');
  fakeGo(bin, marker);
  const r = await runCxl(['tool', 'native-go.go_symbols', '{}'], { cwd: ws, env: { PATH: `${bin}:${process.env.PATH}` }, timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(fs.existsSync(marker), false, `the planted go ran: ${fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : ''}`);
  const out = (JSON.parse(r.stdout) as { result: { toolchain: string; text: string } }).result;
  assert.match(out.text, /const Answer/);
  assert.doesNotMatch(out.toolchain, /go1\.99\.0/);
  // control: outside the workspace the same fake is the go started
  const outside = path.join(marks, 'bin');
  const ran = path.join(marks, 'outside');
  fakeGo(outside, ran);
  await runCxl(['tool', 'native-go.go_symbols', '{}'], { cwd: ws, env: { PATH: `${outside}:${process.env.PATH}` }, timeoutMs: 120_000 });
  assert.match(fs.readFileSync(ran, 'utf8'), /go ran: version/);
  assert.ok(real !== path.join(outside, 'go'));
});

// Confinement as the file tools have it: what lies outside the workspace is not printed by any
// native-go tool, whichever way go would be led to it. The outside directory is under /var/tmp:
// the sandbox's read-only view shows it (its /tmp is private, and it hides the home directory),
// so only confinement stands between a link and the secret.
const SECRET_GO = 'package leak\n\n// Secret says MARKER_DOC_7c1.\nfunc Secret() int { return 42 } // MARKER_LINE_7c1\n\nvar _ = fmt.Sprintf("MARKER_VET_7c1 %d", "x")\n';

function outsideDir(): string {
  const d = fs.realpathSync(fs.mkdtempSync('/var/tmp/cxl-go-outside-'));
  after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

/** Every native-go tool's answer (or refusal) about `root`, as one text. */
async function everything(root: string, symbols: string[], targets: string[]): Promise<string> {
  const ts = go(root);
  const said: string[] = [];
  const ask = async (tool: string, args: Record<string, unknown>) => {
    try {
      said.push(JSON.stringify(await ts.call(tool, args)));
    } catch (err) {
      said.push(`${tool} refused: ${(err as Error).message}`);
    }
  };
  for (const target of targets) await ask('go_symbols', { target });
  for (const symbol of symbols) for (const tool of ['go_definition', 'go_describe', 'go_references', 'go_implementations']) await ask(tool, { symbol });
  await ask('go_diagnostics', { scope: 'all', passes: 'all' });
  return said.join('\n');
}

test('a .go file that is a link out of the workspace is read by no native-go tool; the module\'s own files still are', { timeout: 300_000 }, async () => {
  if (!hasGo('native-go confinement')) return;
  const root = module();
  const out = outsideDir();
  fs.writeFileSync(path.join(out, 'secret.go'), SECRET_GO);
  fs.writeFileSync(path.join(out, 'junk.go'), 'MARKER_JUNK_7c1 is not Go\n');
  fs.mkdirSync(path.join(root, 'leak'));
  fs.writeFileSync(path.join(root, 'leak/ok.go'), 'package leak\n\n// Ok is fine.\nfunc Ok() int { return Secret() }\n');
  fs.symlinkSync(path.join(out, 'secret.go'), path.join(root, 'leak/x.go'));
  fs.symlinkSync(path.join(out, 'junk.go'), path.join(root, 'leak/y.go'));
  const said = await everything(root, ['leak.Secret', 'leak.Ok', 'Secret'], ['leak', 'leak/x.go', 'leak/ok.go']);
  assert.doesNotMatch(said, /MARKER_\w+_7c1/, 'nothing of the outside files');
  // the control: the module's own file is read and printed as before
  const syms = await call(go(root), 'go_symbols', { target: 'leak' });
  assert.match(syms.text, /func Ok func\(\) int {2}leak\/ok\.go:4/);
  assert.match(String(syms.note), /not read: leak\/x\.go \(a link that leads outside the workspace\), leak\/y\.go \(a link that leads outside the workspace\)/);
  const def = await call(go(root), 'go_definition', { symbol: 'leak.Ok' });
  assert.equal(def.line, 'func Ok() int { return Secret() }');
  const diags = await call(go(root), 'go_diagnostics', { scope: 'package', target: 'leak' });
  assert.match(String(diags.text), /leak\/ok\.go:4:\d+: type-error: undeclared name: Secret/);
  // a hard link to a read-approve file (.env) is that file: not read either
  fs.writeFileSync(path.join(root, 'leak/.env'), 'package leak\n\n// MARKER_ENV_7c1\nfunc Env() int { return 1 }\n');
  fs.linkSync(path.join(root, 'leak/.env'), path.join(root, 'leak/env.go'));
  const env = await everything(root, ['leak.Env'], ['leak']);
  assert.doesNotMatch(env, /MARKER_ENV_7c1/);
  assert.match(env, /leak\/env\.go \(a hard link to leak\/\.env, on the read-approve list\)/);
});

test('a dependency go would read from outside the workspace refuses the call; one inside it is read', { timeout: 300_000 }, async () => {
  if (!hasGo('native-go confinement of dependencies')) return;
  const out = outsideDir();
  const DEP = 'package dep\n\n// T says MARKER_DOC_8d2.\ntype T struct{}\n\n// Secret is MARKER_DOC_8d2.\nfunc (T) Secret() int { return 42 } // MARKER_LINE_8d2\n';
  const USER = 'package user\n\nimport "example.com/dep"\n\n// U embeds the dependency\'s T.\ntype U struct{ dep.T }\n\nfunc Use() int { return U{}.Secret() }\n';
  const REQUIRE = 'require example.com/dep v0.0.0\n\nreplace example.com/dep => ';
  fs.mkdirSync(path.join(out, 'dep'));
  fs.writeFileSync(path.join(out, 'dep/go.mod'), 'module example.com/dep\n\ngo 1.19\n');
  fs.writeFileSync(path.join(out, 'dep/dep.go'), DEP);
  // a replace directive to a directory outside
  const replaced = module();
  fs.writeFileSync(path.join(replaced, 'go.mod'), `${FILES['go.mod']}\n${REQUIRE}${out}/dep\n`);
  fs.mkdirSync(path.join(replaced, 'user'));
  fs.writeFileSync(path.join(replaced, 'user/user.go'), USER);
  const said = await everything(replaced, ['user.U', 'user.U.Secret', 'user.Use'], ['user']);
  assert.doesNotMatch(said, /MARKER_\w+_8d2/);
  assert.match(said, /go\.mod replaces a dependency with \/var\/tmp\/cxl-go-outside-\w+\/dep, outside the workspace/);
  // ... before go reads anything there (what go says about that directory's go.mod could quote it)
  fs.writeFileSync(path.join(out, 'dep/go.mod'), 'MARKER_GOMOD_8d2\n');
  assert.doesNotMatch(await everything(replaced, ['user.U'], ['user']), /MARKER_GOMOD_8d2/);
  fs.writeFileSync(path.join(out, 'dep/go.mod'), 'module example.com/dep\n\ngo 1.19\n');
  // a package directory that is a link out (to a directory with no go.mod of its own), imported by the module
  fs.mkdirSync(path.join(out, 'lib'));
  fs.writeFileSync(path.join(out, 'lib/dep.go'), DEP);
  const linked = module();
  fs.symlinkSync(path.join(out, 'lib'), path.join(linked, 'dep'));
  fs.mkdirSync(path.join(linked, 'user'));
  fs.writeFileSync(path.join(linked, 'user/user.go'), USER.replace('"example.com/dep"', '"example.com/fixture/dep"'));
  const viaLink = await everything(linked, ['user.U', 'user.U.Secret'], ['user']);
  assert.doesNotMatch(viaLink, /MARKER_\w+_8d2/);
  assert.match(viaLink, /the package example\.com\/fixture\/dep would be read from outside the workspace \(dep: a link that leads outside the workspace\)/);
  // a go.mod that is a link out
  const gomod = module();
  fs.rmSync(path.join(gomod, 'go.mod'));
  fs.writeFileSync(path.join(out, 'go.mod'), 'module MARKER_MOD_8d2\n\ngo 1.19\n');
  fs.symlinkSync(path.join(out, 'go.mod'), path.join(gomod, 'go.mod'));
  assert.doesNotMatch(await everything(gomod, ['shapes.Circle'], ['shapes']), /MARKER_MOD_8d2/);
  // the control: the same dependency inside the workspace, replaced by a relative path, is read
  const inside = module();
  fs.cpSync(path.join(out, 'dep'), path.join(inside, 'third_party/dep'), { recursive: true });
  fs.writeFileSync(path.join(inside, 'go.mod'), `${FILES['go.mod']}\n${REQUIRE}./third_party/dep\n`);
  fs.mkdirSync(path.join(inside, 'user'));
  fs.writeFileSync(path.join(inside, 'user/user.go'), USER);
  const desc = await call(go(inside), 'go_describe', { symbol: 'user.U' });
  assert.match(desc.text, /method Secret func\(\) int/);
  assert.deepEqual((desc.members as { name: string; location: string }[]).map((m) => [m.name, m.location]), [['T', 'user/user.go:6:16'], ['Secret', 'third_party/dep/dep.go:7:10']]);
});

test('the helper reads a file only if it is the one confinement checked: not another, not through a link', { timeout: 300_000 }, async () => {
  if (!hasGo('the helper\'s own check')) return;
  const { ask } = await import('../../../src/core/native_go/helper.ts');
  const { requireToolchain } = await import('../../../src/core/native_go/toolchain.ts');
  const root = module();
  const out = outsideDir();
  fs.writeFileSync(path.join(out, 'secret.go'), 'MARKER_SWAP_9e3\n');
  fs.symlinkSync(path.join(out, 'secret.go'), path.join(root, 'shapes/link.go'));
  const checked = fs.statSync(path.join(root, 'shapes/shapes.go'));
  const pkg = (files: { Name: string; Real: string }[]) => [{ ImportPath: 'example.com/fixture/shapes', Name: 'shapes', Dir: path.join(root, 'shapes'), Files: files.map((f) => ({ ...f, Dev: checked.dev, Ino: checked.ino })) }];
  const tc = requireToolchain();
  // swapped: the checked identity, another file's path; a link: its own path, which a link is
  for (const real of [path.join(out, 'secret.go'), path.join(root, 'shapes/link.go')]) {
    const r = await ask(tc, root, root, pkg([{ Name: 'shapes.go', Real: real }]), { Op: 'typecheck' });
    assert.doesNotMatch(JSON.stringify(r), /MARKER_SWAP_9e3/);
    assert.match(JSON.stringify(r), /not the file cxl checked/);
  }
  // the control: the checked file by its real path is read
  const ok = await ask(tc, root, root, pkg([{ Name: 'shapes.go', Real: path.join(root, 'shapes/shapes.go') }]), { Op: 'symbols', Target: 'example.com/fixture/shapes' });
  assert.ok((ok.symbols as { name: string }[]).some((s) => s.name === 'Circle'));
});

test('the directories a go.mod replaces dependencies with: single and block form, quoted, versioned; module paths are not directories', () => {
  const gomod = [
    'module example.com/m',
    'replace example.com/a => ../a // a sibling',
    'replace example.com/b v1.2.3 => /abs/b',
    'replace example.com/c => example.com/c2 v1.0.0',
    'replace (',
    '\texample.com/d => "./third party/d"',
    '\texample.com/e v0.1.0 => ./e',
    '\texample.com/f => example.com/f2 v0.2.0',
    ')',
  ].join('\n');
  assert.deepEqual(localReplacements(gomod, '/ws/mod'), ['/ws/a', '/abs/b', '/ws/mod/third party/d', '/ws/mod/e']);
});
