package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestBenchCommand runs a small `frontdesk bench` end to end, so the command
// keeps working: every measurement answers what it should (the bench checks
// each response), and the report carries every table and target.
func TestBenchCommand(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			args := []string{"bench", "--sizes", "0,1000", "--messages", "1000", "--iterations", "2"}
			if e == db.Postgres {
				// The bench makes a schema of its own under the URL it is given.
				base := dbtest.PostgresBase()
				if base == "" {
					t.Skipf("set %s", dbtest.EnvPostgres)
				}
				args = append(args, "--db", base)
			}
			out := filepath.Join(t.TempDir(), "results.md")
			args = append(args, "--out", out)
			// FRONTDESK_DB names a file that must stay untouched: without
			// --db the bench uses a temporary database of its own.
			userDB := filepath.Join(t.TempDir(), "frontdesk.db")
			code, stdout, stderr := runCmd(t, userDB, "", args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if _, err := os.Stat(userDB); !os.IsNotExist(err) {
				t.Errorf("the bench touched FRONTDESK_DB's %s", userDB)
			}
			for _, want := range []string{"### By stored clients", "| 0 clients | 1,000 clients |", "raw floor", "ingest 500 rows, mixed, 10 % failing",
				"waiting-list batch 500 rows", "GET /calendar/services", "availability?days=90", "chat page 50 × 500 messages", "### Targets",
				"≤ 3× raw floor, at 1,000 clients", "at 1,000 clients ≤ 1.5× its cost at 0"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, stdout)
				}
			}
			if data, err := os.ReadFile(out); err != nil || string(data) != stdout {
				t.Errorf("--out file differs from the output (%v)", err)
			}
		})
	}
}

func TestBenchRefusesExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "precious.db")
	os.WriteFile(path, []byte("data"), 0o644)
	code, _, stderr := runCmd(t, "", "", "bench", "--db", path, "--sizes", "0", "--messages", "", "--iterations", "1")
	if code != 1 || !strings.Contains(stderr, "exists") {
		t.Errorf("exit %d, %s", code, stderr)
	}
	if data, _ := os.ReadFile(path); string(data) != "data" {
		t.Error("the file changed")
	}
}

func TestParseCounts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		err  bool
	}{
		{"0,100000,1000000", "[0 100000 1000000]", false},
		{"0, 100k, 1M", "[0 100000 1000000]", false},
		{"10_000,1m", "[10000 1000000]", false},
		{"", "[]", false},
		{"100,10", "", true},
		{"x", "", true},
		{"-1", "", true},
	} {
		got, err := parseCounts(c.in)
		if (err != nil) != c.err || (!c.err && fmt.Sprint(got) != c.want) {
			t.Errorf("parseCounts(%q) = %v, %v", c.in, got, err)
		}
	}
}
