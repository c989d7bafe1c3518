package calendar_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// TestBookSeries books weekly series in Madrid (docs/series.md): the same
// wall clock across both daylight-saving changes, count and until, interval
// 2, and an occurrence overlapping an existing booking warned alone.
func TestBookSeries(t *testing.T) {
	now := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		start  string
		rec    calendar.Recurrence
		starts []string // UTC
		pro    string
	}{
		{"count across October", "2026-10-14T10:00:00", calendar.Recurrence{Frequency: "weekly", Interval: 1, Count: 4},
			[]string{"2026-10-14T08:00:00Z", "2026-10-21T08:00:00Z", "2026-10-28T09:00:00Z", "2026-11-04T09:00:00Z"}, "p0"},
		{"until across March, interval 2", "2027-03-17T10:00:00", calendar.Recurrence{Frequency: "weekly", Interval: 2, Until: "2027-04-14"},
			[]string{"2027-03-17T09:00:00Z", "2027-03-31T08:00:00Z", "2027-04-14T08:00:00Z"}, "p0"},
		{"until the day before the last", "2027-03-17T10:00:00", calendar.Recurrence{Frequency: "weekly", Interval: 2, Until: "2027-04-13"},
			[]string{"2027-03-17T09:00:00Z", "2027-03-31T08:00:00Z"}, "p1"},
	}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "series", 2)
		// Professional 0 is busy on the second Wednesday of the first case.
		insertAppointments(t, store, acct, res, []appt{{pro: "p0", start: time.Date(2026, 10, 21, 8, 0, 0, 0, time.UTC), minutes: 30}})
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				b, err := calendar.BookSeries(ctx, store, acct, seriesRequest(t, c.start, res.IDs.Professionals[c.pro]), c.rec, now)
				if err != nil {
					t.Fatal(err)
				}
				occ := b.Series.Occurrences
				if len(occ) != len(c.starts) {
					t.Fatalf("%d occurrences, want %d: %+v", len(occ), len(c.starts), occ)
				}
				if b.Appointment.ID != occ[0].ID || b.Appointment.StartAt != c.starts[0] {
					t.Errorf("data is %d at %s, want the first occurrence %d", b.Appointment.ID, b.Appointment.StartAt, occ[0].ID)
				}
				for i, o := range occ {
					if o.StartAt != c.starts[i] {
						t.Errorf("occurrence %d starts %s, want %s", i, o.StartAt, c.starts[i])
					}
					var series int64
					if err := store.QueryRow(ctx, `SELECT series_id FROM appointments WHERE id = ?`, o.ID).Scan(&series); err != nil || series != b.Series.ID {
						t.Errorf("occurrence %d has series %d (%v), want %d", i, series, err, b.Series.ID)
					}
					overlap := false
					for _, w := range o.Warnings {
						overlap = overlap || w.Code == calendar.WarnOverlap
					}
					if want := o.StartAt == "2026-10-21T08:00:00Z"; overlap != want {
						t.Errorf("occurrence %d at %s: overlap warning %v, want %v", i, o.StartAt, overlap, want)
					}
				}
			})
		}
	})
}

// TestBookSeriesRefused: a recurrence the rule refuses writes nothing.
func TestBookSeriesRefused(t *testing.T) {
	now := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		rec   calendar.Recurrence
		field string
	}{
		{"frequency", calendar.Recurrence{Frequency: "daily", Interval: 1, Count: 3}, "recurrence.frequency"},
		{"interval 0", calendar.Recurrence{Frequency: "weekly", Interval: 0, Count: 3}, "recurrence.interval"},
		{"interval 5", calendar.Recurrence{Frequency: "weekly", Interval: 5, Count: 3}, "recurrence.interval"},
		{"count 1", calendar.Recurrence{Frequency: "weekly", Interval: 1, Count: 1}, "recurrence.count"},
		{"count 53", calendar.Recurrence{Frequency: "weekly", Interval: 1, Count: 53}, "recurrence.count"},
		{"both", calendar.Recurrence{Frequency: "weekly", Interval: 1, Count: 3, Until: "2026-12-01"}, "recurrence.count"},
		{"neither", calendar.Recurrence{Frequency: "weekly", Interval: 1}, "recurrence.count"},
		{"until not a date", calendar.Recurrence{Frequency: "weekly", Interval: 1, Until: "2026-13-01"}, "recurrence.until"},
		{"until too far", calendar.Recurrence{Frequency: "weekly", Interval: 1, Until: "2027-10-16"}, "recurrence.until"},
		{"until before the start", calendar.Recurrence{Frequency: "weekly", Interval: 1, Until: "2026-10-13"}, "recurrence.until"},
	}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "series", 1)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := calendar.BookSeries(ctx, store, acct, seriesRequest(t, "2026-10-14T10:00:00", res.IDs.Professionals["p0"]), c.rec, now)
				var e *errs.Error
				if !errors.As(err, &e) || e.Code != errs.ValidationError || e.Details.(map[string]any)["field"] != c.field {
					t.Fatalf("err %v, want a validation error on %s", err, c.field)
				}
			})
		}
		var n int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM appointments WHERE account_id = ?`, acct.ID).Scan(&n)
		if n != 0 {
			t.Errorf("%d appointments written", n)
		}
	})
}

func seriesRequest(t *testing.T, start string, pro int64) calendar.BookRequest {
	t.Helper()
	s, _ := calendar.ParseWallTime(start)
	e, _ := calendar.ParseWallTime(start[:11] + "10:30:00")
	svc, et := "Short", "Visit"
	return calendar.BookRequest{Client: calendar.ClientInput{Phone: "+34611000099", FirstName: "Curso"},
		ServiceName: &svc, ProfessionalID: &pro, EventTypeName: &et, StartAt: s, EndAt: e, Timezone: "Europe/Madrid"}
}

// TestBookSeriesNotifications: one confirmation request for the series,
// listing every date in the account's language; each occurrence its own
// reminder and its own appointment.booked with series_id (docs/series.md).
func TestBookSeriesNotifications(t *testing.T) {
	now := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "series", 1)
		if _, err := store.Exec(ctx, `UPDATE accounts SET notifications = ?, language = 'es' WHERE id = ?`,
			`{"confirmation_request": true, "reminders": ["24h"]}`, acct.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Exec(ctx, `INSERT INTO webhooks (account_id, file_key, url, events) VALUES (?, 'h', 'https://example.com/h', ?)`,
			acct.ID, `["appointment.booked"]`); err != nil {
			t.Fatal(err)
		}
		b, err := calendar.BookSeries(ctx, store, acct, seriesRequest(t, "2026-10-14T10:00:00", res.IDs.Professionals["p0"]),
			calendar.Recurrence{Frequency: "weekly", Interval: 1, Count: 3}, now)
		if err != nil {
			t.Fatal(err)
		}
		count := func(q string, args ...any) int {
			var n int
			if err := store.QueryRow(ctx, q, args...).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		var body string
		if err := store.QueryRow(ctx, `SELECT body FROM outbox WHERE account_id = ? AND kind = 'booking_confirmation'`, acct.ID).Scan(&body); err != nil {
			t.Fatalf("not exactly one confirmation request: %v", err)
		}
		for _, want := range []string{"¿confirmas tus citas", "miércoles 14 de octubre a las 10:00", "miércoles 28 de octubre a las 10:00"} {
			if !strings.Contains(body, want) {
				t.Errorf("confirmation request lacks %q: %s", want, body)
			}
		}
		for _, o := range b.Series.Occurrences {
			if n := count(`SELECT COUNT(*) FROM outbox WHERE account_id = ? AND kind = 'booking_reminder' AND source_id = ?`, acct.ID, o.ID); n != 1 {
				t.Errorf("occurrence %d has %d reminders, want 1", o.ID, n)
			}
			var event string
			if err := store.QueryRow(ctx, `SELECT body FROM outbox WHERE account_id = ? AND kind = 'webhook' AND source_id = ?`, acct.ID, o.ID).Scan(&event); err != nil {
				t.Fatalf("occurrence %d: no appointment.booked: %v", o.ID, err)
			}
			if want := fmt.Sprintf(`"series_id":%d`, b.Series.ID); !strings.Contains(event, want) {
				t.Errorf("occurrence %d: event lacks %s: %s", o.ID, want, event)
			}
		}

		// The patient's "sí" to that one request confirms every session.
		if _, err := store.Exec(ctx, `UPDATE outbox SET status = 'sent', sent_at = ? WHERE account_id = ? AND kind = 'booking_confirmation'`,
			db.Micros(now), acct.ID); err != nil {
			t.Fatal(err)
		}
		if err := store.Transact(ctx, func(tx *db.Tx) error {
			_, found, err := calendar.AnswerConfirmation(ctx, tx, acct, "+34611000099", calendar.ConfirmationConfirmed, now.Add(time.Minute))
			if err == nil && !found {
				t.Error("the series' confirmation request was not found")
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if n := count(`SELECT COUNT(*) FROM appointments WHERE account_id = ? AND series_id = ? AND confirmation_status = 'confirmed'`, acct.ID, b.Series.ID); n != 3 {
			t.Errorf("%d of 3 sessions confirmed by the one reply", n)
		}
	})
}
