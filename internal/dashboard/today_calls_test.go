package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestTodayCalls: the day's confirmation tally and the patients to call,
// and "confirmed by phone": the calendar's confirmation with by staff, its
// webhook event and an audit entry; refused, with the reason, for an
// appointment no longer booked; another account's id is not found.
func TestTodayCalls(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store) // now: Mon 23 Nov 10:00 in Madrid
		a := h.acme()
		pro, svc, visit, maria, pedro := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"], a.Clients["maria"], a.Clients["pedro"]
		yes := h.addAppointment("acme", maria, svc, pro, visit, at("2026-11-23", "09:00"), "confirmed")
		pending := h.addAppointment("acme", pedro, svc, pro, visit, at("2026-11-23", "11:00"), "pending")
		declined := h.addAppointment("acme", maria, svc, pro, visit, at("2026-11-23", "12:00"), "declined")
		late := h.addAppointment("acme", pedro, svc, pro, visit, at("2026-11-23", "16:00"), "pending")
		gone := h.addAppointment("acme", maria, svc, pro, visit, at("2026-11-23", "17:00"), "pending")
		store.Exec(t.Context(), `UPDATE appointments SET status = 'cancelled' WHERE id = ?`, gone)
		store.Exec(t.Context(), `UPDATE webhooks SET events = '[]'`)
		u := h.signedIn("ana@acme.test", "ana-password")

		p := u.get("/app/today").must(t, http.StatusOK).contains(t, "✓ 1 confirmed", "? 2 pending", "✗ 1 declined", "To call")
		for _, id := range []int64{pending, declined, late} {
			p.contains(t, `id="call-`+itoa(id)+`"`)
		}
		for _, id := range []int64{yes, gone} {
			if strings.Contains(p.Body, `id="call-`+itoa(id)+`"`) {
				t.Errorf("appointment %d in the list to call", id)
			}
		}
		call := p.Body[strings.Index(p.Body, `id="call-`+itoa(pending)+`"`):]
		call = call[:strings.Index(call, "</li>")]
		for _, s := range []string{`href="/app/clients/` + itoa(pedro) + `"`, `href="tel:&#43;34600333444"`, `/app/appointments/` + itoa(pending) + `/confirm"`, "Confirmed by phone"} {
			if !strings.Contains(call, s) {
				t.Errorf("the call lacks %q: %s", s, call)
			}
		}
		if strings.Contains(p.item("appt-"+itoa(yes)), "/confirm\"") {
			t.Error("a confirmed appointment offers confirmed by phone")
		}

		events := func() int { return h.count("outbox", "source_type = 'event:appointment.confirmation_changed'") }
		audits := func() int { return h.count("audit_log", "object_type = 'appointment'") }
		for _, tc := range []struct {
			name     string
			id       int64
			flash    string
			previous string // "" when nothing changes
		}{
			{"pending", pending, "Confirmed by phone: the appointment of Pedro Sánchez on Mon 23 Nov, 11:00.", "pending"},
			{"again", pending, "The appointment of Pedro Sánchez on Mon 23 Nov, 11:00 was confirmed already.", ""},
			{"declined", declined, "Confirmed by phone: the appointment of María García on Mon 23 Nov, 12:00.", "declined"},
			{"cancelled", gone, "This appointment is cancelled: it cannot be confirmed.", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e0, a0 := events(), audits()
				r := u.post("/app/appointments/"+itoa(tc.id)+"/confirm", nil)
				if !strings.HasPrefix(r.Location, "/app/today") {
					t.Fatalf("-> %d %q %.300s", r.Status, r.Location, r.Body)
				}
				u.follow(r).must(t, http.StatusOK).contains(t, tc.flash)
				if tc.previous == "" {
					if events() != e0 || audits() != a0 {
						t.Fatalf("nothing changed, yet %d events and %d audit entries", events()-e0, audits()-a0)
					}
					return
				}
				if n := h.count("appointments", "id = ? AND confirmation_status = 'confirmed'", tc.id); n != 1 {
					t.Fatal("not confirmed")
				}
				d := webhookData(t, store, "appointment.confirmation_changed", tc.id)
				if events()-e0 != 1 || d["by"] != "staff" || d["confirmation_status"] != "confirmed" || d["previous_confirmation_status"] != tc.previous ||
					d["appointment_id"] != float64(tc.id) {
					t.Fatalf("%d events, data %v", events()-e0, d)
				}
				if n := h.count("audit_log", "object_type = 'appointment' AND object_id = ? AND user_name = 'Ana Ruiz' AND summary = ?",
					itoa(tc.id), "confirmation: "+tc.previous+" → confirmed (by phone)"); audits()-a0 != 1 || n != 1 {
					t.Fatalf("audit entries: %d new, %d matching", audits()-a0, n)
				}
			})
		}
		u.get("/app/today").must(t, http.StatusOK).contains(t, "✓ 3 confirmed", "? 1 pending", "✗ 0 declined")
		// In Spanish, and never across accounts.
		eva := h.signedIn("eva@acme.test", "eva-password")
		misses, stop := dashboard.RecordMisses()
		eva.get("/app/today").must(t, http.StatusOK).contains(t, "Confirmaciones", "3 confirmadas", "Por llamar", "Confirmada por teléfono")
		eva.follow(eva.post("/app/appointments/"+itoa(gone)+"/confirm", nil)).contains(t, "Esta cita está «cancelada»: no se puede confirmar.")
		stop()
		if m := misses(); len(m) > 0 {
			t.Errorf("no Spanish for %v", m)
		}
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.post("/app/appointments/"+itoa(late)+"/confirm", nil).must(t, http.StatusNotFound)
		bob.post("/app/appointments/x/confirm", nil).must(t, http.StatusNotFound)
		if n := h.count("appointments", "id = ? AND confirmation_status = 'pending'", late); n != 1 {
			t.Error("another account confirmed the appointment")
		}
	})
}
