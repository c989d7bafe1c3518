package contact_test

import (
	"testing"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Where the engine keeps row versions, a lookup reads each client's and
// LockVersions answers the same one until the client is written again;
// elsewhere lookups read 0 and LockVersions refuses.
func TestLockVersionsChangeWithEveryWrite(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, _ := acme(t, store)
		ctx := t.Context()
		c, err := contact.CreateClient(ctx, store, acct, contact.ClientInput{FirstName: "Ana", Phone: "600 800 001"}, now)
		if err != nil {
			t.Fatal(err)
		}
		lookup := func() contact.Client {
			found, err := contact.ByIDs(ctx, store, acct, []int64{c.ID})
			if err != nil {
				t.Fatal(err)
			}
			return found[c.ID]
		}
		locked := func() (v int64, err error) {
			err = store.Transact(ctx, func(tx *db.Tx) error {
				versions, err := contact.LockVersions(ctx, tx, acct, []int64{c.ID, c.ID + 1000})
				v = versions[c.ID]
				if len(versions) > 1 {
					t.Errorf("versions of clients that do not exist: %v", versions)
				}
				return err
			})
			return v, err
		}
		before := lookup()
		if !contact.RowVersions(store.Dialect()) {
			if before.Version != 0 {
				t.Fatalf("version %d where the engine keeps none", before.Version)
			}
			if _, err := locked(); err == nil {
				t.Fatal("LockVersions answered where the engine keeps no versions")
			}
			return
		}
		if before.Version == 0 {
			t.Fatal("a lookup read no version")
		}
		for _, step := range []struct {
			name    string
			write   string
			changed bool
		}{
			{"nothing written", "", false},
			{"another field", `UPDATE clients SET last_name = 'Gil' WHERE account_id = ? AND id = ?`, true},
			{"the same values again", `UPDATE clients SET last_name = 'Gil' WHERE account_id = ? AND id = ?`, true},
		} {
			prev := lookup().Version
			if step.write != "" {
				if _, err := store.Exec(ctx, step.write, acct.ID, c.ID); err != nil {
					t.Fatal(err)
				}
			}
			got, err := locked()
			if err != nil {
				t.Fatal(err)
			}
			if (got != prev) != step.changed {
				t.Errorf("%s: version %d → %d, changed want %v", step.name, prev, got, step.changed)
			}
			if now := lookup().Version; now != got {
				t.Errorf("%s: lookup reads %d, LockVersions %d", step.name, now, got)
			}
		}
	})
}
