package calendar_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestCancelSeriesFrom: "this and the following" cancels the occurrence and
// the later ones, each with its own appointment.cancelled; the earlier ones
// stay booked (docs/series.md).
func TestCancelSeriesFrom(t *testing.T) {
	now := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "series", 1)
		if _, err := store.Exec(ctx, `INSERT INTO webhooks (account_id, file_key, url, events) VALUES (?, 'h', 'https://example.com/h', ?)`,
			acct.ID, `["appointment.cancelled"]`); err != nil {
			t.Fatal(err)
		}
		b, err := calendar.BookSeries(ctx, store, acct, seriesRequest(t, "2026-10-14T10:00:00", res.IDs.Professionals["p0"]),
			calendar.Recurrence{Frequency: "weekly", Interval: 1, Count: 4}, now)
		if err != nil {
			t.Fatal(err)
		}
		occ := b.Series.Occurrences
		var got []int64
		err = store.Transact(ctx, func(tx *db.Tx) error {
			got, err = calendar.CancelSeriesFrom(ctx, tx, acct, occ[1].ID, calendar.Change{By: calendar.ByStaff}, now)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []int64{occ[1].ID, occ[2].ID, occ[3].ID}; !slices.Equal(got, want) {
			t.Errorf("cancelled %v, want %v", got, want)
		}
		for i, o := range occ {
			var status string
			var events int
			store.QueryRow(ctx, `SELECT status FROM appointments WHERE id = ?`, o.ID).Scan(&status)
			store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE account_id = ? AND kind = 'webhook' AND source_id = ?`, acct.ID, o.ID).Scan(&events)
			want, wantEvents := "cancelled", 1
			if i == 0 {
				want, wantEvents = "booked", 0
			}
			if status != want || events != wantEvents {
				t.Errorf("occurrence %d: %s with %d events, want %s with %d", i, status, events, want, wantEvents)
			}
		}
	})
}
