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
