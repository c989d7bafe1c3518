package calendar_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestSchedules: working hours less time off, per active professional,
// clipped to the window.
func TestSchedules(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "sched", 2)
		mon := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, madrid) }
		off := fmt.Sprintf(`[{"from": %q, "to": %q}]`, mon(10, 0).Format(time.RFC3339), mon(11, 30).Format(time.RFC3339))
		if _, err := store.Exec(context.Background(), `UPDATE professionals SET time_off = ? WHERE id = ?`, off, res.IDs.Professionals["p1"]); err != nil {
			t.Fatal(err)
		}
		got, err := calendar.Schedules(context.Background(), store, acct, mon(0, 0), mon(24, 0))
		if err != nil {
			t.Fatal(err)
		}
		show := func(rs []calendar.TimeRange) string {
			s := ""
			for _, r := range rs {
				s += r.Start.In(madrid).Format("15:04") + "-" + r.End.In(madrid).Format("15:04") + " "
			}
			return s
		}
		if len(got) != 2 || got[0].Name != "Professional 0" || show(got[0].Work) != "09:00-13:00 15:00-19:00 " || len(got[0].Off) != 0 ||
			show(got[1].Work) != "09:00-10:00 11:30-13:00 15:00-19:00 " || show(got[1].Off) != "10:00-11:30 " {
			t.Fatalf("schedules: %+v", got)
		}
	})
}

// TestBookFreeSlotOnly: a booking that asks for a free slot is refused when
// the slot engine does not count it free; the API's booking (without the
// flag) books it and warns.
func TestBookFreeSlotOnly(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "freeonly", 1)
		mon := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, madrid) }
		insertAppointments(t, store, acct, res, []appt{{pro: "p0", start: mon(10, 0), minutes: 30}})
		now := mon(9, 10)
		svc, pro, et := res.IDs.Services["s30"], res.IDs.Professionals["p0"], res.IDs.EventTypes["visit"]
		book := func(h, m int, free bool) error {
			start, _ := calendar.ParseWallTime(mon(h, m).Format("2006-01-02T15:04:05"))
			end, _ := calendar.ParseWallTime(mon(h, m).Add(30 * time.Minute).Format("2006-01-02T15:04:05"))
			_, err := calendar.Book(context.Background(), store, acct, calendar.BookRequest{
				Client: calendar.ClientInput{Phone: "+34611000001", FirstName: "Eva"}, ServiceID: &svc, ProfessionalID: &pro, EventTypeID: &et,
				StartAt: start, EndAt: end, Timezone: "Europe/Madrid", Source: "dashboard", FreeSlotOnly: free}, now)
			return err
		}
		for _, tc := range []struct {
			name string
			h, m int
			free bool
			want error
		}{
			{"started", 9, 0, true, calendar.ErrSlotPast},
			{"overlaps", 10, 15, true, calendar.ErrSlotTaken},
			{"outside hours", 13, 0, true, calendar.ErrSlotTaken},
			{"free", 11, 0, true, nil},
			{"taken now", 11, 0, true, calendar.ErrSlotTaken},
			{"the API books it anyway", 11, 0, false, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if err := book(tc.h, tc.m, tc.free); !errors.Is(err, tc.want) && err != tc.want {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
			})
		}
		var n int
		store.QueryRow(context.Background(), `SELECT COUNT(*) FROM appointments WHERE account_id = ? AND source = 'dashboard'`, acct.ID).Scan(&n)
		if n != 2 {
			t.Fatalf("dashboard appointments = %d, want 2", n)
		}
	})
}
