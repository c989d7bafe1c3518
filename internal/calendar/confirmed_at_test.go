package calendar_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestConfirmedAt: the one confirmation rule records when an appointment
// last became confirmed (the reports' time to confirm, docs/reports.md); a
// decline leaves it, a later confirmation moves it.
func TestConfirmedAt(t *testing.T) {
	now := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "confirmedat", 1)
		b, err := calendar.Book(ctx, store, acct, seriesRequest(t, "2026-10-14T10:00:00", res.IDs.Professionals["p0"]), now)
		if err != nil {
			t.Fatal(err)
		}
		id := b.Appointment.ID
		confirmedAt := func() int64 {
			var at *int64
			if err := store.QueryRow(ctx, `SELECT confirmed_at FROM appointments WHERE id = ?`, id).Scan(&at); err != nil {
				t.Fatal(err)
			}
			if at == nil {
				return 0
			}
			return *at
		}
		if at := confirmedAt(); at != 0 {
			t.Fatalf("confirmed_at %d before any confirmation", at)
		}
		for _, step := range []struct {
			status string
			at     time.Time
			want   time.Time
		}{
			{calendar.ConfirmationConfirmed, now.Add(2 * time.Hour), now.Add(2 * time.Hour)},
			{calendar.ConfirmationDeclined, now.Add(3 * time.Hour), now.Add(2 * time.Hour)},
			{calendar.ConfirmationConfirmed, now.Add(5 * time.Hour), now.Add(5 * time.Hour)},
		} {
			if err := store.Transact(ctx, func(tx *db.Tx) error {
				_, err := calendar.SetConfirmation(ctx, tx, acct, id, step.status, step.at)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if got := confirmedAt(); got != db.Micros(step.want) {
				t.Errorf("after %s at %s: confirmed_at %s, want %s", step.status, step.at, db.Time(got), step.want)
			}
		}
	})
}
