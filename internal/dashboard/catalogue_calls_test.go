package dashboard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// textArg is the index of the text argument of the dashboard's
// translating functions and methods.
var textArg = map[string]int{"Translate": 0, "TC": 1, "translate": 1, "translateIn": 2}

// passesTextOn are the functions that hand a text they were given to a
// translating function: the templates' t and tc (the templates' texts are
// read by TestEveryTextHasSpanish) and the area texts' Err and Say (read by
// TestEveryAreaTextIsInEveryCatalogue) and render's page title (a literal
// at every call, read by TestEveryTextHasSpanish's titleText).
var passesTextOn = map[string]bool{"parseTemplates": true, "Err": true, "Say": true, "render": true}

// TestTextsAreLiterals keeps TestEveryTextHasSpanish honest: a text handed
// to Translate, TC, translate or translateIn is a string literal it can
// read, never a value built at run time (whose Spanish no test could
// check). Words read from stored values go through the "value|…" keys
// (valueWord) and area refusals through session.Err.
func TestTextsAreLiterals(t *testing.T) {
	fset := token.NewFileSet()
	names, _ := filepath.Glob("*.go")
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || textArg[fn.Name.Name] > 0 || fn.Name.Name == "Translate" || passesTextOn[fn.Name.Name] {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var name string
				switch f := call.Fun.(type) {
				case *ast.SelectorExpr:
					name = f.Sel.Name
				case *ast.Ident:
					name = f.Name
				}
				i, ok := textArg[name]
				if !ok || i >= len(call.Args) {
					return true
				}
				if lit, ok := call.Args[i].(*ast.BasicLit); !ok || lit.Kind != token.STRING {
					t.Errorf("%s: %s's text is not a string literal", fset.Position(call.Pos()), name)
				}
				return true
			})
		}
	}
}
