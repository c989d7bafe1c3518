package calendar_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestMoveSeriesFrom: "this and the following" moves the session and every
// later one by the same change of wall clock (days and time of day, across
// the October DST change), without warnings when the new times are free
// even where a session lands on a sibling's old time; earlier sessions stay;
// each moved session gets appointment.rescheduled, and the patient one
// confirmation request listing the new dates (docs/series.md).
func TestMoveSeriesFrom(t *testing.T) {
	now := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	madrid, _ := time.LoadLocation("Europe/Madrid")
	at := func(day, hm string) time.Time {
		t, _ := time.ParseInLocation("2006-01-02 15:04", day+" "+hm, madrid)
		return t.UTC()
	}
	for _, tc := range []struct {
		name  string
		from  int       // the session moved, and the following
		to    time.Time // its new start
		wants []time.Time
	}{
		{"a day later, an hour later", 1, at("2026-10-22", "11:00"),
			[]time.Time{at("2026-10-14", "10:00"), at("2026-10-22", "11:00"), at("2026-10-29", "11:00"), at("2026-11-05", "11:00")}},
		{"a week later onto the next session's time", 0, at("2026-10-21", "10:00"),
			[]time.Time{at("2026-10-21", "10:00"), at("2026-10-28", "10:00"), at("2026-11-04", "10:00"), at("2026-11-11", "10:00")}},
		{"a week earlier", 2, at("2026-10-21", "16:00"),
			[]time.Time{at("2026-10-14", "10:00"), at("2026-10-21", "10:00"), at("2026-10-21", "16:00"), at("2026-10-28", "16:00")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dbtest.Engines(t, func(t *testing.T, store *db.DB) {
				ctx := context.Background()
				acct, res := clinic(t, store, "series", 1)
				if _, err := store.Exec(ctx, `UPDATE accounts SET notifications = ?, language = 'en' WHERE id = ?`,
					`{"confirmation_request": true, "reminders": ["24h"]}`, acct.ID); err != nil {
					t.Fatal(err)
				}
				if _, err := store.Exec(ctx, `INSERT INTO webhooks (account_id, file_key, url, events) VALUES (?, 'h', 'https://example.com/h', ?)`,
					acct.ID, `["appointment.rescheduled"]`); err != nil {
					t.Fatal(err)
				}
				b, err := calendar.BookSeries(ctx, store, acct, seriesRequest(t, "2026-10-14T10:00:00", res.IDs.Professionals["p0"]),
					calendar.Recurrence{Frequency: "weekly", Interval: 1, Count: 4}, now)
				if err != nil {
					t.Fatal(err)
				}
				occ := b.Series.Occurrences
				var moved []calendar.Moved
				err = store.Transact(ctx, func(tx *db.Tx) error {
					moved, err = calendar.MoveSeriesFrom(ctx, tx, acct, calendar.MoveRequest{AppointmentID: occ[tc.from].ID, Start: tc.to,
						Change: calendar.Change{By: calendar.ByStaff}}, now)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if len(moved) != len(occ)-tc.from {
					t.Fatalf("moved %d sessions, want %d", len(moved), len(occ)-tc.from)
				}
				for _, m := range moved {
					if len(m.Warnings) != 0 {
						t.Errorf("session %d moved to %s with warnings %+v", m.Appointment.ID, m.Appointment.StartAt, m.Warnings)
					}
				}
				for i, o := range occ {
					var start int64
					var events int
					store.QueryRow(ctx, `SELECT start_at FROM appointments WHERE id = ? AND status = 'booked'`, o.ID).Scan(&start)
					store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE account_id = ? AND kind = 'webhook' AND source_id = ?`, acct.ID, o.ID).Scan(&events)
					wantEvents := 1
					if i < tc.from {
						wantEvents = 0
					}
					if got := db.Time(start); !got.Equal(tc.wants[i]) || events != wantEvents {
						t.Errorf("session %d: at %s with %d events, want %s with %d", i, got, events, tc.wants[i], wantEvents)
					}
					if wantEvents == 1 {
						var body string
						store.QueryRow(ctx, `SELECT body FROM outbox WHERE account_id = ? AND kind = 'webhook' AND source_id = ?`, acct.ID, o.ID).Scan(&body)
						if want := fmt.Sprintf(`"series_id":%d`, b.Series.ID); !strings.Contains(body, want) {
							t.Errorf("session %d: appointment.rescheduled lacks %s: %s", i, want, body)
						}
					}
				}
				// One new confirmation request, listing the moved dates.
				rows, err := store.Query(ctx, `SELECT body FROM outbox WHERE account_id = ? AND kind = 'booking_confirmation' AND status = 'pending' ORDER BY id`, acct.ID)
				if err != nil {
					t.Fatal(err)
				}
				var bodies []string
				for rows.Next() {
					var body string
					rows.Scan(&body)
					bodies = append(bodies, body)
				}
				rows.Close()
				last := bodies[len(bodies)-1]
				if n := strings.Count(last, "\n- "); n != len(moved) {
					t.Errorf("the new confirmation request lists %d dates, want %d: %q", n, len(moved), last)
				}
				for _, want := range tc.wants[tc.from:] {
					if line := "\n- " + want.In(madrid).Format("Monday 2 January at 15:04"); !strings.Contains(last, line) {
						t.Errorf("the new confirmation request lacks %q: %q", line, last)
					}
				}
			})
		})
	}
}
