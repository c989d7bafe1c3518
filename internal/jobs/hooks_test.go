package jobs_test

import (
	"context"
	"testing"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// TestHooksReadBeforeTheTransaction emits through webhooks read before the
// transaction, as an ingest batch does: the account's own deliveries are
// queued, and the hooks of one account never take another's events.
func TestHooksReadBeforeTheTransaction(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		e := setupWith(t, store, nil, nil)
		hooks, err := jobs.LoadHooks(ctx, store, e.acct)
		if err != nil {
			t.Fatal(err)
		}
		count := func() (n int) {
			store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = ?`, jobs.MsgWebhook).Scan(&n)
			return n
		}
		before := count()
		ev := jobs.Event{Type: jobs.EventAppointmentBooked, SourceID: 7, Data: map[string]any{"id": 7}}
		other := account.Account{ID: e.acct.ID + 1000, Slug: "other"}
		err = store.Transact(ctx, func(tx *db.Tx) error { return hooks.Emit(ctx, tx, other, e.clock.Now(), ev) })
		if err == nil {
			t.Error("hooks of one account emitted another account's event")
		}
		if err := store.Transact(ctx, func(tx *db.Tx) error { return hooks.Emit(ctx, tx, e.acct, e.clock.Now(), ev) }); err != nil {
			t.Fatal(err)
		}
		if got := count() - before; got != 1 {
			t.Errorf("deliveries queued = %d, want 1 (the account's one hook)", got)
		}
	})
}
