package dashboard_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

var madrid, _ = time.LoadLocation("Europe/Madrid")

// at is a wall-clock time in Madrid, the fixtures' zone.
func at(day, hm string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", day+" "+hm, madrid)
	if err != nil {
		panic(err)
	}
	return t
}

// item is the grid item of the page with that id attribute ("" when absent).
func (p page) item(id string) string {
	return regexp.MustCompile(`(?s)<div id="` + regexp.QuoteMeta(id) + `"[^>]*>.*?(?:<div id="(?:appt|hold)-|<div class="tg-item|<a class="tg-item|\z)`).FindString(p.Body)
}

// bookLink is the grid's "Book" link for a free slot starting at start.
func bookLink(pro, service int64, start time.Time) string {
	v := url.Values{"professional_id": {itoa(pro)}, "service_id": {itoa(service)}, "start": {start.UTC().Format(time.RFC3339)}}
	return strings.ReplaceAll("/app/book?"+v.Encode(), "&", "&amp;")
}

// webhookData is the data of the delivery of event typ about the object id.
func webhookData(t *testing.T, store *db.DB, typ string, id int64) map[string]any {
	t.Helper()
	var body string
	if err := store.QueryRow(t.Context(), `SELECT body FROM outbox WHERE kind = 'webhook' AND source_type = ? AND source_id = ?`,
		"event:"+typ, id).Scan(&body); err != nil {
		t.Fatalf("no %s delivery for %d: %v", typ, id, err)
	}
	var e struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatal(err)
	}
	return e.Data
}

// TestTodayGrid: the day's appointments per professional with their
// confirmation and status, the free slots of the service as Book links, the
// held slots, the unread count, the week, and another account's ids.
func TestTodayGrid(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("ana@acme.test", "ana-password")
		// testNow is Monday 23 Nov 10:00 in Madrid; Dr. López works
		// 09:00-13:00 and 15:00-19:00.
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		past := h.addAppointment("acme", a.Clients["maria"], svc, pro, visit, at("2026-11-23", "09:00"), "confirmed")
		later := h.addAppointment("acme", a.Clients["pedro"], svc, pro, visit, at("2026-11-23", "11:00"), "declined")
		pending := h.addAppointment("acme", a.Clients["pedro"], svc, pro, visit, at("2026-11-23", "16:00"), "pending")
		gone := h.addAppointment("acme", a.Clients["maria"], svc, pro, visit, at("2026-11-23", "17:00"), "pending")
		done := h.addAppointment("acme", a.Clients["maria"], svc, pro, visit, at("2026-11-23", "09:30"), "confirmed")
		store.Exec(t.Context(), `UPDATE appointments SET status = 'cancelled' WHERE id = ?`, gone)
		store.Exec(t.Context(), `UPDATE appointments SET status = 'no_show' WHERE id = ?`, done)
		held := h.addHeldEntry("acme", a.Waitlists["main"], a.Clients["maria"], svc, pro, at("2026-11-23", "12:00"), testNow.Add(2*time.Hour))

		u.get("/app/").must(t, http.StatusSeeOther)
		if p := u.get("/app/"); p.Location != "/app/today" {
			t.Fatalf("/app/ -> %q", p.Location)
		}
		p := u.get("/app/today").must(t, http.StatusOK).contains(t, "Today", "Dr. López", `aria-current="page"`,
			"unread conversation", `href="/app/conversations"`, "Times in Europe/Madrid.", "1 cancelled (not shown)")
		for _, tc := range []struct {
			id   int64
			want []string
			not  []string
		}{
			{past, []string{"09:00–09:30", "María García", "✓ confirmed", "/app/appointments/" + itoa(past) + "/status", `value="no_show"`, "/reschedule"}, nil},
			// Not started yet: the patient may arrive, nothing else is marked.
			{later, []string{"11:00–11:30", "Pedro Sánchez", "✗ declined", "/reschedule", `value="arrived"`}, []string{`value="no_show"`, `value="completed"`}},
			{pending, []string{"16:00–16:30", "? pending", `value="arrived"`}, []string{`value="no_show"`, `value="completed"`}},
			{done, []string{"09:30–10:00", "✗ no-show", "st-no_show"}, []string{"/status", "/reschedule"}},
		} {
			got := p.item("appt-" + itoa(tc.id))
			if got == "" {
				t.Fatalf("appointment %d not on the grid", tc.id)
			}
			for _, s := range tc.want {
				if !strings.Contains(got, s) {
					t.Errorf("appointment %d: no %q in %s", tc.id, s, got)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(got, s) {
					t.Errorf("appointment %d: %q in %s", tc.id, s, got)
				}
			}
		}
		if strings.Contains(p.Body, "appt-"+itoa(gone)) {
			t.Error("a cancelled appointment is on the grid")
		}
		p.contains(t, "hold-"+itoa(held), "Held for María García until 12:00")
		// Free slots: from now (10:00) in working hours, not where an
		// appointment or a hold is.
		for _, hm := range []string{"10:00", "10:30", "11:30", "12:30", "15:00", "15:30", "16:30", "17:00", "18:30"} {
			p.contains(t, bookLink(pro, svc, at("2026-11-23", hm)))
		}
		for _, hm := range []string{"09:00", "09:30", "11:00", "12:00", "13:00", "14:30", "16:00", "19:00"} {
			if strings.Contains(p.Body, bookLink(pro, svc, at("2026-11-23", hm))) {
				t.Errorf("a Book link at %s", hm)
			}
		}
		// Days move; the week is one professional's, a column per day.
		u.get("/app/today?date=2026-11-24").must(t, http.StatusOK).contains(t, "Tuesday, 24 November 2026", bookLink(pro, svc, at("2026-11-24", "16:30")),
			"/app/today?date=2026-11-23&amp;service=", "/app/today?date=2026-11-25&amp;service=")
		u.get("/app/today?date=2026-11-25&view=week").must(t, http.StatusOK).contains(t, "Mon 23 Nov", "Sun 29 Nov",
			"appt-"+itoa(later), bookLink(pro, svc, at("2026-11-24", "09:00")), "date=2026-12-02&amp;professional=")
		// Bad input is a 400 or 404, never a 500; another account's ids are unknown.
		u.get("/app/today?date=tomorrow").must(t, http.StatusBadRequest)
		for _, path := range []string{"/app/today?date=0001-01-01", "/app/today?date=9999-12-31&view=week", "/app/today?view=month&service=x"} {
			if p := u.get(path); p.Status >= 500 {
				t.Errorf("%s: %d", path, p.Status)
			}
		}
		u.get("/app/today?service="+itoa(h.other().Services["cleaning"])).must(t, http.StatusNotFound)
		u.get("/app/today?view=week&professional="+itoa(h.other().Professionals["jones"])).must(t, http.StatusNotFound)
		bob := h.signedIn("bob@other.test", "bob-password")
		if strings.Contains(bob.get("/app/today").must(t, http.StatusOK).Body, "appt-"+itoa(past)) {
			t.Error("another account sees the appointment")
		}
		// Eva reads it in Spanish.
		eva := h.signedIn("eva@acme.test", "eva-password")
		eva.get("/app/today").must(t, http.StatusOK).contains(t, "Hoy", "lunes, 23 de noviembre de 2026", "✓ confirmada", "Reservar")
		eva.get("/app/calendar?date=2026-11-23&view=day").must(t, http.StatusOK).contains(t, "Calendario", "lunes, 23 de noviembre de 2026", "Estado", "? pendiente", "Reservado para")
	})
}

// TestBookFromSlot: a free slot's form books through calendar.Book with the
// API booking's effects; refusals come back to the form with what was typed.
func TestBookFromSlot(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("ana@acme.test", "ana-password")
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		slot := at("2026-11-23", "16:30")
		path := strings.ReplaceAll(bookLink(pro, svc, slot), "&amp;", "&")
		u.get(path).must(t, http.StatusOK).contains(t, "Book an appointment", "Dr. López", "Limpieza dental", "In person", `name="client_id" value="new" checked`)
		u.get(path+"&q=garc").must(t, http.StatusOK).contains(t, `id="client-`+itoa(a.Clients["maria"])+`"`, "&#43;34600111222")
		form := func(kv ...string) url.Values {
			v := url.Values{"professional_id": {itoa(pro)}, "service_id": {itoa(svc)}, "event_type_id": {itoa(visit)},
				"start": {slot.UTC().Format(time.RFC3339)}, "client_id": {"new"}}
			for i := 0; i < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v
		}
		// An API booking, for comparison of what a booking queues.
		status, body := h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
			"client": map[string]any{"first_name": "Lola", "phone": "+34600555666"}, "service_id": svc,
			"professional_id": pro, "event_type_id": visit, "start_at": "2026-11-23T17:30:00", "end_at": "2026-11-23T18:00:00", "timezone": "Europe/Madrid"})
		if status != 200 {
			t.Fatalf("api book: %d %v", status, body)
		}
		apiID := int64(body["data"].(map[string]any)["id"].(float64))

		// Refusals: the form again, 422, the reason and the typed values.
		for _, tc := range []struct {
			name string
			form url.Values
			want []string
		}{
			{"invalid phone", form("phone", "12", "first_name", "Nuria"), []string{"The phone number 12 is not valid.", `value="Nuria"`}},
			{"name required", form("phone", "+34611222333", "notes", "first visit"), []string{"enter the client&#39;s first or last name", `value="&#43;34611222333"`, "first visit"}},
			{"no phone", form("first_name", "Nuria"), []string{"Enter the new client&#39;s phone number", `value="Nuria"`}},
			{"slot passed", form("phone", "+34611222333", "first_name", "Nuria", "start", at("2026-11-23", "09:00").UTC().Format(time.RFC3339)), []string{"already started"}},
			{"outside hours", form("phone", "+34611222333", "first_name", "Nuria", "start", at("2026-11-23", "14:00").UTC().Format(time.RFC3339)), []string{"no longer free"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				u.post("/app/book", tc.form).must(t, http.StatusUnprocessableEntity).contains(t, tc.want...)
			})
		}
		if n := h.count("appointments", "source = 'dashboard'"); n != 0 {
			t.Fatalf("a refused booking wrote %d appointments", n)
		}
		if n := h.count("clients", "phone_national = '611222333'"); n != 0 {
			t.Fatal("a refused booking created the client")
		}

		// A new client.
		p := u.post("/app/book", form("phone", "611 222 333", "first_name", "Nuria", "last_name", "Vega", "notes", "first visit"))
		var id int64
		store.QueryRow(t.Context(), `SELECT id FROM appointments WHERE source = 'dashboard'`).Scan(&id)
		if want := "/app/today?date=2026-11-23&service=" + itoa(svc) + "#appt-" + itoa(id); p.Location != want {
			t.Fatalf("book -> %d %q, want %q; %.500s", p.Status, p.Location, want, p.Body)
		}
		u.follow(p).must(t, http.StatusOK).contains(t, "Booked Nuria Vega for Limpieza dental on Mon 23 Nov, 16:30 with Dr. López. New client created.", "appt-"+itoa(id))
		if n := h.count("appointments", "id = ? AND status = 'booked' AND confirmation_status = 'pending' AND notes = 'first visit' AND start_at = ?", id, db.Micros(slot)); n != 1 {
			t.Fatal("appointment not as booked")
		}
		if n := h.count("clients", "phone_national = '611222333' AND first_name = 'Nuria' AND last_name = 'Vega'"); n != 1 {
			t.Fatal("client not created")
		}
		// The same messages as an API booking (confirmation request and
		// reminders), and appointment.booked with the dashboard as source.
		kinds := func(id int64) string {
			rows, err := store.Query(t.Context(), `SELECT kind FROM outbox WHERE source_type = 'booking' AND source_id = ? ORDER BY kind`, id)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var k string
				rows.Scan(&k)
				out = append(out, k)
			}
			return strings.Join(out, ",")
		}
		if got, want := kinds(id), kinds(apiID); got != want || !strings.Contains(got, "booking_confirmation,booking_reminder") {
			t.Fatalf("dashboard booking queued %q, API booking %q", got, want)
		}
		if d := webhookData(t, store, "appointment.booked", id); d["source"] != "dashboard" || d["client_created"] != true {
			t.Fatalf("appointment.booked data %v", d)
		}

		// The slot is taken now: refused, nothing written.
		u.post("/app/book", form("phone", "+34611999888", "first_name", "Otro")).must(t, http.StatusUnprocessableEntity).
			contains(t, "no longer free", `value="&#43;34611999888"`, `value="Otro"`)
		if n := h.count("clients", "phone_national = '611999888'"); n != 0 {
			t.Fatal("a refused booking created the client")
		}

		// An existing client: María's waiting-list entry is resolved, as
		// with an API booking.
		status, body = h.api("POST", "/api/v2/public/calendar/waitlist/entries", acmeKey, map[string]any{
			"phone": "+34600111222", "service_ids": []int64{svc}})
		if status != 200 {
			t.Fatalf("waitlist add: %d %v", status, body)
		}
		entry := int64(body["data"].(map[string]any)["entries"].([]any)[0].(map[string]any)["id"].(float64))
		p = u.post("/app/book", form("client_id", itoa(a.Clients["maria"]), "start", at("2026-11-23", "12:00").UTC().Format(time.RFC3339)))
		u.follow(p).contains(t, "Booked María García")
		if n := h.count("appointments", "client_id = ? AND source = 'dashboard'", a.Clients["maria"]); n != 1 {
			t.Fatal("not booked for María")
		}
		if n := h.count("waitlist_entries", "id = ? AND status = 'booked'", entry); n != 1 {
			t.Fatal("the waiting-list entry is not resolved")
		}

		// Another account's ids are unknown: 404, nothing written.
		o := h.other()
		for _, tc := range []struct {
			name string
			form url.Values
		}{
			{"client", form("client_id", itoa(o.Clients["maria"]), "start", at("2026-11-23", "12:30").UTC().Format(time.RFC3339))},
			{"service", form("service_id", itoa(o.Services["cleaning"]), "phone", "+34611000111", "first_name", "X")},
			{"professional", form("professional_id", itoa(o.Professionals["jones"]), "phone", "+34611000111", "first_name", "X")},
		} {
			t.Run("other account's "+tc.name, func(t *testing.T) {
				u.post("/app/book", tc.form).must(t, http.StatusNotFound)
			})
		}
		h.signedIn("bob@other.test", "bob-password").get(path).must(t, http.StatusNotFound)
		if n := h.count("appointments", "source = 'dashboard'"); n != 2 {
			t.Fatalf("dashboard appointments = %d, want 2", n)
		}
	})
}

// TestMarkAppointmentStatus: no-show and completed only for a booked
// appointment whose start has passed; reminders withdrawn; the webhook.
func TestMarkAppointmentStatus(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("sara@acme.test", "sara-password") // staff may
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		// Booked through the API, with its reminders; the webhook hears every event.
		book := func(start string) int64 {
			status, body := h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
				"client": map[string]any{"first_name": "Lola", "phone": "+34600555666"}, "service_id": svc,
				"professional_id": pro, "event_type_id": visit, "start_at": start, "end_at": strings.Replace(start, ":00:00", ":30:00", 1), "timezone": "Europe/Madrid"})
			if status != 200 {
				t.Fatalf("book: %d %v", status, body)
			}
			return int64(body["data"].(map[string]any)["id"].(float64))
		}
		past, other, future := book("2026-11-23T09:00:00"), book("2026-11-23T08:00:00"), book("2026-11-23T12:00:00")
		store.Exec(t.Context(), `UPDATE webhooks SET events = '[]'`)
		mark := func(id int64, status string) page {
			u.get("/app/today")
			return u.post("/app/appointments/"+itoa(id)+"/status", url.Values{"status": {status}})
		}
		for _, tc := range []struct {
			name   string
			id     int64
			status string
			want   string // the flash
			now    string // the appointment's status after
		}{
			{"not started", future, "no_show", "has not started yet", "booked"},
			{"unknown status", past, "missed", "Choose arrived, no-show or completed.", "booked"},
			{"no-show", past, "no_show", "Appointment of Lola on Mon 23 Nov, 09:00 marked no-show.", "no_show"},
			{"only once", past, "completed", "This appointment is no-show: it cannot be marked completed.", "no_show"},
			{"completed", other, "completed", "marked completed", "completed"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := mark(tc.id, tc.status)
				if p.Location != "/app/today" {
					t.Fatalf("-> %d %q", p.Status, p.Location)
				}
				u.follow(p).contains(t, tc.want)
				if n := h.count("appointments", "id = ? AND status = ?", tc.id, tc.now); n != 1 {
					t.Fatalf("status is not %s", tc.now)
				}
			})
		}
		for _, id := range []int64{past, other} {
			if n := h.count("outbox", "source_type = 'booking' AND source_id = ? AND status = 'pending'", id); n != 0 {
				t.Fatalf("appointment %d keeps %d pending messages", id, n)
			}
		}
		if n := h.count("outbox", "source_type = 'booking' AND source_id = ? AND status = 'pending'", future); n == 0 {
			t.Fatal("the refused mark withdrew the reminders")
		}
		d := webhookData(t, store, "appointment.status_changed", past)
		if d["status"] != "no_show" || d["previous_status"] != "booked" || d["appointment_id"] != float64(past) ||
			d["start_at"] != "2026-11-23T08:00:00Z" || d["calendar_profile_id"] != float64(pro) || d["source"] != "api" {
			t.Fatalf("appointment.status_changed data %v", d)
		}
		if n := h.count("outbox", "kind = 'webhook' AND source_type = 'event:appointment.status_changed'"); n != 2 {
			t.Fatalf("status_changed deliveries = %d, want 2", n)
		}
		// The grid shows the outcome without the actions.
		p := u.get("/app/today").must(t, http.StatusOK)
		if got := p.item("appt-" + itoa(past)); !strings.Contains(got, "✗ no-show") || strings.Contains(got, "/status") {
			t.Fatalf("no-show on the grid: %s", got)
		}
		h.signedIn("bob@other.test", "bob-password").post("/app/appointments/"+itoa(future)+"/status", url.Values{"status": {"no_show"}}).must(t, http.StatusNotFound)
	})
}

// TestRescheduleFromSlot: the reschedule page lists the service's free
// slots one day at a time (today first, then the next day); picking one
// asks to confirm, and the confirmation moves the appointment.
func TestRescheduleFromSlot(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("ana@acme.test", "ana-password")
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		id := h.addAppointment("acme", a.Clients["maria"], svc, pro, visit, at("2026-11-23", "11:00"), "confirmed")
		path := "/app/appointments/" + itoa(id) + "/reschedule"
		u.get(path).must(t, http.StatusOK).contains(t, "María García", "Free slots on Monday, 23 November", "?date=2026-11-24&amp;return=today")
		p := u.get(path+"?date=2026-11-24").must(t, http.StatusOK).contains(t, "Free slots on Tuesday, 24 November",
			"start=2026-11-24T09%3A00", "with="+itoa(pro), "?date=2026-11-23")
		for _, taken := range []string{"2026-11-23T11%3A00", "2026-11-23T09%3A00", "2026-11-24T17%3A00"} {
			if strings.Contains(p.Body, "start="+taken) {
				t.Errorf("slot %s offered", taken)
			}
		}
		u.get(path+"?date=2026-11-24&start=2026-11-24T16:30&with="+itoa(pro)).must(t, http.StatusOK).
			contains(t, "Confirm the move", `name="start" value="2026-11-24T16:30"`, `name="professional_id" value="`+itoa(pro)+`"`, `name="return" value="today"`)
		q := u.post(path, url.Values{"start": {"2026-11-24T16:30"}, "professional_id": {itoa(pro)}, "return": {"today"}})
		if want := "/app/today?date=2026-11-24#appt-" + itoa(id); q.Location != want {
			t.Fatalf("reschedule -> %q, want %q", q.Location, want)
		}
		u.follow(q).contains(t, "moved to Tue 24 Nov, 16:30", "appt-"+itoa(id))
		if n := h.count("appointments", "id = ? AND start_at = ? AND confirmation_status = 'pending'", id, db.Micros(at("2026-11-24", "16:30"))); n != 1 {
			t.Fatal("not moved")
		}
		h.signedIn("bob@other.test", "bob-password").get(path).must(t, http.StatusNotFound)
		store.Exec(t.Context(), `UPDATE appointments SET status = 'cancelled' WHERE id = ?`, id)
		u.get(path).must(t, http.StatusBadRequest).contains(t, "Only booked appointments")
		u.get("/app/appointments/x/reschedule").must(t, http.StatusNotFound)
	})
}
