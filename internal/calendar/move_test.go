package calendar_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// monday is a wall-clock time on Monday 30 November 2026 in Madrid (the
// clinic works 09:00-13:00 and 15:00-19:00).
func monday(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, madrid) }

// bookAt books a 30-minute Short appointment of p0 at start for a new
// client with phone, as the API does, and returns its id.
func bookAt(t *testing.T, store *db.DB, acct account.Account, res *workspace.Result, start time.Time, phone string, now time.Time) int64 {
	t.Helper()
	svc, pro, et := res.IDs.Services["s30"], res.IDs.Professionals["p0"], res.IDs.EventTypes["visit"]
	from, _ := calendar.ParseWallTime(start.Format("2006-01-02T15:04:05"))
	to, _ := calendar.ParseWallTime(start.Add(30 * time.Minute).Format("2006-01-02T15:04:05"))
	b, err := calendar.Book(context.Background(), store, acct, calendar.BookRequest{
		Client: calendar.ClientInput{Phone: phone, FirstName: "Eva"}, ServiceID: &svc, ProfessionalID: &pro, EventTypeID: &et,
		StartAt: from, EndAt: to, Timezone: "Europe/Madrid"}, now)
	if err != nil {
		t.Fatal(err)
	}
	return b.Appointment.ID
}

func codes(ws []calendar.Warning) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

// TestMoveRule: a move to a free slot is made; a move to a taken slot, a
// time the professional does not work or the past is refused with Book's
// warnings, and made with the override, which returns them. A patient
// never overrides.
func TestMoveRule(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "moves", 1)
		insertAppointments(t, store, acct, res, []appt{{pro: "p0", start: monday(10, 0), minutes: 30}})
		now := monday(9, 10)
		id := bookAt(t, store, acct, res, monday(11, 0), "+34611000001", now)
		for _, tc := range []struct {
			name  string
			start time.Time
			want  []string // the warnings; nil: a free slot
		}{
			{"free slot", monday(12, 0), nil},
			{"taken slot", monday(10, 0), []string{calendar.WarnOverlap}},
			{"not working", monday(13, 30), []string{calendar.WarnOutsideWorkingHours}},
			{"in the past", monday(9, 0), []string{calendar.WarnInThePast}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				req := calendar.MoveRequest{AppointmentID: id, Start: tc.start, Change: calendar.Change{By: calendar.ByStaff}}
				_, err := calendar.MoveAppointment(ctx, store, acct, req, now)
				var refused *calendar.MoveRefused
				if tc.want == nil {
					if err != nil {
						t.Fatalf("move to a free slot: %v", err)
					}
				} else {
					if !errors.As(err, &refused) || !errs.Is(err, errs.SlotNotAvailable) {
						t.Fatalf("err = %v, want a refusal", err)
					}
					if got := codes(refused.Warnings); !slices.Equal(got, tc.want) {
						t.Fatalf("refusal warnings %v, want %v", got, tc.want)
					}
					a, _ := calendar.GetAppointment(ctx, store, acct, id)
					if a.StartAt.Equal(tc.start) {
						t.Fatal("a refused move moved the appointment")
					}
					req.Change.By = calendar.ByPatient
					req.Override = true
					if _, err := calendar.MoveAppointment(ctx, store, acct, req, now); !errs.Is(err, errs.ValidationError) {
						t.Fatalf("a patient's override: %v", err)
					}
					req.Change.By = calendar.ByStaff
					moved, err := calendar.MoveAppointment(ctx, store, acct, req, now)
					if err != nil {
						t.Fatal(err)
					}
					if got := codes(moved.Warnings); !slices.Equal(got, tc.want) {
						t.Fatalf("override warnings %v, want %v", got, tc.want)
					}
				}
				a, err := calendar.GetAppointment(ctx, store, acct, id)
				if err != nil || !a.StartAt.Equal(tc.start) || a.EndAt.Sub(a.StartAt) != 30*time.Minute {
					t.Fatalf("appointment at %v-%v (%v), want %v", a.StartAt, a.EndAt, err, tc.start)
				}
			})
		}
	})
}

// TestRacingMovesOneWins: two appointments moved at once into one free
// slot: one move is made, the other refused as an overlap.
func TestRacingMovesOneWins(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "race", 1)
		now := monday(9, 10)
		ids := []int64{bookAt(t, store, acct, res, monday(11, 0), "+34611000001", now), bookAt(t, store, acct, res, monday(11, 30), "+34611000002", now)}
		for round := range 3 {
			target := monday(15, 30*round)
			errsOf := make([]error, len(ids))
			var wg sync.WaitGroup
			for i, id := range ids {
				wg.Go(func() {
					_, errsOf[i] = calendar.MoveAppointment(ctx, store, acct, calendar.MoveRequest{AppointmentID: id, Start: target,
						Change: calendar.Change{By: calendar.ByStaff}}, now)
				})
			}
			wg.Wait()
			won := 0
			for _, err := range errsOf {
				var refused *calendar.MoveRefused
				switch {
				case err == nil:
					won++
				case errors.As(err, &refused):
				default:
					t.Fatalf("round %d: %v", round, err)
				}
			}
			var n int
			store.QueryRow(ctx, `SELECT COUNT(*) FROM appointments WHERE account_id = ? AND start_at = ? AND status = 'booked'`,
				acct.ID, db.Micros(target)).Scan(&n)
			if won != 1 || n != 1 {
				t.Fatalf("round %d: %d moves made, %d appointments at %v", round, won, n, target)
			}
		}
	})
}

// TestMovesCoalesceConfirmation: five moves within minutes of a sent
// confirmation request queue one request, held to the end of the quiet
// window, whose text has the final time; a move after the window asks at
// once.
func TestMovesCoalesceConfirmation(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "coalesce", 1)
		if _, err := store.Exec(ctx, `UPDATE accounts SET notifications = ? WHERE id = ?`,
			`{"confirmation_request":true,"reminders":["24h"]}`, acct.ID); err != nil {
			t.Fatal(err)
		}
		now := monday(9, 10)
		id := bookAt(t, store, acct, res, monday(11, 0), "+34611000001", now)
		// The worker sends the booking's request at once.
		if _, err := store.Exec(ctx, `UPDATE outbox SET status = 'sent', sent_at = ? WHERE source_type = 'booking' AND source_id = ? AND kind = 'booking_confirmation'`,
			db.Micros(now), id); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Exec(ctx, `UPDATE jobs SET status = 'done' WHERE outbox_id IN (SELECT id FROM outbox WHERE status = 'sent')`); err != nil {
			t.Fatal(err)
		}
		pending := func() (n int, body string, at time.Time) {
			t.Helper()
			rows, err := store.Query(ctx, `SELECT body, scheduled_at FROM outbox WHERE source_type = 'booking' AND source_id = ?
				AND kind = 'booking_confirmation' AND status = 'pending'`, id)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var micros int64
				if err := rows.Scan(&body, &micros); err != nil {
					t.Fatal(err)
				}
				n, at = n+1, db.Time(micros)
			}
			return n, body, at
		}
		starts := []time.Time{monday(11, 30), monday(12, 0), monday(12, 30), monday(15, 0), monday(16, 30)}
		for i, start := range starts {
			if _, err := calendar.MoveAppointment(ctx, store, acct, calendar.MoveRequest{AppointmentID: id, Start: start,
				Change: calendar.Change{By: calendar.ByStaff}}, now.Add(time.Duration(i+1)*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		n, body, at := pending()
		if n != 1 || !strings.Contains(body, "16:30") || !at.Equal(now.Add(calendar.ConfirmationQuietWindow)) {
			t.Fatalf("%d pending requests, the last at %v: %q", n, at, body)
		}
		var jobsPending int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM jobs j JOIN outbox o ON o.account_id = j.account_id AND o.id = j.outbox_id WHERE o.source_id = ? AND o.source_type = 'booking'
			AND o.kind = 'booking_confirmation' AND j.status = 'pending'`, id).Scan(&jobsPending)
		if jobsPending != 1 {
			t.Fatalf("%d pending delivery jobs", jobsPending)
		}
		// Past the window, a move asks at once.
		later := now.Add(20 * time.Minute)
		if _, err := calendar.MoveAppointment(ctx, store, acct, calendar.MoveRequest{AppointmentID: id, Start: monday(17, 0),
			Change: calendar.Change{By: calendar.ByStaff}}, later); err != nil {
			t.Fatal(err)
		}
		if n, body, at := pending(); n != 1 || !strings.Contains(body, "17:00") || !at.Equal(later) {
			t.Fatalf("after the window: %d pending, at %v: %q", n, at, body)
		}
	})
}

// TestMoveShortShift: a 60-minute appointment shifted by less than its
// length, overlapping only its own old time, is a free move (no override,
// no warnings); a shift that also overlaps another booking or leaves the
// working hours is refused with that reason, and the own-time exception
// holds for the appointment's own professional only.
func TestMoveShortShift(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "shift", 2)
		insertAppointments(t, store, acct, res, []appt{{pro: "p0", start: monday(10, 0), minutes: 30}})
		now := monday(9, 10)
		svc, et := res.IDs.Services["s30"], res.IDs.EventTypes["visit"]
		for _, tc := range []struct {
			name  string
			start time.Time
			pro   string
			free  bool
			want  []string // the refusal's warnings
		}{
			{"later by 15 minutes", monday(11, 15), "p0", true, nil},
			{"earlier by 15 minutes", monday(10, 45), "p0", true, nil},
			{"back to back with another booking", monday(10, 30), "p0", true, nil},
			{"onto another booking", monday(10, 15), "p0", false, []string{calendar.WarnOverlap}},
			{"past the working hours", monday(12, 15), "p0", false, []string{calendar.WarnOutsideWorkingHours}},
			{"another professional off the slot grid", monday(11, 15), "p1", false, []string{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				pro := res.IDs.Professionals["p0"]
				from, _ := calendar.ParseWallTime("2026-11-30T11:00:00")
				to, _ := calendar.ParseWallTime("2026-11-30T12:00:00")
				b, err := calendar.Book(ctx, store, acct, calendar.BookRequest{
					Client: calendar.ClientInput{Phone: "+34611000001", FirstName: "Eva"}, ServiceID: &svc, ProfessionalID: &pro, EventTypeID: &et,
					StartAt: from, EndAt: to, Timezone: "Europe/Madrid"}, now)
				if err != nil {
					t.Fatal(err)
				}
				id := b.Appointment.ID
				defer calendar.CancelAppointment(ctx, store, acct, id, calendar.Change{By: calendar.ByStaff}, now)
				req := calendar.MoveRequest{AppointmentID: id, Start: tc.start, ProfessionalID: res.IDs.Professionals[tc.pro],
					Change: calendar.Change{By: calendar.ByStaff}}
				moved, err := calendar.MoveAppointment(ctx, store, acct, req, now)
				var refused *calendar.MoveRefused
				switch {
				case tc.free && err != nil:
					t.Fatalf("a free move refused: %v", err)
				case tc.free && len(moved.Warnings) != 0:
					t.Fatalf("a free move warns %v", codes(moved.Warnings))
				case !tc.free && !errors.As(err, &refused):
					t.Fatalf("err = %v, want a refusal", err)
				case !tc.free && !slices.Equal(codes(refused.Warnings), tc.want):
					t.Fatalf("refusal warnings %v, want %v", codes(refused.Warnings), tc.want)
				}
				a, _ := calendar.GetAppointment(ctx, store, acct, id)
				if got := a.StartAt.Equal(tc.start); got != tc.free || a.EndAt.Sub(a.StartAt) != time.Hour {
					t.Fatalf("appointment at %v-%v, moved %v, want moved %v", a.StartAt, a.EndAt, got, tc.free)
				}
			})
		}
	})
}
