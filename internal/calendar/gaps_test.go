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

// TestFreeGaps: every professional's free intervals with the starts of each
// service they offer that fits (the free-slot list's starts); a gap where no
// service fits is left out; the professional filter; never before now.
func TestFreeGaps(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "gaps", 2) // p0: s30, s45; p1: s30, s60
		mon := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, madrid) }
		insertAppointments(t, store, acct, res, []appt{
			{pro: "p0", start: mon(9, 20), minutes: 40}, // 09:00-09:20 holds no service
			{pro: "p1", start: mon(8, 0), minutes: 150}, // until 10:30
			{pro: "p1", start: mon(11, 0), minutes: 600, status: "cancelled"},
		})
		show := func(gaps []calendar.FreeGap) string {
			var lines []string
			for _, g := range gaps {
				s := fmt.Sprintf("%s %s-%s:", g.ProfessionalName, g.Start.In(madrid).Format("15:04"), g.End.In(madrid).Format("15:04"))
				for _, f := range g.Fits {
					s += " " + f.ServiceName + "["
					for i, at := range f.Starts {
						if i > 0 {
							s += " "
						}
						s += at.In(madrid).Format("15:04")
					}
					s += "]"
				}
				lines = append(lines, s)
			}
			return strings.Join(lines, "\n")
		}
		for _, tc := range []struct {
			name string
			pro  string
			now  time.Time
			want string
		}{
			{"everyone", "", mon(8, 0), "Professional 0 10:00-13:00: Short[10:00 10:30 11:00 11:30 12:00 12:30] Medium[10:00 10:45 11:30 12:15]\n" +
				"Professional 1 10:30-13:00: Short[10:30 11:00 11:30 12:00 12:30] Long[10:30 11:30]"},
			{"one professional", "p1", mon(8, 0), "Professional 1 10:30-13:00: Short[10:30 11:00 11:30 12:00 12:30] Long[10:30 11:30]"},
			{"from now, on a whole minute", "p0", mon(12, 5).Add(30 * time.Second), "Professional 0 12:06-13:00: Short[12:06] Medium[12:06]"},
			{"nothing fits any more", "p0", mon(12, 40), ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var pro int64
				if tc.pro != "" {
					pro = res.IDs.Professionals[tc.pro]
				}
				gaps, err := calendar.FreeGaps(context.Background(), store, acct, mon(9, 0), mon(13, 0), pro, tc.now)
				if err != nil {
					t.Fatal(err)
				}
				if got := show(gaps); got != tc.want {
					t.Errorf("gaps:\n%s\nwant\n%s", got, tc.want)
				}
			})
		}
		// The starts are the free-slot list's.
		slots, err := calendar.ListFreeSlots(context.Background(), store, acct, calendar.SlotsQuery{ServiceID: res.IDs.Services["s60"],
			StartDate: "2026-11-30", Days: 1, Limit: calendar.SlotLimitMax}, mon(8, 0))
		if err != nil {
			t.Fatal(err)
		}
		var morning []string
		for _, s := range slots.Slots {
			if s.StartAtUTC.Before(mon(13, 0)) {
				morning = append(morning, s.StartAtUTC.In(madrid).Format("15:04"))
			}
		}
		if fmt.Sprint(morning) != "[10:30 11:30]" {
			t.Errorf("free slots of Long: %v", morning)
		}
	})
}
