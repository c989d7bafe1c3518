package dashboard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPageHasAView reads the package's own source: every call of
// render passes the page's view, a struct literal or value of a view type,
// never nil (the compiler already refuses a map: pageData has a method).
// A page's data is its own type so a template cannot read a misspelt
// field without failing every render of the page.
func TestEveryPageHasAView(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	calls := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "render" || len(call.Args) == 0 {
				return true
			}
			calls++
			data := call.Args[len(call.Args)-1]
			if id, ok := data.(*ast.Ident); ok && id.Name == "nil" {
				t.Errorf("%s: render is passed nil: give the page a view type", fset.Position(call.Pos()))
			}
			if lit, ok := data.(*ast.CompositeLit); ok {
				if _, isMap := lit.Type.(*ast.MapType); isMap {
					t.Errorf("%s: render is passed a map: give the page a view type", fset.Position(call.Pos()))
				}
			}
			return true
		})
	}
	if calls < 20 {
		t.Errorf("found %d calls of render; the test no longer sees them", calls)
	}
}
