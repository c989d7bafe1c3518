// Package workspacetest provisions test accounts from workspace files, for
// the area packages' tests.
package workspacetest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// Apply applies a workspace file (a path, e.g. "../workspace/testdata/acme.yaml")
// at now and returns its account and the ids of what it made.
func Apply(tb testing.TB, store *db.DB, now time.Time, file string) (account.Account, workspace.IDs) {
	tb.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(context.Background(), data)
	if err != nil {
		tb.Fatalf("apply %s: %v", file, err)
	}
	acct, err := account.BySlug(context.Background(), store, res.Account.Slug)
	if err != nil {
		tb.Fatal(err)
	}
	return acct, res.IDs
}
