package workspace_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// The workspace file parser and validator under fuzzing: Parse and Validate
// never panic; every problem names the offending path (or, for a file that
// does not parse, says so with the parser's line); and a file that
// validates applies without an internal error (a refusal, if any, is the
// same *workspace.Error with paths, or a VALIDATION_ERROR for a conflict
// with the store). `go test` runs the seeds of
// testdata/fuzz/; fuzz with
//
//	go test ./internal/workspace -run '^$' -fuzz FuzzWorkspaceFile -fuzztime 60s

var sections = []string{"account", "api_keys", "users", "ai_agents", "event_types", "professionals", "services", "notifications",
	"waitlists", "webhooks", "disposition_tags", "pipelines", "clients", "conversations"}

// checkPaths asserts err is a *workspace.Error whose problems each start
// with a path into one of the file's sections.
func checkPaths(t *testing.T, err error, data []byte) {
	t.Helper()
	var werr *workspace.Error
	if !errors.As(err, &werr) || len(werr.Problems) == 0 {
		t.Fatalf("error %T %v is not a *workspace.Error with problems (file %q)", err, err, data)
	}
	for _, p := range werr.Problems {
		path, _, ok := strings.Cut(p, ": ")
		section := path
		if i := strings.IndexAny(section, ".["); i >= 0 {
			section = section[:i]
		}
		if !ok || !contains(sections, section) {
			t.Fatalf("problem %q names no path (file %q)", p, data)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func FuzzWorkspaceFile(f *testing.F) {
	now := func() time.Time { return time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC) }
	appliers := []*workspace.Applier{{DB: dbtest.Open(f, db.SQLite), Now: now}}
	// The seeds (what CI runs) also apply on PostgreSQL when configured;
	// fuzzing itself stays on SQLite for speed.
	if os.Getenv(dbtest.EnvPostgres) != "" && flag.Lookup("test.fuzz").Value.String() == "" {
		appliers = append(appliers, &workspace.Applier{DB: dbtest.Open(f, db.Postgres), Now: now})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := workspace.Parse(data)
		if err != nil {
			var werr *workspace.Error
			if !errors.As(err, &werr) || len(werr.Problems) != 1 || !strings.HasPrefix(werr.Problems[0], "the file is not valid YAML or JSON") {
				t.Fatalf("Parse error %v (file %q)", err, data)
			}
			return
		}
		known := &workspace.Known{Users: map[string]bool{"ana": true}, Services: map[string]bool{"cleaning": true},
			Stages: map[string]map[string]bool{"sales": {"new": true}}}
		if err := workspace.Validate(file, known); err != nil {
			checkPaths(t, err, data)
		}
		err = workspace.Validate(file, nil)
		if err != nil {
			checkPaths(t, err, data)
			return
		}
		for _, applier := range appliers {
			if _, err := applier.ApplyFile(context.Background(), file); err != nil {
				// A conflict with what the store holds (another account's
				// key value) is a refusal in the error vocabulary: a 400,
				// not a 500.
				var e *errs.Error
				if errors.As(err, &e) && e.Code != errs.Internal {
					continue
				}
				checkPaths(t, err, data)
			}
		}
	})
}
