package manage_test

import (
	"testing"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/manage"
)

// TestManageLinkOfASession: the manage link of a course's session acts on
// that session only — confirm, cancel and move leave the other sessions
// as they were (docs/series.md).
func TestManageLinkOfASession(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		svc, pro, et := "Limpieza dental", "Dr. López", "In person"
		start, _ := calendar.ParseWallTime("2026-12-01T10:00:00")
		end, _ := calendar.ParseWallTime("2026-12-01T10:30:00")
		b, err := calendar.BookSeries(e.ctx, store, e.acct, calendar.BookRequest{Client: calendar.ClientInput{Phone: "+34611000009", FirstName: "Eva"},
			ServiceName: &svc, ProfessionalName: &pro, EventTypeName: &et, StartAt: start, EndAt: end, Timezone: "Europe/Madrid"},
			calendar.Recurrence{Frequency: "weekly", Interval: 1, Count: 4}, e.now)
		if err != nil {
			t.Fatal(err)
		}
		occ := b.Series.Occurrences
		if _, err := manage.Confirm(e.ctx, store, e.token(e.acct, occ[1].ID), e.now); err != nil {
			t.Fatal(err)
		}
		if _, err := manage.Cancel(e.ctx, store, e.token(e.acct, occ[2].ID), "", e.now); err != nil {
			t.Fatal(err)
		}
		for i, want := range [][2]string{{"booked", "pending"}, {"booked", "confirmed"}, {"cancelled", "pending"}, {"booked", "pending"}} {
			if status, conf := e.status(occ[i].ID); status != want[0] || conf != want[1] {
				t.Errorf("session %d: %s/%s, want %s/%s", i+1, status, conf, want[0], want[1])
			}
		}
	})
}
