package arch_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// initFunc is a package init function.
var initFunc = regexp.MustCompile(`(?m)^func init\(\)`)

// TestNoHiddenHooks: no package runs code when it is imported. An init
// that fills a package's tables hides an order of start-up; one that sets
// another package's variable couples them behind the import graph's back.
// A package's tables are built by the function that declares them
// (var x = buildX()), and what one package needs from another is passed.
func TestNoHiddenHooks(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if initFunc.Match(src) {
			t.Errorf("%s has a func init(): build its tables where they are declared, and pass what other packages need", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
