package calendar_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// TestScheduleConflicts: each schedule change, saved in turn, leaves the
// conflicts named: time off over a booked patient lists it, a change that
// touches no appointment lists nothing, hours cut short list what they no
// longer cover; cancelled and past appointments never count, and another
// account's appointments never show.
func TestScheduleConflicts(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "conflicts", 1)
		other, otherRes := clinic(t, store, "conflicts-other", 1)
		now := time.Date(2026, 11, 28, 12, 0, 0, 0, madrid) // Saturday
		insertAppointments(t, store, acct, res, []appt{
			{pro: "p0", start: monday(10, 0), minutes: 30},
			{pro: "p0", start: monday(16, 0), minutes: 30},
			{pro: "p0", start: monday(11, 0), minutes: 30, status: "cancelled"},
			{pro: "p0", start: now.Add(-26 * time.Hour), minutes: 30}, // Friday, past
		})
		insertAppointments(t, store, other, otherRes, []appt{{pro: "p0", start: monday(10, 0), minutes: 30}})
		pro, otherPro := res.IDs.Professionals["p0"], otherRes.IDs.Professionals["p0"]
		ids := map[int64]int64{} // start (Unix seconds) → id
		all, _ := calendar.ListAppointments(ctx, store, acct, calendar.AppointmentFilter{From: now.Add(-48 * time.Hour), To: now.Add(72 * time.Hour)})
		for _, a := range all {
			if a.Status == "booked" {
				ids[a.StartAt.Unix()] = a.ID
			}
		}
		week := []string{"09:00-13:00", "15:00-19:00"}
		type want struct {
			id                    int64
			outsideHours, timeOff bool
		}
		for _, tc := range []struct {
			name   string
			change func() error
			want   []want
		}{
			{"as booked", func() error { return nil }, nil},
			{"time off on a free day", func() error {
				return calendar.AddTimeOff(ctx, store, acct, pro, time.Date(2026, 12, 1, 0, 0, 0, 0, madrid), time.Date(2026, 12, 2, 0, 0, 0, 0, madrid))
			}, nil},
			{"time off over a booked patient and a cancelled one", func() error {
				return calendar.AddTimeOff(ctx, store, acct, pro, monday(9, 30), monday(11, 30))
			}, []want{{ids[monday(10, 0).Unix()], false, true}}},
			{"hours that still cover the rest", func() error {
				_, err := calendar.SetWorkingHours(ctx, store, acct, pro, map[string][]string{"mon": {"09:00-13:00", "15:00-18:00"}, "tue": week})
				return err
			}, []want{{ids[monday(10, 0).Unix()], false, true}}},
			{"hours cut short", func() error {
				_, err := calendar.SetWorkingHours(ctx, store, acct, pro, map[string][]string{"mon": {"10:00-13:00", "15:00-16:15"}})
				return err
			}, []want{{ids[monday(10, 0).Unix()], false, true}, {ids[monday(16, 0).Unix()], true, false}}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if err := tc.change(); err != nil {
					t.Fatal(err)
				}
				got, more, err := calendar.ScheduleConflicts(ctx, store, acct, pro, now)
				if err != nil || more {
					t.Fatalf("conflicts: %v (more %v)", err, more)
				}
				var seen []want
				for _, c := range got {
					seen = append(seen, want{c.Appointment.ID, c.OutsideHours, c.TimeOff})
				}
				if !slices.Equal(seen, tc.want) {
					t.Fatalf("conflicts %+v, want %+v", seen, tc.want)
				}
			})
		}
		// The other account's professional is not this account's to ask
		// about, and its own list holds its own appointment only.
		if _, _, err := calendar.ScheduleConflicts(ctx, store, acct, otherPro, now); !errs.Is(err, errs.NotFound) {
			t.Fatalf("another account's professional: %v", err)
		}
		if err := calendar.AddTimeOff(ctx, store, other, otherPro, monday(0, 0), monday(23, 0)); err != nil {
			t.Fatal(err)
		}
		got, _, err := calendar.ScheduleConflicts(ctx, store, other, otherPro, now)
		if err != nil || len(got) != 1 || got[0].Appointment.ID == ids[monday(10, 0).Unix()] {
			t.Fatalf("the other account's conflicts: %+v, %v", got, err)
		}
	})
}
