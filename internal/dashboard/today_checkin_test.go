package dashboard_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// lastStatusChange is the data of the newest appointment.status_changed
// delivery for appointment id.
func lastStatusChange(t *testing.T, store *db.DB, id int64) map[string]any {
	t.Helper()
	var body string
	if err := store.QueryRow(t.Context(), `SELECT body FROM outbox WHERE kind = 'webhook' AND source_type = 'event:appointment.status_changed'
		AND source_id = ? ORDER BY id DESC LIMIT 1`, id).Scan(&body); err != nil {
		t.Fatalf("no status_changed delivery for %d: %v", id, err)
	}
	var e struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatal(err)
	}
	return e.Data
}

// TestCheckIn: arrived, completed and no-show from the Today grid, each
// undone the same day and not the next; the buttons follow the state; every
// change is audited and sent as appointment.status_changed.
func TestCheckIn(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store) // now: Mon 23 Nov, 10:00 in Madrid
		a := h.acme()
		sara := h.signedIn("sara@acme.test", "sara-password")
		pro, svc, visit, maria := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"], a.Clients["maria"]
		later := h.addAppointment("acme", maria, svc, pro, visit, at("2026-11-23", "11:00"), "confirmed")
		started := h.addAppointment("acme", maria, svc, pro, visit, at("2026-11-23", "09:30"), "pending")
		tomorrow := h.addAppointment("acme", maria, svc, pro, visit, at("2026-11-24", "10:00"), "pending")
		store.Exec(t.Context(), `UPDATE webhooks SET events = '[]'`)
		buttons := func(id int64) string {
			item := sara.get("/app/today?date=2026-11-23").must(t, http.StatusOK).item("appt-" + itoa(id))
			var got []string
			for _, b := range []string{`value="arrived"`, `value="completed"`, `value="no_show"`, `/undo"`} {
				if strings.Contains(item, b) {
					got = append(got, strings.Trim(strings.TrimPrefix(b, "value="), `"/`))
				}
			}
			return strings.Join(got, ",")
		}
		for _, tc := range []struct {
			name, action string // action: a status, or undo
			id           int64
			flash        string
			status       string // the appointment's status after
			previous     string // the webhook's previous_status ("" when refused)
			buttons      string // the grid's buttons after
		}{
			{"before: arrival only", "", later, "", "booked", "", "arrived"},
			{"started: all three", "", started, "", "booked", "", "arrived,completed,no_show"},
			{"not started: no no-show", "no_show", later, "has not started yet", "booked", "", "arrived"},
			{"unknown status", "missed", later, "Choose arrived, no-show or completed.", "booked", "", "arrived"},
			{"nothing to undo", "undo", later, "This appointment is booked: there is no change to undo.", "booked", "", "arrived"},
			{"arrived", "arrived", later, "María García has arrived for the appointment on Mon 23 Nov, 11:00: in the waiting room.", "arrived", "booked", "completed,no_show,undo"},
			{"arrived twice", "arrived", later, "This appointment is arrived: it cannot be marked arrived.", "arrived", "", "completed,no_show,undo"},
			{"completed", "completed", later, "marked completed", "completed", "arrived", "undo"},
			{"undo completed", "undo", later, "Undone: the appointment of María García on Mon 23 Nov, 11:00 is arrived again.", "arrived", "completed", "completed,no_show,undo"},
			{"undo arrived", "undo", later, "is booked again", "booked", "arrived", "arrived"},
			{"no-show", "no_show", started, "marked no-show", "no_show", "booked", "undo"},
			{"completed after no-show", "completed", started, "This appointment is no-show: it cannot be marked completed.", "no_show", "", "undo"},
			{"undo no-show", "undo", started, "is booked again", "booked", "no_show", "arrived,completed,no_show"},
			{"arrival another day", "arrived", tomorrow, "only on the day of the appointment", "booked", "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := h.count("outbox", "source_type = 'event:appointment.status_changed'")
				audits := h.count("audit_log", "object_type = 'appointment'")
				if tc.action != "" {
					path, form := "/app/appointments/"+itoa(tc.id)+"/status", url.Values{"status": {tc.action}}
					if tc.action == "undo" {
						path, form = "/app/appointments/"+itoa(tc.id)+"/undo", url.Values{}
					}
					p := sara.post(path, form)
					if !strings.HasPrefix(p.Location, "/app/today") {
						t.Fatalf("-> %d %q %.300s", p.Status, p.Location, p.Body)
					}
					sara.follow(p).contains(t, tc.flash)
				}
				if n := h.count("appointments", "id = ? AND status = ?", tc.id, tc.status); n != 1 {
					t.Fatalf("status is not %s", tc.status)
				}
				sent, audited := h.count("outbox", "source_type = 'event:appointment.status_changed'")-before, h.count("audit_log", "object_type = 'appointment'")-audits
				if tc.previous == "" {
					if sent != 0 || audited != 0 {
						t.Fatalf("a refused change sent %d events and %d audit entries", sent, audited)
					}
				} else {
					d := lastStatusChange(t, store, tc.id)
					if sent != 1 || d["status"] != tc.status || d["previous_status"] != tc.previous || d["by"] != "staff" ||
						d["appointment_id"] != float64(tc.id) || d["client_id"] != float64(maria) {
						t.Fatalf("%d events, last %v", sent, d)
					}
					if n := h.count("audit_log", "object_type = 'appointment' AND object_id = ? AND action = 'updated' AND user_name = 'Sara Staff' AND summary = ?",
						itoa(tc.id), "status: "+tc.previous+" → "+tc.status); audited != 1 || n != 1 {
						t.Fatalf("audit entries: %d new, %d matching", audited, n)
					}
				}
				if tc.id != tomorrow {
					if got := buttons(tc.id); got != tc.buttons {
						t.Fatalf("buttons = %q, want %q", got, tc.buttons)
					}
				}
			})
		}
		// The arrival shows on the grid in words and a mark, and its time is kept.
		sara.post("/app/appointments/"+itoa(later)+"/status", url.Values{"status": {"arrived"}})
		item := sara.get("/app/today").item("appt-" + itoa(later))
		for _, want := range []string{"st-arrived", "➜ arrived", "In the waiting room since 10:00"} {
			if !strings.Contains(item, want) {
				t.Fatalf("grid item lacks %q: %s", want, item)
			}
		}
		if n := h.count("appointments", "id = ? AND arrived_at = ?", later, db.Micros(testNow)); n != 1 {
			t.Fatal("arrived_at not kept")
		}
		sara.get("/app/today").contains(t, "1 in the waiting room")
		// The next day the change stands: undo is refused, in both languages.
		sara.post("/app/appointments/"+itoa(started)+"/status", url.Values{"status": {"no_show"}})
		h.clock.Set(testNow.Add(24 * time.Hour))
		sara = h.signedIn("sara@acme.test", "sara-password") // the session of the day before has lapsed
		if strings.Contains(sara.get("/app/today?date=2026-11-23").must(t, http.StatusOK).item("appt-"+itoa(started)), "/undo") {
			t.Fatal("undo offered the next day")
		}
		sara.follow(sara.post("/app/appointments/"+itoa(started)+"/undo", nil)).contains(t, "A change can be undone only on the day it was made.")
		eva := h.signedIn("eva@acme.test", "eva-password")
		eva.follow(eva.post("/app/appointments/"+itoa(started)+"/undo", nil)).contains(t, "Un cambio solo se puede deshacer el mismo día en que se hizo.")
		if n := h.count("appointments", "id = ? AND status = 'no_show'", started); n != 1 {
			t.Fatal("undone the next day")
		}
		// Another account's appointment is not found, whatever the action.
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.post("/app/appointments/"+itoa(later)+"/status", url.Values{"status": {"completed"}}).must(t, http.StatusNotFound)
		bob.post("/app/appointments/"+itoa(later)+"/undo", nil).must(t, http.StatusNotFound)
	})
}

// TestClientAttendance: the client's page counts no-shows and late
// cancels (less than the cut-off, 24 hours by default, before the start).
func TestClientAttendance(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		ana := h.signedIn("ana@acme.test", "ana-password")
		pro, svc, visit, maria := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"], a.Clients["maria"]
		page := "/app/clients/" + itoa(maria)
		ana.get(page).must(t, http.StatusOK).contains(t, "No-shows: 0", "Late cancels: 0")
		// status, start, cancelled (updated) this long before the start
		for _, ap := range []struct {
			status string
			start  string
			before time.Duration
		}{
			{"no_show", "2026-11-10", 0},
			{"no_show", "2026-11-11", 0},
			{"cancelled", "2026-11-12", 2 * time.Hour},  // late
			{"cancelled", "2026-11-13", 23 * time.Hour}, // late
			{"cancelled", "2026-11-14", 25 * time.Hour}, // in time
			{"completed", "2026-11-15", 0},
		} {
			id := h.addAppointment("acme", maria, svc, pro, visit, at(ap.start, "10:00"), "pending")
			store.Exec(t.Context(), `UPDATE appointments SET status = ?, updated_at = ? WHERE id = ?`,
				ap.status, db.Micros(at(ap.start, "10:00").Add(-ap.before)), id)
		}
		ana.get(page).must(t, http.StatusOK).contains(t, "No-shows: 2", "Late cancels: 2")
		// A service's cancel_cutoff of 48 hours makes the third late too.
		store.Exec(t.Context(), `UPDATE services SET booking_rules = '{"cancel_cutoff": "48h"}' WHERE id = ?`, svc)
		ana.get(page).must(t, http.StatusOK).contains(t, "Late cancels: 3")
		h.signedIn("eva@acme.test", "eva-password").get(page).must(t, http.StatusOK).contains(t, "No presentadas: 2", "Cancelaciones tardías: 3")
		h.signedIn("bob@other.test", "bob-password").get(page).must(t, http.StatusNotFound)
	})
}
