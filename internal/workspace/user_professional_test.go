package workspace_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestUserProfessional: users[].professional links a user to a
// professional of the file (or of an earlier one), a later file without
// the key keeps the link, null unlinks (docs/reports.md).
func TestUserProfessional(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
		ws := &workspace.Applier{DB: store, Now: func() time.Time { return now }}
		link := func() sql.NullInt64 {
			var id sql.NullInt64
			if err := store.QueryRow(ctx, `SELECT professional_id FROM users WHERE file_key = 'ben'`).Scan(&id); err != nil {
				t.Fatal(err)
			}
			return id
		}
		res, err := ws.Apply(ctx, []byte(`account: {slug: up}
professionals: [{key: p1, name: Ben Pro}]
users: [{key: ben, name: Ben, email: ben@up.test, role: staff, professional: p1}]`))
		if err != nil {
			t.Fatal(err)
		}
		if got := link(); got.Int64 != res.IDs.Professionals["p1"] {
			t.Fatalf("linked to %v, want %d", got, res.IDs.Professionals["p1"])
		}
		for _, step := range []struct {
			file   string
			linked bool
		}{
			{"account: {slug: up}\nusers: [{key: ben, name: Benito}]", true},
			{"account: {slug: up}\nusers: [{key: ben, professional: null}]", false},
		} {
			if _, err := ws.Apply(ctx, []byte(step.file)); err != nil {
				t.Fatal(err)
			}
			if got := link(); got.Valid != step.linked {
				t.Errorf("after %q: linked %v, want %v", step.file, got.Valid, step.linked)
			}
		}
	})
}
