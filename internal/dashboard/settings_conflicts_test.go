package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// bookFor books the cleaning service of professional pro at Madrid wall
// time wall for a client with phone, through calendar.Book.
func bookFor(t *testing.T, store *db.DB, slug string, svc, pro, et int64, wall, phone string, now time.Time) int64 {
	t.Helper()
	acct, err := account.BySlug(context.Background(), store, slug)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := calendar.ParseWallTime(wall)
	start, _ := time.ParseInLocation("2006-01-02T15:04:05", wall, acct.Location())
	to, _ := calendar.ParseWallTime(start.Add(30 * time.Minute).Format("2006-01-02T15:04:05"))
	b, err := calendar.Book(context.Background(), store, acct, calendar.BookRequest{Client: calendar.ClientInput{Phone: phone, FirstName: "Rosa"},
		ServiceID: &svc, ProfessionalID: &pro, EventTypeID: &et, StartAt: from, EndAt: to, Timezone: "Europe/Madrid"}, now)
	if err != nil {
		t.Fatal(err)
	}
	return b.Appointment.ID
}

// TestScheduleConflictsPage: time off over a booked patient is saved and
// the page after it lists the appointment with a link to move it and one
// to the patient, in a warning flash and a panel that stays while the
// conflict does; a change that touches no appointment lists nothing; hours
// cut short list what they leave out; another account's appointments never
// show.
func TestScheduleConflictsPage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a, o := h.acme(), h.other()
		lopez := a.Professionals["lopez"]
		mine := bookFor(t, store, "acme", a.Services["cleaning"], lopez, a.EventTypes["visit"], "2026-11-30T10:00:00", "+34611222333", h.clock.Now())
		theirs := bookFor(t, store, "other", o.Services["cleaning"], o.Professionals["jones"], o.EventTypes["visit"], "2026-11-30T10:00:00", "+34611222444", h.clock.Now())
		var client int64
		store.QueryRow(t.Context(), `SELECT client_id FROM appointments WHERE id = ?`, mine).Scan(&client)
		u := h.signedIn("ana@acme.test", "ana-password")
		path := "/app/settings/professionals/" + itoa(lopez)
		const heading = "These appointments are now outside the schedule"
		listed := []string{heading, "/app/appointments/" + itoa(mine) + "/reschedule", "/app/conversations/patient/" + itoa(client)}
		for _, tc := range []struct {
			name      string
			action    string
			form      url.Values
			show      []string // on the page after saving
			conflicts bool
		}{
			{"a day off with nothing booked", "/time-off", url.Values{"day": {"2026-12-01"}}, []string{"Time off added."}, false},
			{"time off over a booked patient", "/time-off", url.Values{"day": {"2026-11-30"}},
				append([]string{"Time off added.", "Appointments now outside the schedule: 1.", "During time off"}, listed...), true},
			{"the time off removed", "/time-off/remove", url.Values{"from": {"2026-11-29T23:00:00Z"}, "to": {"2026-11-30T23:00:00Z"}},
				[]string{"Time off removed."}, false},
			{"hours that still cover it", "/hours", url.Values{"hours_mon": {"09:30-13:00"}}, []string{"Saved."}, false},
			{"hours cut short", "/hours", url.Values{"hours_mon": {"15:00-19:00"}},
				append([]string{"Saved.", "Appointments now outside the schedule: 1.", "Outside working hours"}, listed...), true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := u.follow(u.post(path+tc.action, tc.form)).must(t, http.StatusOK).contains(t, tc.show...)
				if strings.Contains(p.Body, heading) != tc.conflicts {
					t.Fatalf("conflicts listed: %v, want %v", !tc.conflicts, tc.conflicts)
				}
				// The list stays on the page while the conflict does.
				p = u.get(path).must(t, http.StatusOK)
				if strings.Contains(p.Body, heading) != tc.conflicts || strings.Contains(p.Body, "/app/appointments/"+itoa(theirs)+"/") {
					t.Fatalf("the page later: conflicts listed %v, want %v (or another account's shows)", !tc.conflicts, tc.conflicts)
				}
			})
		}
		// In Spanish.
		h.signedIn("eva@acme.test", "eva-password").get(path).must(t, http.StatusOK).contains(t, "Estas citas quedan ahora fuera del horario", "Fuera del horario de trabajo")
	})
}
