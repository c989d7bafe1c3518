package dashboard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The areas' refusals and texts (errs.New, errs.WithDetails, errs.Say and
// the areas' own printf-style wrappers around them) are catalogue keys:
// every language but English must hold each, with the same verbs, so a
// refusal reaches a Spanish page in Spanish, values included. The doors
// below are not areas: the API answers in English, and the dashboard's own
// texts are checked by TestEveryTextHasSpanish.
var notAreas = map[string]bool{"httpapi": true, "mcp": true, "dashboard": true, "bookingpage": true, "arch": true, "clientserver": true, "bench": true}

func TestEveryAreaTextIsInEveryCatalogue(t *testing.T) {
	keys, blind := areaKeys(t, "..")
	if len(keys) < 100 {
		t.Fatalf("found only %d area texts: the scan no longer sees the sources", len(keys))
	}
	for _, b := range blind {
		t.Errorf("%s: the text is not a literal or a constant, so no catalogue can hold it: pass a literal key (errs.Say) instead", b)
	}
	for lang, texts := range catalogue() {
		if lang == "en" {
			continue
		}
		var missing []string
		for key, where := range keys {
			tr, ok := texts[key]
			if !ok {
				missing = append(missing, strconv.Quote(key)+" ("+where+")")
				continue
			}
			if !slices.Equal(verbs(key), verbs(tr)) {
				t.Errorf("%s: %q has the verbs %v, its %s text %q has %v", where, key, verbs(key), lang, tr, verbs(tr))
			}
		}
		slices.Sort(missing)
		for _, m := range missing {
			t.Errorf("locales/%s.toml lacks the area text %s", lang, m)
		}
	}
}

var verbPattern = regexp.MustCompile(`%[-+# 0]*[0-9]*(\.[0-9]+)?[a-zA-Z%]`)

// verbs lists a format's verbs, sorted (a language may reorder words, not
// arguments of different kinds).
func verbs(format string) []string {
	v := verbPattern.FindAllString(format, -1)
	slices.Sort(v)
	return v
}

// onlyVerbs is a format that says nothing of its own ("%s", "%s %s").
var onlyVerbs = regexp.MustCompile(`^(%[-+# 0]*[0-9]*(\.[0-9]+)?[a-zA-Z]|[\s:;,.])*$`)

// areaKeys reads the Go sources of the area packages under root and returns
// every text key with where it was seen, and the places whose text cannot
// be read from the source.
func areaKeys(t *testing.T, root string) (map[string]string, []string) {
	t.Helper()
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	var blind []string
	for _, d := range dirs {
		if !d.IsDir() || notAreas[d.Name()] {
			continue
		}
		// An area's subpackages (calendar/bookingrules) are the area's too.
		pkgs := []string{filepath.Join(root, d.Name())}
		subs, _ := os.ReadDir(pkgs[0])
		for _, sub := range subs {
			if sub.IsDir() {
				pkgs = append(pkgs, filepath.Join(pkgs[0], sub.Name()))
			}
		}
		for _, dir := range pkgs {
			s := scanPackage(t, dir)
			for k, w := range s.keys {
				keys[k] = w
			}
			blind = append(blind, s.blind...)
		}
	}
	return keys, blind
}

type packageScan struct {
	fset     *token.FileSet
	files    []*ast.File
	consts   map[string]string // constant name (or pkg.Name) → value
	wrappers map[string]int    // function name → index of its format parameter
	keys     map[string]string
	blind    []string
}

func scanPackage(t *testing.T, dir string) *packageScan {
	s := &packageScan{fset: token.NewFileSet(), consts: map[string]string{}, wrappers: map[string]int{}, keys: map[string]string{}}
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(s.fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		s.files = append(s.files, f)
	}
	for _, f := range s.files {
		s.collectDecls(f)
	}
	for _, f := range s.files {
		ast.Inspect(f, s.visit)
	}
	return s
}

// collectDecls notes the package's string constants and its printf-style
// wrappers (a function or closure with a parameter format string followed
// by args ...any): their callers' literals are keys.
func (s *packageScan) collectDecls(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if i < len(n.Values) {
					if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						s.consts[name.Name] = v
					}
				}
			}
		case *ast.FuncDecl:
			if i := formatParam(n.Type); i >= 0 {
				s.wrappers[n.Name.Name] = i
			}
		case *ast.AssignStmt:
			for i, rhs := range n.Rhs {
				if fl, ok := rhs.(*ast.FuncLit); ok && i < len(n.Lhs) {
					if id, ok := n.Lhs[i].(*ast.Ident); ok {
						if j := formatParam(fl.Type); j >= 0 {
							s.wrappers[id.Name] = j
						}
					}
				}
			}
		}
		return true
	})
}

// formatParam is the index of a "format string" parameter followed by a
// variadic one, or -1.
func formatParam(ft *ast.FuncType) int {
	i := 0
	var params []string
	for _, f := range ft.Params.List {
		n := len(f.Names)
		if n == 0 {
			n = 1
		}
		for j := 0; j < n; j++ {
			name := ""
			if len(f.Names) > 0 {
				name = f.Names[j].Name
			}
			if _, ok := f.Type.(*ast.Ellipsis); ok {
				name = "..."
			}
			params = append(params, name)
			i++
		}
	}
	for k := 0; k+1 < len(params); k++ {
		if params[k] == "format" && params[k+1] == "..." {
			return k
		}
	}
	return -1
}

// errsFormats are the errs functions taking a text key, by the key's
// argument index.
var errsFormats = map[string]int{"New": 1, "WithDetails": 2, "Say": 0}

func (s *packageScan) visit(n ast.Node) bool {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return true
	}
	idx := -1
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		if pkg, ok := fn.X.(*ast.Ident); ok && pkg.Name == "errs" {
			if i, ok := errsFormats[fn.Sel.Name]; ok {
				idx = i
			}
		}
	case *ast.Ident:
		if i, ok := s.wrappers[fn.Name]; ok {
			idx = i
		}
	}
	if idx < 0 || idx >= len(call.Args) {
		return true
	}
	where := s.fset.Position(call.Pos()).String()
	key, ok := s.text(call.Args[idx])
	switch {
	case ok && !onlyVerbs.MatchString(key):
		s.keys[key] = where
	case ok:
	case s.isFormatParam(call.Args[idx]):
		// a wrapper passing its own format on: its callers are read
	default:
		s.blind = append(s.blind, where)
	}
	return true
}

func (s *packageScan) text(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			v, err := strconv.Unquote(e.Value)
			return v, err == nil
		}
	case *ast.Ident:
		v, ok := s.consts[e.Name]
		return v, ok
	case *ast.SelectorExpr:
		return "", false
	}
	return "", false
}

func (s *packageScan) isFormatParam(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && (id.Name == "format")
}
