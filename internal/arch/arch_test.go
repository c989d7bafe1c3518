package arch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const mod = "github.com/frontdesk/frontdesk/"

// Front doors and the file format: nothing below them may depend on them.
var above = []string{"internal/httpapi", "internal/dashboard", "internal/bookingpage", "internal/mcp", "internal/csvimport", "internal/workspace", "internal/bench", "cmd/frontdesk"}

// TestAreasNeverReachUp lists every package an area or the worker depends
// on, directly or not (go list -deps), and fails on a front door or the
// workspace format among them.
func TestAreasNeverReachUp(t *testing.T) {
	for _, pkg := range []string{"internal/jobs", "internal/idempotency", "internal/calendar", "internal/waitlist", "internal/pipeline", "internal/contact",
		"internal/account", "internal/channels", "internal/offers", "internal/readcache", "internal/texts", "internal/db",
		"internal/chat", "internal/relay", "internal/phone", "internal/clock", "internal/manage", "internal/managelink",
		"internal/feeds", "internal/ics", "internal/patients", "internal/pagesettings", "internal/privacy", "internal/retention", "internal/reports"} {
		t.Run(pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", mod+pkg).CombinedOutput()
			if err != nil {
				t.Fatalf("go list: %v: %s", err, out)
			}
			for _, dep := range strings.Fields(string(out)) {
				for _, up := range above {
					if dep == mod+up {
						t.Errorf("%s depends on %s", pkg, up)
					}
				}
			}
		})
	}
}

// sqlStatement spots a SQL statement in Go source.
var sqlStatement = regexp.MustCompile(`(?i)\b(SELECT\s.+\sFROM\s|INSERT\s+INTO\s|UPDATE\s+[a-z_]+\s+SET\s|DELETE\s+FROM\s)`)

// TestFrontDoorsHoldNoSQL reads the front doors' source: statements belong
// to the areas and internal/db, so a rule or a tenancy check is written
// once.
func TestFrontDoorsHoldNoSQL(t *testing.T) {
	for _, dir := range []string{"internal/httpapi", "internal/mcp", "internal/csvimport", "internal/dashboard", "internal/bookingpage", "cmd/frontdesk"} {
		files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			name := filepath.ToSlash(strings.TrimPrefix(f, filepath.Join("..", "..")+string(filepath.Separator)))
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if m := sqlStatement.Find(src); m != nil {
				t.Errorf("%s holds SQL (%q): move it into the area that owns the table", name, m)
			}
		}
	}
}
