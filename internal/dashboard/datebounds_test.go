package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestGridDateBounds: Today and the calendar show days from 0001-01-01 to
// 9999-12-31 only (calendar.ParseDate, calendar.DaysWithin): the last week
// is cut at 9999-12-31, there is no link past either end, and a date
// outside is refused in the user's language, never a 500.
func TestGridDateBounds(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")
		eva := h.signedIn("eva@acme.test", "eva-password")
		for _, test := range []struct {
			path       string
			status     int
			has, hasNo []string
		}{
			{"/app/today?date=9999-12-31", 200, []string{"Previous day", "Friday, 31 December 9999"}, []string{"Next day", "10000"}},
			{"/app/today?date=9999-12-31&view=week", 200, []string{"Previous week"}, []string{"Next week", "10000"}},
			{"/app/today?date=0001-01-01", 200, []string{"Next day"}, []string{"Previous day"}},
			{"/app/today?date=0001-01-03&view=week", 200, []string{"Next week"}, []string{"Previous week"}},
			{"/app/today?date=0000-12-31", 400, []string{"The date must be a day from 0001-01-01 to 9999-12-31 (YYYY-MM-DD)."}, nil},
			{"/app/today?date=0000-12-31&view=week", 400, []string{"The date must be a day from 0001-01-01 to 9999-12-31"}, nil},
			{"/app/today?date=2026-02-30", 400, []string{"The date must be a day from"}, nil},
			{"/app/calendar?date=9999-12-31", 200, []string{"← Previous"}, []string{"Next →", "10000"}},
			{"/app/calendar?date=9999-12-31&view=day", 200, []string{"← Previous"}, []string{"Next →", "10000"}},
			{"/app/calendar?date=0001-01-01&view=day", 200, []string{"Next →"}, []string{"← Previous"}},
		} {
			p := ana.get(test.path)
			if p.Status != test.status {
				t.Errorf("%s: status %d, want %d: %.300s", test.path, p.Status, test.status, p.Body)
				continue
			}
			for _, s := range test.has {
				if !strings.Contains(p.Body, s) {
					t.Errorf("%s: %q missing", test.path, s)
				}
			}
			for _, s := range test.hasNo {
				if strings.Contains(p.Body, s) {
					t.Errorf("%s: %q shown", test.path, s)
				}
			}
		}
		// The week grid of 9999's last week has its five days.
		p := ana.get("/app/today?date=9999-12-31&view=week").must(t, 200)
		if !strings.Contains(p.Body, "27 Dec 9999") {
			t.Errorf("last week does not start on Monday, 27 December 9999: %.2000s", p.Body)
		}
		// Spanish.
		p = eva.get("/app/today?date=0000-12-31")
		if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "La fecha debe ser un día de 0001-01-01 a 9999-12-31 (AAAA-MM-DD).") {
			t.Errorf("Spanish refusal: %d %.600s", p.Status, p.Body)
		}
	})
}
