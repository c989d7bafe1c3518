package dashboard_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

func TestClientEdit(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		pedro := h.acme().Clients["pedro"]
		for _, q := range []string{"pedro", "SÁNCHEZ", "600333", "+34600333444", "pedro@EXAMPLE"} {
			u.get("/app/clients?q="+url.QueryEscape(q)).must(t, http.StatusOK).contains(t, "/app/clients/"+itoa(pedro))
		}
		u.get("/app/clients?q=nobody").must(t, http.StatusOK).contains(t, "No client matches")
		path := "/app/clients/" + itoa(pedro)
		u.get(path).must(t, http.StatusOK).contains(t, `value="pedro@example.com"`, "Dientes SL", "referral")

		// Clearing fields to empty (dashboard-only in the contract).
		p := u.post(path, url.Values{"first_name": {"Pedro"}, "last_name": {"Sánchez"}, "email": {""}, "company": {""},
			"timezone": {""}, "lead_value": {"90"}, "data": {`{"source": "referral", "plan": "basic"}`}})
		u.follow(p).must(t, http.StatusOK).contains(t, "Client saved.")
		var email, company *string
		var data string
		var lead *float64
		store.QueryRow(t.Context(), `SELECT email, company, data, lead_value FROM clients WHERE id = ?`, pedro).Scan(&email, &company, &data, &lead)
		if email != nil || company != nil || lead == nil || *lead != 90 || data != `{"plan":"basic","source":"referral"}` {
			t.Fatalf("after save: email %v company %v lead %v data %s", email, company, lead, data)
		}
		if n := h.count("clients", "id = ? AND email_norm IS NULL", pedro); n != 1 {
			t.Fatal("email_norm kept")
		}
		// Bad values are refused with the reason, nothing written.
		for _, tc := range []struct{ field, value, text string }{
			{"email", "not-an-email", "is not an e-mail address"},
			{"timezone", "Mars/Base", "is not a time zone"},
			{"data", "[1]", "must be a JSON object"},
		} {
			form := url.Values{"first_name": {"X"}, "last_name": {""}}
			form.Set(tc.field, tc.value)
			u.follow(u.post(path, form)).contains(t, tc.text)
		}
		if n := h.count("clients", "id = ? AND first_name = 'Pedro'", pedro); n != 1 {
			t.Fatal("a refused save wrote")
		}
		// Tags.
		u.follow(u.post(path+"/tags", url.Values{"name": {"vip"}})).contains(t, "Tag added.")
		u.follow(u.post(path+"/tags", url.Values{"name": {"vip"}})).contains(t, "Tag added.")
		if n := h.count("client_tags", "client_id = ?", pedro); n != 1 {
			t.Fatalf("tags = %d", n)
		}
		var tagID int64
		store.QueryRow(t.Context(), `SELECT tag_id FROM client_tags WHERE client_id = ?`, pedro).Scan(&tagID)
		u.follow(u.post(path+"/tags/remove", url.Values{"tag_id": {itoa(tagID)}})).contains(t, "Tag removed.")
	})
}

func TestWaitlistActions(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		status, body := h.api("POST", "/api/v2/public/calendar/waitlist/entries", acmeKey, map[string]any{
			"phone": "+34600111222", "service_ids": []int64{h.acme().Services["cleaning"]}, "priority": 1, "notes": "mornings please"})
		if status != 200 {
			t.Fatalf("add: %d %v", status, body)
		}
		entry := int64(body["data"].(map[string]any)["entries"].([]any)[0].(map[string]any)["id"].(float64))
		u.get("/app/waitlists").must(t, http.StatusOK).contains(t, "General", "María", "high", "mornings please", "entry-"+itoa(entry))

		u.follow(u.post("/app/waitlists/entries/"+itoa(entry)+"/flag", url.Values{"flagged": {"true"}})).contains(t, "flagged for review")
		u.follow(u.post("/app/waitlists/entries/"+itoa(entry)+"/snooze", url.Values{"until": {"2026-11-30"}})).contains(t, "snoozed until Monday, 30 November 2026")
		_, got := h.api("GET", "/api/v2/public/calendar/waitlist/entries/"+itoa(entry), acmeKey, nil)
		e := got["data"].(map[string]any)
		if e["status"] != "snoozed" || e["flagged_for_review"] != true || e["snooze_until"] != "2026-11-29T23:00:00Z" {
			t.Fatalf("entry = %v", e)
		}
		u.follow(u.post("/app/waitlists/entries/"+itoa(entry)+"/snooze", url.Values{"until": {"2020-01-01"}})).contains(t, "in the future")

		u.follow(u.post("/app/waitlists/entries/"+itoa(entry)+"/remove", nil)).contains(t, "removed from the waiting list")
		_, got = h.api("GET", "/api/v2/public/calendar/waitlist/entries/"+itoa(entry), acmeKey, nil)
		if e := got["data"].(map[string]any); e["status"] != "removed" || e["resolution_reason"] != "removed_via_dashboard" {
			t.Fatalf("entry after remove = %v", e)
		}
		u.follow(u.post("/app/waitlists/entries/"+itoa(entry)+"/flag", url.Values{"flagged": {"false"}})).contains(t, "already removed")

		// A list's settings are the owners' (Settings › Waiting lists): the
		// day's page no longer edits them.
		u.post("/app/waitlists/"+itoa(h.acme().Waitlists["main"])+"/settings", url.Values{"active": {"false"}, "horizon_days": {"45"}}).must(t, http.StatusNotFound)
		u.get("/app/waitlists").must(t, http.StatusOK).contains(t, `href="/app/settings/waitlists"`)
		// Other tenants' entries are not found.
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.post("/app/waitlists/entries/"+itoa(entry)+"/remove", nil).must(t, http.StatusNotFound)
		bob.post("/app/waitlists/entries/"+itoa(entry)+"/snooze", url.Values{"until": {"2026-12-30"}}).must(t, http.StatusNotFound)
	})
}

func TestAppointmentRescheduleAndCancel(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		a := h.acme()
		status, body := h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
			"client": map[string]any{"first_name": "Lola", "phone": "+34600555666"}, "service_id": a.Services["cleaning"],
			"professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
			"start_at": "2026-11-25T10:00:00", "end_at": "2026-11-25T10:30:00", "timezone": "Europe/Madrid"})
		if status != 200 {
			t.Fatalf("book: %d %v", status, body)
		}
		id := int64(body["data"].(map[string]any)["id"].(float64))
		// The webhook hears every event from now on.
		if _, err := store.Exec(t.Context(), `UPDATE webhooks SET events = '[]'`); err != nil {
			t.Fatal(err)
		}
		event := func(typ string) map[string]any {
			t.Helper()
			var body string
			if err := store.QueryRow(t.Context(), `SELECT body FROM outbox WHERE kind = 'webhook' AND source_type = ? AND source_id = ?`,
				"event:"+typ, id).Scan(&body); err != nil {
				t.Fatalf("no %s delivery: %v", typ, err)
			}
			var e struct {
				Data map[string]any `json:"data"`
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatal(err)
			}
			return e.Data
		}
		u.get("/app/calendar?date=2026-11-25&view=week").must(t, http.StatusOK).contains(t, "Lola", "10:00–10:30", "Limpieza dental", "Dr. López", ">API<", "appt-"+itoa(id))
		u.get("/app/calendar?date=2026-11-26&view=day").must(t, http.StatusOK).contains(t, "0 appointments")

		// 16:15 is not a free slot: the move is refused until the
		// override is sent.
		u.post("/app/appointments/"+itoa(id)+"/reschedule", url.Values{"start": {"2026-11-27T16:15"}}).must(t, http.StatusConflict).
			contains(t, "That time is not free", `name="override" value="1"`, "Move it anyway")
		p := u.post("/app/appointments/"+itoa(id)+"/reschedule", url.Values{"start": {"2026-11-27T16:15"}, "override": {"1"}})
		if p.Location != "/app/calendar?date=2026-11-27" {
			t.Fatalf("reschedule -> %q", p.Location)
		}
		u.follow(p).contains(t, "moved to Fri 27 Nov, 16:15", "16:15–16:45")
		var start, end int64
		store.QueryRow(t.Context(), `SELECT start_at, end_at FROM appointments WHERE id = ?`, id).Scan(&start, &end)
		if db.Time(start).Format("2006-01-02T15:04Z07:00") != "2026-11-27T15:15Z" || end-start != 30*60*1e6 {
			t.Fatalf("start %v end %v", db.Time(start), db.Time(end))
		}
		// The reminders follow the new time: old pending ones withdrawn.
		if n := h.count("outbox", "source_type = 'booking' AND source_id = ? AND kind = 'booking_reminder' AND status = 'pending'", id); n != 2 {
			t.Fatalf("pending reminders = %d", n)
		}
		if n := h.count("outbox", "source_type = 'booking' AND source_id = ? AND status = 'cancelled'", id); n < 2 {
			t.Fatalf("cancelled = %d", n)
		}
		if d := event("appointment.rescheduled"); d["start_at"] != "2026-11-27T15:15:00Z" || d["previous_start_at"] != "2026-11-25T09:00:00Z" ||
			d["end_at"] != "2026-11-27T15:45:00Z" || d["service_id"] != float64(a.Services["cleaning"]) || d["client_id"] == nil || d["by"] != "staff" {
			t.Fatalf("appointment.rescheduled data %v", d)
		}
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.post("/app/appointments/"+itoa(id)+"/reschedule", url.Values{"start": {"2026-11-28T10:00"}}).must(t, http.StatusNotFound)
		bob.post("/app/appointments/"+itoa(id)+"/cancel", nil).must(t, http.StatusNotFound)

		u.follow(u.post("/app/appointments/"+itoa(id)+"/cancel", nil)).contains(t, "Appointment cancelled")
		if n := h.count("appointments", "id = ? AND status = 'cancelled'", id); n != 1 {
			t.Fatal("not cancelled")
		}
		if n := h.count("outbox", "source_id = ? AND source_type = 'booking' AND status = 'pending'", id); n != 0 {
			t.Fatalf("pending after cancel = %d", n)
		}
		if d := event("appointment.cancelled"); d["start_at"] != "2026-11-27T15:15:00Z" || d["appointment_id"] != float64(id) || d["by"] != "staff" {
			t.Fatalf("appointment.cancelled data %v", d)
		}
		u.follow(u.post("/app/appointments/"+itoa(id)+"/reschedule", url.Values{"start": {"2026-11-28T10:00"}})).contains(t, "Only booked appointments")
	})
}

func TestEveryPageRenders(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		h.api("POST", "/api/v2/public/leadflow/ingest/0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01/batch", acmeKey,
			map[string]any{"clients": []any{map[string]any{"phone_number": "+34600777888", "first_name": "Nuevo"}}})
		for _, tc := range []struct{ path, text string }{
			{"/app/pipelines?all=1", "Treatments"},
			{"/app/clients", "María García"},
			{"/app/calendar", "Calendar"},
			{"/app/waitlists", "General"},
			{"/app/conversations", "Booked a cleaning"},
			{"/app/conversations?status=resolved&sort_by=-last_message_at&search=600111&disposition=" + itoa(h.acme().DispositionTags["won"]), "Booked a cleaning"},
			{"/app/conversations?status=new", "No conversation matches"},
			{"/app/conversations/" + itoa(h.acme().Conversations["c1"]), "Te reservo"},
			{"/app/activity", "automation_message"},
			{"/app/settings/channels", "No channels"},
			{"/app/keys", "pk_tes"},
		} {
			u.get(tc.path).must(t, http.StatusOK).contains(t, tc.text, `<main id="main"`)
		}
		u.get("/app/nowhere").must(t, http.StatusNotFound)
	})
}
