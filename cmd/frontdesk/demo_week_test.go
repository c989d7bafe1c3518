package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// demoWeekOf starts `serve --demo` on a fresh database of engine e with
// the clock at now, stops it, and returns the store and the demo account.
func demoWeekOf(t *testing.T, e db.Engine, now time.Time) (*db.DB, account.Account) {
	t.Helper()
	dsn := dbtest.DSN(t, e)
	env := &Env{Getenv: func(string) string { return "" }, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Clock: clock.NewFake(now)}
	_, stop := serveInProcess(t, env, "--demo", "--db", dsn, "--worker=false")
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	store, err := db.Open(context.Background(), dsn, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	acct, err := account.BySlug(context.Background(), store, workspace.DemoSlug)
	if err != nil {
		t.Fatal(err)
	}
	return store, acct
}

// TestDemoWeek: the first `serve --demo` fills the demo clinic's week
// around the clock's today: today holds appointments in several states,
// with an arrival and a no-show behind now; the week's visits to come are
// confirmed, pending and declined; a seat is held for a waiting patient; a
// patient's message waits unread. The same clock gives the same week.
func TestDemoWeek(t *testing.T) {
	madrid, _ := time.LoadLocation("Europe/Madrid")
	for _, now := range []time.Time{
		time.Date(2026, 11, 25, 12, 40, 0, 0, madrid), // a Wednesday at lunchtime
		time.Date(2027, 3, 1, 9, 5, 0, 0, madrid),     // a Monday morning: the week ahead
	} {
		for _, e := range []db.Engine{db.SQLite, db.Postgres} {
			t.Run(fmt.Sprintf("%s/%s", e, now.Format("Mon 15:04")), func(t *testing.T) {
				ctx := context.Background()
				store, acct := demoWeekOf(t, e, now)
				day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, madrid)
				today, err := calendar.ListAppointments(ctx, store, acct, calendar.AppointmentFilter{From: day, To: day.AddDate(0, 0, 1)})
				if err != nil {
					t.Fatal(err)
				}
				states, pastStates := map[string]bool{}, map[string]bool{}
				for _, a := range today {
					states[a.Status] = true
					if a.StartAt.Before(now) {
						pastStates[a.Status] = true
					}
				}
				for _, s := range []string{calendar.StatusBooked, calendar.StatusCompleted} {
					if !states[s] {
						t.Errorf("no %s appointment today (%v)", s, states)
					}
				}
				for _, s := range []string{calendar.StatusArrived, calendar.StatusNoShow} {
					if !pastStates[s] {
						t.Errorf("no %s appointment before now (%v)", s, pastStates)
					}
				}
				monday := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
				week, err := calendar.ListAppointments(ctx, store, acct, calendar.AppointmentFilter{From: monday, To: monday.AddDate(0, 0, 7)})
				if err != nil {
					t.Fatal(err)
				}
				confirmations := map[string]bool{}
				for _, a := range week {
					if a.Status == calendar.StatusBooked {
						confirmations[a.ConfirmationStatus] = true
					}
				}
				for _, c := range calendar.ConfirmationStatuses {
					if !confirmations[c] {
						t.Errorf("no booked appointment %s this week (%v)", c, confirmations)
					}
				}
				var held, unread int
				store.QueryRow(ctx, `SELECT COUNT(*) FROM waitlist_entries WHERE account_id = ? AND status = 'queued' AND seat_expires_at > ?`,
					acct.ID, db.Micros(now)).Scan(&held)
				store.QueryRow(ctx, `SELECT COUNT(*) FROM conversations cv WHERE cv.account_id = ? AND cv.status = 'new' AND cv.read_at IS NULL
					AND EXISTS (SELECT 1 FROM messages m WHERE m.account_id = cv.account_id AND m.conversation_id = cv.id AND m.sender_kind = 'client' AND m.sent_at > ?)`,
					acct.ID, db.Micros(now.Add(-time.Hour))).Scan(&unread)
				if held == 0 || unread != 1 {
					t.Errorf("%d held seat offers, %d unread conversations of the last hour", held, unread)
				}
				// Deterministic: a second first start at the same clock books
				// the same week.
				again, acct2 := demoWeekOf(t, e, now)
				week2, err := calendar.ListAppointments(ctx, again, acct2, calendar.AppointmentFilter{From: monday, To: monday.AddDate(0, 0, 7)})
				if err != nil {
					t.Fatal(err)
				}
				line := func(a calendar.AppointmentView) string {
					return fmt.Sprint(a.StartAt.UTC(), a.ProfessionalName, a.ClientName, a.Status, a.ConfirmationStatus)
				}
				if !slices.Equal(mapLines(week, line), mapLines(week2, line)) {
					t.Error("two demo starts at one clock booked different weeks")
				}
			})
		}
	}
}

func mapLines(as []calendar.AppointmentView, line func(calendar.AppointmentView) string) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = line(a)
	}
	return out
}
