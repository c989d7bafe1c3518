package db_test

import (
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace/workspacetest"
)

// Migration 00030 fills clients.search_text for the clients written before
// it, folded as every write folds it (docs/patient-search.md).
func TestSearchTextBackfill(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := t.Context()
		acct, ids := workspacetest.Apply(t, store, time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC), "../workspace/testdata/acme.yaml")
		dbtest.SkipOnCitus(t, "migrations are rolled back on a single server only (docs/scale-out.md)")
		if err := store.MigrateDownTo(ctx, 29); err != nil {
			t.Fatal(err)
		}
		if err := store.MigrateTo(ctx, 30); err != nil {
			t.Fatal(err)
		}
		var text string
		if err := store.QueryRow(ctx, `SELECT search_text FROM clients WHERE account_id = ? AND id = ?`, acct.ID, ids.Clients["maria"]).Scan(&text); err != nil {
			t.Fatal(err)
		}
		if want := "maria garcia\t maria garcia maria@example.com maria example com "; text != want {
			t.Fatalf("search_text = %q, want %q", text, want)
		}
	})
}
