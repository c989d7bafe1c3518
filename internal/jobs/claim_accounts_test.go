package jobs_test

import (
	"context"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// TestStillOursAcrossAccounts: the recorder's ownership check over jobs of
// several accounts finds exactly this worker's running jobs (on Citus the
// accounts' rows are on different shards, which one locking statement
// cannot span).
func TestStillOursAcrossAccounts(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		w := &jobs.Worker{DB: store, Instance: "me"}
		var all []jobs.Job
		want := map[int64]bool{}
		for acct := int64(1); acct <= 6; acct++ {
			if _, err := store.Exec(ctx, `INSERT INTO accounts (id, slug, name, timezone, default_region, created_at, updated_at)
				VALUES (?, ?, 'A', 'UTC', 'ES', 0, 0)`, acct, "a"+string(rune('0'+acct))); err != nil {
				t.Fatal(err)
			}
			for i, owner := range []string{"me", "other", "me"} {
				var id int64
				if err := store.QueryRow(ctx, `INSERT INTO jobs (account_id, kind, status, run_at, created_at, claimed_by)
					VALUES (?, 'webhook_delivery', 'running', 0, 0, ?) RETURNING id`, acct, owner).Scan(&id); err != nil {
					t.Fatal(err)
				}
				all = append(all, jobs.Job{ID: id, AccountID: acct})
				if owner == "me" && i == 0 {
					want[id] = true
				} else if owner == "me" {
					// finished meanwhile: no longer running, so not ours to record
					if _, err := store.Exec(ctx, `UPDATE jobs SET status = 'done' WHERE account_id = ? AND id = ?`, acct, id); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		err := store.Transact(ctx, func(tx *db.Tx) error {
			got, err := w.StillOurs(ctx, tx, all)
			if err != nil {
				return err
			}
			if len(got) != len(want) {
				t.Errorf("still ours: %v, want %v", got, want)
			}
			for id := range want {
				if !got[id] {
					t.Errorf("job %d is this worker's and running, not found", id)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
