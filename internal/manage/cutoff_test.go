package manage_test

import (
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/manage"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestManageCancelCutoff: the cut-off is the booking rule of the
// appointment's service over the account's (docs/booking-rules.md); before
// it a patient may cancel, after it the answer is CHANGE_NOT_ALLOWED and the
// view says so.
func TestManageCancelCutoff(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) // 10:00 in Madrid
		for _, test := range []struct {
			name, rules string
			cutoff      time.Duration
		}{
			{"account rule", "account: {slug: acme, booking_rules: {cancel_cutoff: 24h}}\n", 24 * time.Hour},
			{"service overrides account", "account: {slug: acme, booking_rules: {cancel_cutoff: 24h}}\n" +
				"services:\n  - {key: cleaning, booking_rules: {cancel_cutoff: 2h}}\n", 2 * time.Hour},
		} {
			t.Run(test.name, func(t *testing.T) {
				ws := &workspace.Applier{DB: store, Now: func() time.Time { return e.now }}
				if _, err := ws.Apply(e.ctx, []byte(test.rules)); err != nil {
					t.Fatal(err)
				}
				id := e.book(e.acct, "+34611000002", "2026-12-01T10:00:00")
				token := e.token(e.acct, id)
				cutoff := start.Add(-test.cutoff)
				_, v, err := manage.Open(e.ctx, store, token, cutoff.Add(-time.Minute))
				if err != nil || !v.CancelCutoffAt.Equal(cutoff) || !v.CanCancel || !v.CanReschedule {
					t.Fatalf("before the cut-off: %+v %v", v, err)
				}
				_, v, _ = manage.Open(e.ctx, store, token, cutoff)
				if v.CanCancel || v.CanReschedule {
					t.Errorf("at the cut-off the view still offers changes: %+v", v)
				}
				if _, err := manage.Cancel(e.ctx, store, token, "", cutoff); !errs.Is(err, errs.ChangeNotAllowed) {
					t.Errorf("cancel at the cut-off: want CHANGE_NOT_ALLOWED, got %v", err)
				}
				if _, err := manage.Cancel(e.ctx, store, token, "", cutoff.Add(-time.Minute)); err != nil {
					t.Errorf("cancel before the cut-off: %v", err)
				}
			})
		}
	})
}
