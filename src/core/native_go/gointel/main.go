// gointel: the part of cxl's native-go toolset that needs Go's own parser and type checker. cxl
// builds it once per Go toolchain (only the standard library) and runs it inside the sandbox's
// read-only view of the workspace. It reads one request as JSON on stdin (the module's packages
// as `go list -json` listed them, and the question) and writes one JSON answer on stdout. It
// parses and type-checks the module's own packages (tests excluded, no build tags), importing
// the standard library and dependencies from source; it never writes, builds or runs anything.
// A module file is read only as cxl confined it: by its real path, not through a final link, and
// only if it is still the file (device and inode) cxl checked; source lines are printed only from
// the files read so.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// File is one .go file of a module package as cxl confined it: Real is where it resolved inside
// the workspace, Dev and Ino what it was (JSON numbers: compared as the float64 cxl had).
type File struct {
	Name string
	Real string
	Dev  float64
	Ino  float64
}

type Pkg struct {
	ImportPath string
	Name       string
	Dir        string
	Files      []File
}

type Request struct {
	Op       string
	Root     string
	Packages []Pkg
	Symbol   string
	Target   string
	Max      int
}

type loaded struct {
	pkg   Pkg
	files []*ast.File
	types *types.Package
	info  *types.Info
	errs  []string
}

type world struct {
	fset   *token.FileSet
	root   string
	byPath map[string]*loaded
	order  []*loaded
	std    types.Importer
	// the module files read as confined, by the name positions carry: the only source printed
	src map[string][]byte
}

var errReplaced = errors.New("not the file cxl checked (replaced since, or a link); not read")

// readConfined reads f by its real path, never through a final link, only if it is the file cxl checked.
func readConfined(f File) ([]byte, error) {
	fd, err := os.OpenFile(f.Real, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, errReplaced
	}
	defer fd.Close()
	fi, err := fd.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errReplaced
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || float64(st.Dev) != f.Dev || float64(st.Ino) != f.Ino {
		return nil, errReplaced
	}
	return io.ReadAll(fd)
}

func (w *world) Import(path string) (*types.Package, error) {
	if l, ok := w.byPath[path]; ok {
		w.check(l)
		if l.types == nil {
			return nil, fmt.Errorf("cannot load %s", path)
		}
		return l.types, nil
	}
	return w.std.Import(path)
}

func (w *world) check(l *loaded) {
	if l.info != nil {
		return
	}
	l.info = &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	for _, file := range l.pkg.Files {
		name := filepath.Join(l.pkg.Dir, file.Name)
		src, err := readConfined(file)
		if err != nil {
			l.errs = append(l.errs, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		w.src[name] = src
		f, err := parser.ParseFile(w.fset, name, src, parser.ParseComments|parser.AllErrors)
		if err != nil {
			l.errs = append(l.errs, err.Error())
		}
		if f != nil {
			l.files = append(l.files, f)
		}
	}
	conf := types.Config{Importer: w, Error: func(err error) { l.errs = append(l.errs, err.Error()) }}
	l.types, _ = conf.Check(l.pkg.ImportPath, w.fset, l.files, l.info)
}

func (w *world) rel(pos token.Pos) (string, int, int) {
	p := w.fset.Position(pos)
	r, err := filepath.Rel(w.root, p.Filename)
	if err != nil {
		r = p.Filename
	}
	return filepath.ToSlash(r), p.Line, p.Column
}

func (w *world) loc(pos token.Pos) string {
	f, l, c := w.rel(pos)
	return fmt.Sprintf("%s:%d:%d", f, l, c)
}

func (w *world) lineText(pos token.Pos) string {
	p := w.fset.Position(pos)
	return w.lineOf(p.Filename, p.Line)
}

// lineOf is a line of a module file as it was read confined; of any other file (the standard
// library, a dependency), nothing.
func (w *world) lineOf(file string, line int) string {
	data, ok := w.src[filepath.Clean(file)]
	if !ok {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if line >= 1 && line-1 < len(lines) {
		return strings.TrimSpace(lines[line-1])
	}
	return ""
}

func kindOf(o types.Object) string {
	switch x := o.(type) {
	case *types.Func:
		if x.Type().(*types.Signature).Recv() != nil {
			return "method"
		}
		return "func"
	case *types.TypeName:
		if _, ok := x.Type().Underlying().(*types.Interface); ok {
			return "interface"
		}
		if _, ok := x.Type().Underlying().(*types.Struct); ok {
			return "struct"
		}
		return "type"
	case *types.Var:
		if x.IsField() {
			return "field"
		}
		return "var"
	case *types.Const:
		return "const"
	}
	return "object"
}

func qualifier(p *types.Package) string { return p.Name() }

func fail(format string, args ...interface{}) {
	json.NewEncoder(os.Stdout).Encode(map[string]interface{}{"error": fmt.Sprintf(format, args...)})
	os.Exit(0)
}

// The packages a qualifier names: a package name, an import-path suffix, or a full import path.
func (w *world) packagesNamed(q string) []*loaded {
	var out []*loaded
	for _, l := range w.order {
		if l.pkg.Name == q || l.pkg.ImportPath == q || strings.HasSuffix(l.pkg.ImportPath, "/"+q) {
			out = append(out, l)
		}
	}
	return out
}

type hit struct {
	obj  types.Object
	pkg  *loaded
	name string
}

func member(t types.Type, name string) types.Object {
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, name)
	return obj
}

// resolve finds the objects a symbol names: "pkg.Ident", "pkg.Type.Member", "Type.Member" or "Ident".
func (w *world) resolve(sym string) []hit {
	s := strings.TrimSpace(sym)
	if s == "" {
		fail(`symbol is required, e.g. "pkg.Ident", "pkg.Type.Method" or "Ident"`)
	}
	for _, r := range s {
		if !(r == '.' || r == '_' || r == '/' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r > 127) {
			fail("%q is not a symbol name; pass a plain identifier such as \"pkg.Ident\" or \"pkg.Type.Method\" (no parentheses, pointers, or spaces)", s)
		}
	}
	// a full or partial import path: the package is everything up to the first dot after the last slash
	if i := strings.LastIndex(s, "/"); i >= 0 {
		j := strings.Index(s[i:], ".")
		if j < 0 {
			fail("%q names a package, not a symbol; use go_symbols to outline a package", s)
		}
		return w.inPackage(s[:i+j], strings.Split(s[i+j+1:], "."), s)
	}
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if p == "" {
			fail("%q has an empty name part", s)
		}
	}
	if len(parts) > 3 {
		fail("%q has too many dotted parts; the deepest form resolved is \"pkg.Type.Member\"", s)
	}
	var hits []hit
	add := func(l *loaded, o types.Object, name string) {
		if o != nil {
			hits = append(hits, hit{o, l, name})
		}
	}
	// qualified by a package
	if len(parts) >= 2 {
		pkgs := w.packagesNamed(strings.Join(parts[:len(parts)-1], "."))
		if len(parts) == 3 || len(pkgs) == 0 {
			pkgs = w.packagesNamed(parts[0])
		}
		for _, l := range pkgs {
			w.check(l)
			if l.types == nil {
				continue
			}
			rest := parts[1:]
			if strings.Contains(strings.Join(parts[:len(parts)-1], "."), "/") {
				rest = parts[len(parts)-1:]
			}
			o := l.types.Scope().Lookup(rest[0])
			if len(rest) == 2 && o != nil {
				o = member(o.Type(), rest[1])
			}
			add(l, o, l.pkg.Name+"."+strings.Join(rest, "."))
		}
		if len(hits) > 0 {
			return hits
		}
		if len(parts) == 2 && len(w.packagesNamed(parts[0])) == 0 {
			// "Type.Member" in any package
			for _, l := range w.order {
				w.check(l)
				if l.types == nil {
					continue
				}
				if o := l.types.Scope().Lookup(parts[0]); o != nil {
					add(l, member(o.Type(), parts[1]), l.pkg.Name+"."+s)
				}
			}
			if len(hits) == 0 {
				fail("no package named %q in this module; go_symbols with a package path lists what a package declares", parts[0])
			}
		}
		return hits
	}
	for _, l := range w.order {
		w.check(l)
		if l.types == nil {
			continue
		}
		add(l, l.types.Scope().Lookup(s), l.pkg.Name+"."+s)
	}
	if len(hits) == 0 {
		for _, l := range w.order {
			if l.pkg.Name == s {
				fail("%q names a package, not a symbol; use go_symbols to outline a package", s)
			}
		}
	}
	return hits
}

// inPackage finds `rest` (Ident or Type.Member) in the packages `q` names.
func (w *world) inPackage(q string, rest []string, s string) []hit {
	if len(rest) > 2 || len(rest) == 0 || rest[0] == "" || (len(rest) == 2 && rest[1] == "") {
		fail("%q has an empty or extra name part; the deepest form resolved is \"pkg.Type.Member\"", s)
	}
	pkgs := w.packagesNamed(q)
	if len(pkgs) == 0 {
		fail("no package named %q in this module; go_symbols with a package path lists what a package declares", q)
	}
	var hits []hit
	for _, l := range pkgs {
		w.check(l)
		if l.types == nil {
			continue
		}
		o := l.types.Scope().Lookup(rest[0])
		if len(rest) == 2 && o != nil {
			o = member(o.Type(), rest[1])
		}
		if o != nil {
			hits = append(hits, hit{o, l, l.pkg.Name + "." + strings.Join(rest, ".")})
		}
	}
	return hits
}

func (w *world) one(sym string) hit {
	hits := w.resolve(sym)
	if len(hits) == 0 {
		var near []string
		low := strings.ToLower(sym[strings.LastIndex(sym, ".")+1:])
		for _, l := range w.order {
			if l.types == nil {
				continue
			}
			for _, n := range l.types.Scope().Names() {
				if strings.Contains(strings.ToLower(n), low) || strings.Contains(low, strings.ToLower(n)) {
					near = append(near, l.pkg.Name+"."+n)
				}
			}
		}
		sort.Strings(near)
		if len(near) > 5 {
			near = near[:5]
		}
		if len(near) > 0 {
			fail("%q is not declared in this module. Did you mean: %s?", sym, strings.Join(near, ", "))
		}
		fail("%q is not declared in this module (%d packages indexed); go_symbols outlines a package", sym, len(w.order))
	}
	if len(hits) > 1 {
		var names []string
		for i, h := range hits {
			if i == 8 {
				names = append(names, fmt.Sprintf("+%d more", len(hits)-8))
				break
			}
			names = append(names, h.name)
		}
		fail("%q matches %d declarations: %s; re-ask with one of these qualified names", sym, len(hits), strings.Join(names, ", "))
	}
	return hits[0]
}

func docOf(w *world, o types.Object) string {
	for _, l := range w.order {
		for _, f := range l.files {
			if f.Pos() > o.Pos() || o.Pos() > f.End() {
				continue
			}
			var doc string
			ast.Inspect(f, func(n ast.Node) bool {
				if doc != "" || n == nil {
					return false
				}
				switch d := n.(type) {
				case *ast.FuncDecl:
					if d.Name.Pos() == o.Pos() && d.Doc != nil {
						doc = d.Doc.Text()
					}
				case *ast.GenDecl:
					for _, sp := range d.Specs {
						switch s := sp.(type) {
						case *ast.TypeSpec:
							if s.Name.Pos() == o.Pos() {
								doc = firstDoc(s.Doc, d.Doc)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.Pos() == o.Pos() {
									doc = firstDoc(s.Doc, d.Doc)
								}
							}
						}
					}
				case *ast.Field:
					for _, n := range d.Names {
						if n.Pos() == o.Pos() && d.Doc != nil {
							doc = d.Doc.Text()
						}
					}
				}
				return true
			})
			return strings.TrimSpace(doc)
		}
	}
	return ""
}

func firstDoc(a, b *ast.CommentGroup) string {
	if a != nil {
		return a.Text()
	}
	if b != nil {
		return b.Text()
	}
	return ""
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func main() {
	var req Request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fail("bad request: %v", err)
	}
	w := &world{fset: token.NewFileSet(), root: req.Root, byPath: map[string]*loaded{}, src: map[string][]byte{}}
	w.std = importer.ForCompiler(w.fset, "source", nil)
	for _, p := range req.Packages {
		l := &loaded{pkg: p}
		w.byPath[p.ImportPath] = l
		w.order = append(w.order, l)
	}
	out := map[string]interface{}{}
	switch req.Op {
	case "typecheck":
		var diags []map[string]string
		for _, l := range w.order {
			w.check(l)
			for _, e := range l.errs {
				loc, msg := e, e
				if i := strings.Index(e, ": "); i > 0 {
					loc, msg = e[:i], e[i+2:]
				}
				if r, err := filepath.Rel(w.root, loc); err == nil {
					loc = filepath.ToSlash(r)
				}
				diags = append(diags, map[string]string{"location": loc, "message": msg, "package": l.pkg.ImportPath})
			}
		}
		out["diagnostics"] = diags
	case "symbols":
		var syms []map[string]string
		for _, l := range w.order {
			if req.Target != "" && l.pkg.ImportPath != req.Target {
				continue
			}
			w.check(l)
			if l.types == nil {
				continue
			}
			for _, n := range l.types.Scope().Names() {
				o := l.types.Scope().Lookup(n)
				f, line, _ := w.rel(o.Pos())
				syms = append(syms, map[string]string{"name": n, "kind": kindOf(o), "type": types.TypeString(o.Type(), qualifier), "location": fmt.Sprintf("%s:%d", f, line), "exported": fmt.Sprint(o.Exported())})
				if tn, ok := o.(*types.TypeName); ok {
					if named, ok := tn.Type().(*types.Named); ok {
						for i := 0; i < named.NumMethods(); i++ {
							m := named.Method(i)
							mf, ml, _ := w.rel(m.Pos())
							syms = append(syms, map[string]string{"name": n + "." + m.Name(), "kind": "method", "type": types.TypeString(m.Type(), qualifier), "location": fmt.Sprintf("%s:%d", mf, ml), "exported": fmt.Sprint(m.Exported())})
						}
					}
				}
			}
		}
		out["symbols"] = syms
	case "definition", "describe":
		h := w.one(req.Symbol)
		out["symbol"] = h.name
		out["kind"] = kindOf(h.obj)
		out["location"] = w.loc(h.obj.Pos())
		out["line"] = w.lineText(h.obj.Pos())
		out["type"] = types.TypeString(h.obj.Type(), qualifier)
		if req.Op == "describe" {
			out["doc"] = clip(docOf(w, h.obj), 1200)
			if tn, ok := h.obj.(*types.TypeName); ok {
				out["underlying"] = types.TypeString(tn.Type().Underlying(), qualifier)
				var members []map[string]string
				if st, ok := tn.Type().Underlying().(*types.Struct); ok {
					for i := 0; i < st.NumFields(); i++ {
						f := st.Field(i)
						members = append(members, map[string]string{"name": f.Name(), "kind": "field", "type": types.TypeString(f.Type(), qualifier), "doc": clip(docOf(w, f), 120), "location": w.loc(f.Pos())})
					}
				}
				ms := types.NewMethodSet(types.NewPointer(tn.Type()))
				if _, isIface := tn.Type().Underlying().(*types.Interface); isIface {
					ms = types.NewMethodSet(tn.Type())
				}
				for i := 0; i < ms.Len(); i++ {
					m := ms.At(i).Obj()
					members = append(members, map[string]string{"name": m.Name(), "kind": "method", "type": types.TypeString(m.Type(), qualifier), "doc": clip(docOf(w, m), 120), "location": w.loc(m.Pos())})
				}
				out["members"] = members
			}
		}
	case "references":
		h := w.one(req.Symbol)
		type use struct {
			file string
			line int
		}
		counts := map[use]int{}
		var order []use
		for _, l := range w.order {
			w.check(l)
			for id, o := range l.info.Uses {
				if o == h.obj || (o != nil && h.obj.Pkg() != nil && o.Pkg() != nil && o.Pkg().Path() == h.obj.Pkg().Path() && o.Name() == h.obj.Name() && o.Pos() == h.obj.Pos()) {
					f, line, _ := w.rel(id.Pos())
					u := use{f, line}
					if counts[u] == 0 {
						order = append(order, u)
					}
					counts[u]++
				}
			}
		}
		sort.Slice(order, func(i, j int) bool {
			if order[i].file != order[j].file {
				return order[i].file < order[j].file
			}
			return order[i].line < order[j].line
		})
		var lines []map[string]interface{}
		for _, u := range order {
			lines = append(lines, map[string]interface{}{"file": u.file, "line": u.line, "uses": counts[u], "text": w.lineOf(filepath.Join(w.root, u.file), u.line)})
		}
		out["symbol"] = h.name
		out["definition"] = w.loc(h.obj.Pos())
		out["references"] = lines
		out["interface_method"] = false
		if f, ok := h.obj.(*types.Func); ok {
			if r := f.Type().(*types.Signature).Recv(); r != nil {
				_, isIface := r.Type().Underlying().(*types.Interface)
				out["interface_method"] = isIface
			}
		}
	case "implementations":
		h := w.one(req.Symbol)
		tn, ok := h.obj.(*types.TypeName)
		if !ok {
			fail("%s is a %s, not a type; go_implementations relates types to interfaces", req.Symbol, kindOf(h.obj))
		}
		var named []*types.TypeName
		for _, l := range w.order {
			w.check(l)
			if l.types == nil {
				continue
			}
			for _, n := range l.types.Scope().Names() {
				if t, ok := l.types.Scope().Lookup(n).(*types.TypeName); ok && t != tn {
					named = append(named, t)
				}
			}
		}
		iface, isIface := tn.Type().Underlying().(*types.Interface)
		var rel []map[string]string
		for _, t := range named {
			if isIface {
				if _, other := t.Type().Underlying().(*types.Interface); other {
					continue
				}
				recv := ""
				if types.Implements(t.Type(), iface) {
					recv = "value"
				} else if types.Implements(types.NewPointer(t.Type()), iface) {
					recv = "pointer"
				}
				if recv != "" {
					rel = append(rel, map[string]string{"name": t.Pkg().Name() + "." + t.Name(), "kind": kindOf(t), "receiver": recv, "location": w.loc(t.Pos())})
				}
			} else if other, ok := t.Type().Underlying().(*types.Interface); ok && other.NumMethods() > 0 {
				recv := ""
				if types.Implements(tn.Type(), other) {
					recv = "value"
				} else if types.Implements(types.NewPointer(tn.Type()), other) {
					recv = "pointer"
				}
				if recv != "" {
					rel = append(rel, map[string]string{"name": t.Pkg().Name() + "." + t.Name(), "kind": "interface", "receiver": recv, "location": w.loc(t.Pos())})
				}
			}
		}
		out["symbol"] = h.name
		out["kind"] = kindOf(h.obj)
		if isIface {
			out["implementers"] = rel
		} else {
			out["interfaces"] = rel
		}
	default:
		fail("unknown op %q", req.Op)
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
