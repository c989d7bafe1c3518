package calendar_test

import (
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestClientAppointments: upcoming soonest first, then past newest first,
// every status; another account sees none of the client's.
func TestClientAppointments(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "mine", 2)
		other, _ := clinic(t, store, "theirs", 2)
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		insertAppointments(t, store, acct, res, []appt{
			{pro: "p0", start: now.Add(-72 * time.Hour), minutes: 30, status: "completed"},
			{pro: "p0", start: now.Add(48 * time.Hour), minutes: 30},
			{pro: "p1", start: now.Add(-24 * time.Hour), minutes: 30, status: "cancelled"},
			{pro: "p1", start: now.Add(24 * time.Hour), minutes: 30},
			// Under way: still upcoming until it ends.
			{pro: "p1", start: now.Add(-10 * time.Minute), minutes: 30},
		})
		client := res.IDs.Clients["c"]
		upcoming, past, err := calendar.ClientAppointments(t.Context(), store, acct, client, now)
		if err != nil {
			t.Fatal(err)
		}
		starts := func(list []calendar.AppointmentView) []time.Duration {
			var out []time.Duration
			for _, a := range list {
				out = append(out, a.StartAt.Sub(now))
			}
			return out
		}
		if got := starts(upcoming); len(got) != 3 || got[0] != -10*time.Minute || got[1] != 24*time.Hour || got[2] != 48*time.Hour {
			t.Fatalf("upcoming = %v", got)
		}
		if got := starts(past); len(got) != 2 || got[0] != -24*time.Hour || got[1] != -72*time.Hour || past[1].Status != "completed" {
			t.Fatalf("past = %v", got)
		}
		if upcoming[1].ServiceName == "" || upcoming[1].ProfessionalName != "Professional 1" {
			t.Fatalf("appointment view = %+v", upcoming[1])
		}
		up, pa, err := calendar.ClientAppointments(t.Context(), store, other, client, now)
		if err != nil || len(up)+len(pa) != 0 {
			t.Fatalf("another account sees %d, %d (%v)", len(up), len(pa), err)
		}
	})
}
