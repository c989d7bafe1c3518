package arch_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines is the most lines a Go file may have (docs/where-things-live.md:
// files are cut by subject, so a reader finds a rule by the file's name).
const maxLines = 500

// tooLongForNow are files allowed past maxLines for a while, by path from
// the repository's root.
var tooLongForNow = map[string]bool{}

// goFiles walks the repository (both modules, tests included) and calls fn
// with each Go file's path from the root and its source.
func goFiles(t *testing.T, fn func(name string, src []byte)) {
	t.Helper()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(rel), src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFilesStayShort fails on a Go file, tests included, over maxLines:
// split it by subject in the change that grew it. An allowance that is no
// longer needed fails too, so the list only shrinks.
func TestFilesStayShort(t *testing.T) {
	stillLong := map[string]bool{}
	goFiles(t, func(name string, src []byte) {
		lines := bytes.Count(src, []byte("\n"))
		if len(src) > 0 && src[len(src)-1] != '\n' {
			lines++
		}
		switch {
		case lines <= maxLines:
		case tooLongForNow[name]:
			stillLong[name] = true
		default:
			t.Errorf("%s has %d lines (at most %d): split it by subject", name, lines, maxLines)
		}
	})
	for name := range tooLongForNow {
		if !stillLong[name] {
			t.Errorf("%s is allowed past %d lines but is not that long (or is gone): remove it from tooLongForNow", name, maxLines)
		}
	}
}

// TestFunctionNamesSayWhatTheyDo fails on a function or method named by a
// single letter (c, T) or ending in an underscore (lease_): a name says
// what the function does.
func TestFunctionNamesSayWhatTheyDo(t *testing.T) {
	goFiles(t, func(name string, src []byte) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			id := fn.Name.Name
			if len([]rune(id)) == 1 || strings.HasSuffix(id, "_") {
				t.Errorf("%s: func %s: name it for what it does", fset.Position(fn.Pos()), id)
			}
		}
	})
}
