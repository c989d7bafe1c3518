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
	"github.com/frontdesk/frontdesk/internal/errs"
)

// TestAppointmentStatusFlow: booked → arrived → completed, booked or
// arrived → no_show, each undone back on its day and not after; every
// other move refused; another account's appointment is not found.
func TestAppointmentStatusFlow(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "outcome", 1)
		other, ores := clinic(t, store, "outcome2", 1)
		mon := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, madrid) }
		insertAppointments(t, store, acct, res, []appt{{pro: "p0", start: mon(9, 0), minutes: 30}, {pro: "p0", start: mon(12, 0), minutes: 30},
			{pro: "p0", start: mon(9, 30), minutes: 30, status: "cancelled"}, {pro: "p0", start: mon(10, 0), minutes: 30},
			{pro: "p0", start: mon(9, 0).AddDate(0, 0, 1), minutes: 30}})
		insertAppointments(t, store, other, ores, []appt{{pro: "p0", start: mon(9, 0), minutes: 30}})
		ids := map[string]int64{}
		rows, _ := store.Query(context.Background(), `SELECT id, account_id, start_at FROM appointments WHERE account_id IN (?, ?)`, acct.ID, other.ID)
		for rows.Next() {
			var id, a, start int64
			rows.Scan(&id, &a, &start)
			ids[fmt.Sprintf("%d/%s", a, db.Time(start).In(madrid).Format("Mon 15:04"))] = id
		}
		rows.Close()
		code := func(err error) string {
			var e *errs.Error
			if errors.As(err, &e) {
				return e.Code
			}
			return fmt.Sprint(err)
		}
		for _, tc := range []struct {
			name, key, action string // action: a status, or undo
			now               time.Time
			err               error  // a refusal named by the area; else code
			code              string // "<nil>": done
			status            string // the status after
		}{
			{"unknown status", "a/Mon 09:00", "missed", mon(10, 0), nil, errs.ValidationError, "booked"},
			{"nothing to undo", "a/Mon 09:00", "undo", mon(10, 0), nil, errs.ValidationError, "booked"},
			{"cancelled is not in the flow", "a/Mon 09:30", calendar.StatusArrived, mon(9, 0), nil, errs.ValidationError, "cancelled"},
			{"undo a cancel", "a/Mon 09:30", "undo", mon(9, 0), nil, errs.ValidationError, "cancelled"},
			{"another account's", "o/Mon 09:00", calendar.StatusArrived, mon(8, 50), nil, errs.NotFound, "booked"},
			{"another account's undo", "o/Mon 09:00", "undo", mon(8, 50), nil, errs.NotFound, "booked"},
			{"arrival another day", "a/Tue 09:00", calendar.StatusArrived, mon(8, 50), calendar.ErrNotToday, "", "booked"},
			{"no-show before the start", "a/Mon 12:00", calendar.StatusNoShow, mon(10, 0), calendar.ErrNotStarted, "", "booked"},
			{"completed before the start", "a/Mon 12:00", calendar.StatusCompleted, mon(10, 0), calendar.ErrNotStarted, "", "booked"},
			{"arrived early", "a/Mon 12:00", calendar.StatusArrived, mon(11, 40), nil, "<nil>", "arrived"},
			{"arrived twice", "a/Mon 12:00", calendar.StatusArrived, mon(11, 41), nil, errs.ValidationError, "arrived"},
			{"completed early once arrived", "a/Mon 12:00", calendar.StatusCompleted, mon(11, 50), nil, "<nil>", "completed"},
			{"completed to no-show", "a/Mon 12:00", calendar.StatusNoShow, mon(12, 10), nil, errs.ValidationError, "completed"},
			{"undo completed", "a/Mon 12:00", "undo", mon(23, 59), nil, "<nil>", "arrived"},
			{"arrived to no-show", "a/Mon 12:00", calendar.StatusNoShow, mon(23, 59), nil, "<nil>", "no_show"},
			{"undo no-show", "a/Mon 12:00", "undo", mon(23, 59), nil, "<nil>", "arrived"},
			{"undo arrived", "a/Mon 12:00", "undo", mon(23, 59), nil, "<nil>", "booked"},
			{"no undo past booked", "a/Mon 12:00", "undo", mon(23, 59), nil, errs.ValidationError, "booked"},
			{"booked to no-show", "a/Mon 09:00", calendar.StatusNoShow, mon(10, 0), nil, "<nil>", "no_show"},
			{"no-show to completed", "a/Mon 09:00", calendar.StatusCompleted, mon(10, 0), nil, errs.ValidationError, "no_show"},
			{"undo the next day", "a/Mon 09:00", "undo", mon(24, 0), calendar.ErrUndoTooLate, "", "no_show"},
			{"booked to completed", "a/Mon 10:00", calendar.StatusCompleted, mon(10, 0), nil, "<nil>", "completed"},
			{"undo to booked", "a/Mon 10:00", "undo", mon(10, 5), nil, "<nil>", "booked"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				k := map[byte]int64{'a': acct.ID, 'o': other.ID}[tc.key[0]]
				id := ids[fmt.Sprintf("%d%s", k, tc.key[1:])]
				var err error
				if tc.action == "undo" {
					_, err = calendar.UndoAppointmentStatus(context.Background(), store, acct, id, tc.now)
				} else {
					_, err = calendar.MarkAppointmentStatus(context.Background(), store, acct, id, tc.action, tc.now)
				}
				if tc.err != nil && err != tc.err {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				if got := code(err); tc.err == nil && got != tc.code {
					t.Fatalf("err = %v, want %s", err, tc.code)
				}
				var status string
				store.QueryRow(context.Background(), `SELECT status FROM appointments WHERE id = ?`, id).Scan(&status)
				if status != tc.status {
					t.Fatalf("status = %s, want %s", status, tc.status)
				}
			})
		}
		var arrivedAt *int64
		store.QueryRow(context.Background(), `SELECT arrived_at FROM appointments WHERE id = ?`, ids[fmt.Sprintf("%d/Mon 12:00", acct.ID)]).Scan(&arrivedAt)
		if arrivedAt != nil {
			t.Fatalf("arrived_at kept after undoing the arrival: %v", *arrivedAt)
		}
		// An arrived patient's appointment keeps its time: no slot is offered over it.
		id := ids[fmt.Sprintf("%d/Mon 12:00", acct.ID)]
		if _, err := calendar.MarkAppointmentStatus(context.Background(), store, acct, id, calendar.StatusArrived, mon(8, 0)); err != nil {
			t.Fatal(err)
		}
		slots, err := calendar.ListFreeSlots(context.Background(), store, acct, calendar.SlotsQuery{ServiceID: res.IDs.Services["s30"],
			StartDate: "2026-11-30", Days: 1, Limit: calendar.SlotLimitMax}, mon(8, 0))
		if err != nil {
			t.Fatal(err)
		}
		free := map[string]bool{}
		for _, sl := range slots.Slots {
			free[sl.StartAtUTC.In(madrid).Format("15:04")] = true
		}
		if free["12:00"] || !free["11:30"] {
			t.Fatalf("free slots around the arrived appointment: 12:00 %v, 11:30 %v", free["12:00"], free["11:30"])
		}
	})
}

// TestClientAttendanceCounts: no-shows, and cancels later than the
// service's cut-off (24 hours when it sets none).
func TestClientAttendanceCounts(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "attendance", 1)
		day := func(d int) time.Time { return time.Date(2026, 11, d, 10, 0, 0, 0, madrid) }
		insertAppointments(t, store, acct, res, []appt{{pro: "p0", start: day(2), minutes: 30, status: "no_show"},
			{pro: "p0", start: day(3), minutes: 30, status: "cancelled"}, {pro: "p0", start: day(4), minutes: 30, status: "cancelled"},
			{pro: "p0", start: day(5), minutes: 30, status: "completed"}})
		// Cancelled 3 hours before the 3rd, 30 hours before the 4th.
		store.Exec(context.Background(), `UPDATE appointments SET updated_at = start_at - ? WHERE account_id = ? AND start_at = ?`, int64(3*time.Hour/time.Microsecond), acct.ID, db.Micros(day(3)))
		store.Exec(context.Background(), `UPDATE appointments SET updated_at = start_at - ? WHERE account_id = ? AND start_at = ?`, int64(30*time.Hour/time.Microsecond), acct.ID, db.Micros(day(4)))
		for _, tc := range []struct {
			name, rules string
			want        calendar.Attendance
		}{
			{"24 hours by default", `{}`, calendar.Attendance{NoShows: 1, LateCancels: 1}},
			{"the service's cut-off", `{"cancel_cutoff": "2d"}`, calendar.Attendance{NoShows: 1, LateCancels: 2}},
			{"a short cut-off", `{"cancel_cutoff": "2h"}`, calendar.Attendance{NoShows: 1, LateCancels: 0}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				store.Exec(context.Background(), `UPDATE services SET booking_rules = ? WHERE id = ?`, tc.rules, res.IDs.Services["s30"])
				got, err := calendar.ClientAttendance(context.Background(), store, acct, res.IDs.Clients["c"])
				if err != nil || got != tc.want {
					t.Fatalf("attendance = %+v, %v; want %+v", got, err, tc.want)
				}
			})
		}
		other, _ := clinic(t, store, "attendance2", 1)
		if got, _ := calendar.ClientAttendance(context.Background(), store, other, res.IDs.Clients["c"]); got != (calendar.Attendance{}) {
			t.Fatalf("another account sees %+v", got)
		}
	})
}
