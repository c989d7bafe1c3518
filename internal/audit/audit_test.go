package audit_test

import (
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestRecordAndList: entries come back newest first, page by page, and
// only the account's own; a rolled-back change leaves none.
func TestRecordAndList(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := t.Context()
		now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
		var accts [2]account.Account
		for i, slug := range []string{"acme", "other"} {
			if err := store.QueryRow(ctx, `INSERT INTO accounts (slug, name, timezone, default_region, created_at, updated_at) VALUES (?, ?, 'Europe/Madrid', 'ES', ?, ?) RETURNING id`,
				slug, slug, db.Micros(now), db.Micros(now)).Scan(&accts[i].ID); err != nil {
				t.Fatal(err)
			}
		}
		ana := audit.Actor{UserID: 7, UserName: "Ana"}
		for i, what := range []string{"service 1", "service 2", "webhook 3"} {
			if err := audit.Record(ctx, store, accts[0], ana, "updated", "service", what, "name", now.Add(time.Duration(i)*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		if err := audit.Record(ctx, store, accts[1], audit.Actor{}, "created", "webhook", "9", "url", now); err != nil {
			t.Fatal(err)
		}
		rollback := store.Transact(ctx, func(tx *db.Tx) error {
			if err := audit.Record(ctx, tx, accts[0], ana, "deleted", "service", "1", "", now); err != nil {
				return err
			}
			return errRollback
		})
		if rollback != errRollback {
			t.Fatal(rollback)
		}
		page, err := audit.List(ctx, store, accts[0], 0, 2)
		if err != nil || len(page) != 2 || page[0].ObjectID != "webhook 3" || page[1].ObjectID != "service 2" ||
			page[0].UserName != "Ana" || page[0].UserID != 7 || !page[0].CreatedAt.Equal(now.Add(2*time.Minute)) {
			t.Fatalf("first page %+v %v", page, err)
		}
		rest, err := audit.List(ctx, store, accts[0], page[1].ID, 10)
		if err != nil || len(rest) != 1 || rest[0].ObjectID != "service 1" {
			t.Fatalf("second page %+v %v", rest, err)
		}
		other, err := audit.List(ctx, store, accts[1], 0, 10)
		if err != nil || len(other) != 1 || other[0].UserID != 0 || other[0].ObjectID != "9" {
			t.Fatalf("other account %+v %v", other, err)
		}
	})
}

type rollbackErr struct{}

func (rollbackErr) Error() string { return "rollback" }

var errRollback error = rollbackErr{}
