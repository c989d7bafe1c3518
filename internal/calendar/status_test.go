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

// TestMarkAppointmentStatus: the rules of an appointment's outcome.
func TestMarkAppointmentStatus(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := clinic(t, store, "outcome", 1)
		other, ores := clinic(t, store, "outcome2", 1)
		mon := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, madrid) }
		insertAppointments(t, store, acct, res, []appt{{pro: "p0", start: mon(9, 0), minutes: 30}, {pro: "p0", start: mon(12, 0), minutes: 30},
			{pro: "p0", start: mon(9, 30), minutes: 30, status: "cancelled"}})
		insertAppointments(t, store, other, ores, []appt{{pro: "p0", start: mon(9, 0), minutes: 30}})
		ids := map[string]int64{}
		rows, _ := store.Query(context.Background(), `SELECT id, account_id, start_at FROM appointments WHERE account_id IN (?, ?)`, acct.ID, other.ID)
		for rows.Next() {
			var id, a, start int64
			rows.Scan(&id, &a, &start)
			ids[fmt.Sprintf("%d/%s", a, db.Time(start).In(madrid).Format("15:04"))] = id
		}
		rows.Close()
		now := mon(10, 0)
		code := func(err error) string {
			var e *errs.Error
			if errors.As(err, &e) {
				return e.Code
			}
			return fmt.Sprint(err)
		}
		for _, tc := range []struct {
			name, key, status, code string
		}{
			{"unknown status", "a/09:00", "missed", errs.ValidationError},
			{"not started", "a/12:00", calendar.StatusNoShow, errs.ValidationError},
			{"cancelled", "a/09:30", calendar.StatusCompleted, errs.ValidationError},
			{"another account's", "o/09:00", calendar.StatusNoShow, errs.NotFound},
			{"no-show", "a/09:00", calendar.StatusNoShow, "<nil>"},
			{"only once", "a/09:00", calendar.StatusCompleted, errs.ValidationError},
		} {
			t.Run(tc.name, func(t *testing.T) {
				k := map[byte]int64{'a': acct.ID, 'o': other.ID}[tc.key[0]]
				_, err := calendar.MarkAppointmentStatus(context.Background(), store, acct, ids[fmt.Sprintf("%d%s", k, tc.key[1:])], tc.status, now)
				if got := code(err); got != tc.code {
					t.Fatalf("err = %v, want %s", err, tc.code)
				}
			})
		}
		var status string
		store.QueryRow(context.Background(), `SELECT status FROM appointments WHERE id = ?`, ids[fmt.Sprintf("%d/09:00", acct.ID)]).Scan(&status)
		if status != calendar.StatusNoShow {
			t.Fatalf("status = %s", status)
		}
	})
}
