package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// auditRows counts the account's audit entries of one object type.
func (h *harness) auditRows(objectType string) int {
	h.t.Helper()
	return h.count("audit_log", "account_id = (SELECT id FROM accounts WHERE slug = 'acme') AND object_type = ?", objectType)
}

// apiService finds a service in the public services list (nil: not listed).
func (h *harness) apiService(id int64) map[string]any {
	h.t.Helper()
	status, body := h.api("GET", "/api/v2/public/calendar/services", acmeKey, nil)
	if status != 200 {
		h.t.Fatalf("services: %d %v", status, body)
	}
	for _, s := range body["data"].([]any) {
		m := s.(map[string]any)
		if int64(m["id"].(float64)) == id {
			return m
		}
	}
	return nil
}

// slotCount is how many free slots the public API lists for a service on
// one day (in the account's zone).
func (h *harness) slotCount(serviceID int64, day string) int {
	h.t.Helper()
	status, body := h.api("GET", "/api/v2/public/calendar/availability/slots?service_id="+itoa(serviceID)+"&start_date="+day+"&days=1&limit=500", acmeKey, nil)
	if status != 200 {
		h.t.Fatalf("slots: %d %v", status, body)
	}
	return len(body["data"].(map[string]any)["slots"].([]any))
}

// refNames lists the names of a services-list entry's professionals or
// event types.
func refNames(svc map[string]any, key string) []string {
	var out []string
	for _, r := range svc[key].([]any) {
		out = append(out, r.(map[string]any)["name"].(string))
	}
	return out
}

// TestSettingsServices: an owner creates a service, chooses who offers it
// and its event types, edits it and switches it off; the public API shows
// each change at once; each change is one audit entry with who and what;
// refused input says why and writes nothing.
func TestSettingsServices(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get("/app/settings/services").must(t, http.StatusOK).contains(t, "Limpieza dental", "New service", `aria-current="page">Services`)
		// The API's services list is cached: read it first so the cache
		// holds the old list.
		before := len(h.api2List(t))

		p := u.post("/app/settings/services", url.Values{"name": {"Blanqueamiento"}, "duration": {"45"}, "color": {"#aa3300"}, "active": {"true"}})
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/app/settings/services/") {
			t.Fatalf("create: %d %s %.300s", p.Status, p.Location, p.Body)
		}
		u.follow(p).must(t, http.StatusOK).contains(t, "Service created.", `value="Blanqueamiento"`)
		var id int64
		var fileKey string
		if err := store.QueryRow(t.Context(), `SELECT id, file_key FROM services WHERE name = 'Blanqueamiento'`).Scan(&id, &fileKey); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(fileKey, "dashboard-") {
			t.Fatalf("file key %q", fileKey)
		}
		if got := len(h.api2List(t)); got != before+1 {
			t.Fatalf("API lists %d services after create, want %d", got, before+1)
		}
		if n := h.auditRows("service"); n != 1 {
			t.Fatalf("audit rows after create = %d", n)
		}
		var who, action, summary string
		store.QueryRow(t.Context(), `SELECT user_name, action, summary FROM audit_log WHERE object_type = 'service'`).Scan(&who, &action, &summary)
		if who != "Ana Ruiz" || action != "created" || !strings.Contains(summary, "Blanqueamiento") {
			t.Fatalf("audit entry: %q %q %q", who, action, summary)
		}

		// Professionals and event types, with new fields, in one save.
		path := "/app/settings/services/" + itoa(id)
		u.follow(u.post(path, url.Values{"name": {"Blanqueamiento LED"}, "duration": {"60"}, "color": {"#aa3300"}, "active": {"true"},
			"professional_id": {itoa(a.Professionals["lopez"])}, "event_type_id": {itoa(a.EventTypes["visit"])}})).must(t, http.StatusOK).contains(t, "Saved.")
		svc := h.apiService(id)
		if svc == nil || svc["name"] != "Blanqueamiento LED" || svc["default_duration_minutes"].(float64) != 60 ||
			strings.Join(refNames(svc, "professionals"), ",") != "Dr. López" || strings.Join(refNames(svc, "event_types"), ",") != "In person" {
			t.Fatalf("API service after save: %v", svc)
		}
		if n := h.auditRows("service"); n != 2 {
			t.Fatalf("audit rows after save = %d", n)
		}
		store.QueryRow(t.Context(), `SELECT summary FROM audit_log WHERE object_type = 'service' ORDER BY id DESC LIMIT 1`).Scan(&summary)
		for _, want := range []string{"name", "duration 45 → 60", "professionals added: Dr. López", "event types added: In person"} {
			if !strings.Contains(summary, want) {
				t.Fatalf("audit summary %q lacks %q", summary, want)
			}
		}
		// The new service is bookable: free slots on a Monday.
		if n := h.slotCount(id, "2026-11-30"); n == 0 {
			t.Fatal("no free slots for the new service")
		}

		// The same form again changes nothing and writes no entry.
		u.follow(u.post(path, url.Values{"name": {"Blanqueamiento LED"}, "duration": {"60"}, "color": {"#aa3300"}, "active": {"true"},
			"professional_id": {itoa(a.Professionals["lopez"])}, "event_type_id": {itoa(a.EventTypes["visit"])}})).contains(t, "Nothing changed.")
		if n := h.auditRows("service"); n != 2 {
			t.Fatalf("audit rows after an unchanged save = %d", n)
		}

		// Refused input: the reason, nothing written, no audit entry.
		good := url.Values{"name": {"Blanqueamiento LED"}, "duration": {"60"}, "color": {"#aa3300"}, "active": {"true"},
			"professional_id": {itoa(a.Professionals["lopez"])}, "event_type_id": {itoa(a.EventTypes["visit"])}}
		for _, tc := range []struct {
			name, field, value, text string
		}{
			{"empty name", "name", "  ", "Give the service a name."},
			{"zero duration", "duration", "0", "The duration must be 1 to 1440 minutes."},
			{"long duration", "duration", "1441", "The duration must be 1 to 1440 minutes."},
			{"duration not a number", "duration", "half an hour", "The duration must be a whole number of minutes."},
			{"bad colour", "color", "blue", "A colour is written #rrggbb"},
			{"taken name", "name", "limpieza DENTAL", "That name is already used"},
			{"another account's professional", "professional_id", itoa(h.other().Professionals["jones"]), "Choose among this account"},
			{"another account's event type", "event_type_id", itoa(h.other().EventTypes["visit"]), "Choose among this account"},
			{"malformed id", "professional_id", "x1", "The form sent an id that is not a number."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				form := clone(good)
				form.Set(tc.field, tc.value)
				page := u.follow(u.post(path, form)).must(t, http.StatusOK)
				if !strings.Contains(page.Body, `class="flash error"`) || !strings.Contains(page.Body, tc.text) {
					t.Fatalf("no refusal %q; body: %.1500s", tc.text, page.Body)
				}
			})
		}
		if n := h.auditRows("service"); n != 2 {
			t.Fatalf("audit rows after refusals = %d", n)
		}
		if svc := h.apiService(id); svc["name"] != "Blanqueamiento LED" || len(refNames(svc, "professionals")) != 1 {
			t.Fatalf("a refused save wrote: %v", svc)
		}
		// A refused create writes nothing either.
		u.follow(u.post("/app/settings/services", url.Values{"name": {""}, "duration": {"30"}})).contains(t, "Give the service a name.")
		if n := h.count("services", "name = ''"); n != 0 || h.auditRows("service") != 2 {
			t.Fatal("a refused create wrote")
		}

		// Switched off, it leaves the API at once.
		u.follow(u.post(path, url.Values{"name": {"Blanqueamiento LED"}, "duration": {"60"}, "color": {"#aa3300"},
			"professional_id": {itoa(a.Professionals["lopez"])}})).contains(t, "Saved.")
		if h.apiService(id) != nil {
			t.Fatal("an inactive service is still listed")
		}
		u.get("/app/settings/services").must(t, http.StatusOK).contains(t, "Blanqueamiento LED", "inactive")

		// The workspace file applies again over the dashboard's edits: its
		// own service is updated, the dashboard's one is left alone.
		reapply(t, h, "../workspace/testdata/acme.yaml")
		if n := h.count("services", "id = ? AND name = 'Blanqueamiento LED'", id); n != 1 {
			t.Fatal("re-applying the file lost the dashboard's service")
		}
	})
}

// api2List is the public services list.
func (h *harness) api2List(t *testing.T) []any {
	t.Helper()
	status, body := h.api("GET", "/api/v2/public/calendar/services", acmeKey, nil)
	if status != 200 {
		t.Fatalf("services: %d %v", status, body)
	}
	return body["data"].([]any)
}

func reapply(t *testing.T, h *harness, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&workspace.Applier{DB: h.store, Now: h.clock.Now, HashPassword: password.Hash}).Apply(context.Background(), data); err != nil {
		t.Fatalf("apply %s again: %v", file, err)
	}
}

// TestSettingsProfessionals: working hours and time off set in the
// dashboard change the free slots the public API gives at once; a new
// professional, a rename; refusals write nothing.
func TestSettingsProfessionals(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		lopez, cleaning := a.Professionals["lopez"], a.Services["cleaning"]
		u := h.signedIn("ana@acme.test", "ana-password")
		path := "/app/settings/professionals/" + itoa(lopez)
		u.get(path).must(t, http.StatusOK).contains(t, "Dr. López", `value="09:00-13:00, 15:00-19:00"`, "Limpieza dental")

		// Wednesday 25 Nov 2026: Dr. López does not work on Wednesdays.
		const wed = "2026-11-25"
		if n := h.slotCount(cleaning, wed); n != 0 {
			t.Fatalf("slots on a Wednesday before = %d", n)
		}
		hours := url.Values{"hours_mon": {"09:00-13:00, 15:00-19:00"}, "hours_tue": {"09:00-17:00"}, "hours_wed": {"10:00-12:00"}}
		u.follow(u.post(path+"/hours", hours)).must(t, http.StatusOK).contains(t, "Saved.", `value="10:00-12:00"`)
		if n := h.slotCount(cleaning, wed); n != 4 {
			t.Fatalf("slots on Wednesday 10:00-12:00 = %d, want 4", n)
		}
		var stored string
		store.QueryRow(t.Context(), `SELECT working_hours FROM professionals WHERE id = ?`, lopez).Scan(&stored)
		if stored != `{"mon":["09:00-13:00","15:00-19:00"],"tue":["09:00-17:00"],"wed":["10:00-12:00"]}` {
			t.Fatalf("stored hours %s", stored)
		}
		if n := h.auditRows("professional"); n != 1 {
			t.Fatalf("audit rows = %d", n)
		}

		// A day off empties the day; removing it gives the slots back.
		u.follow(u.post(path+"/time-off", url.Values{"day": {wed}})).must(t, http.StatusOK).contains(t, "Time off added.")
		if n := h.slotCount(cleaning, wed); n != 0 {
			t.Fatalf("slots on a day off = %d", n)
		}
		if n := h.slotCount(cleaning, "2026-11-30"); n == 0 {
			t.Fatal("the day off emptied another day")
		}
		var off string
		store.QueryRow(t.Context(), `SELECT time_off FROM professionals WHERE id = ?`, lopez).Scan(&off)
		// Madrid is UTC+1 in November.
		if !strings.Contains(off, `{"from":"2026-11-24T23:00:00Z","to":"2026-11-25T23:00:00Z"}`) || !strings.Contains(off, "2026-12-24T00:00:00Z") {
			t.Fatalf("stored time off %s", off)
		}
		// A range off 10:30-11:00 local only takes that slot.
		u.follow(u.post(path+"/time-off/remove", url.Values{"from": {"2026-11-24T23:00:00Z"}, "to": {"2026-11-25T23:00:00Z"}})).contains(t, "Time off removed.")
		u.follow(u.post(path+"/time-off", url.Values{"from": {wed + "T10:30"}, "to": {wed + "T11:00"}})).contains(t, "Time off added.")
		if n := h.slotCount(cleaning, wed); n != 3 {
			t.Fatalf("slots with half an hour off = %d, want 3", n)
		}
		if n := h.auditRows("professional"); n != 4 {
			t.Fatalf("audit rows = %d, want 4", n)
		}

		// Refusals: the reason, nothing written.
		for _, tc := range []struct {
			name, path string
			form       url.Values
			text       string
		}{
			{"not a range", "/hours", url.Values{"hours_mon": {"9-5"}}, "Write working hours as ranges"},
			{"end before start", "/hours", url.Values{"hours_mon": {"13:00-09:00"}}, "Write working hours as ranges"},
			{"overlap", "/hours", url.Values{"hours_mon": {"09:00-13:00, 12:00-14:00"}}, "may not overlap"},
			{"time off ends first", "/time-off", url.Values{"from": {wed + "T12:00"}, "to": {wed + "T11:00"}}, "Time off must end after it starts."},
			{"time off not a time", "/time-off", url.Values{"from": {"soon"}, "to": {wed + "T11:00"}}, "Give the time off a start and an end"},
			{"day not a date", "/time-off", url.Values{"day": {"25/11/2026"}}, "The day must be a date"},
			{"removing what is gone", "/time-off/remove", url.Values{"from": {"2020-01-01T00:00:00Z"}, "to": {"2020-01-02T00:00:00Z"}}, "no longer there"},
			{"empty name", "", url.Values{"name": {""}, "active": {"true"}}, "Give the professional a name."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				page := u.follow(u.post(path+tc.path, tc.form)).must(t, http.StatusOK)
				if !strings.Contains(page.Body, `class="flash error"`) || !strings.Contains(page.Body, tc.text) {
					t.Fatalf("no refusal %q; body: %.1500s", tc.text, page.Body)
				}
			})
		}
		if n := h.auditRows("professional"); n != 4 {
			t.Fatalf("audit rows after refusals = %d", n)
		}
		if n := h.slotCount(cleaning, wed); n != 3 {
			t.Fatalf("a refusal changed the slots: %d", n)
		}

		// A new professional; renamed and switched off.
		p := u.post("/app/settings/professionals", url.Values{"name": {"Dra. Martín"}, "active": {"true"}})
		page := u.follow(p).must(t, http.StatusOK).contains(t, "Professional added.")
		if !strings.Contains(page.Body, "Dra. Martín") {
			t.Fatal("new professional page")
		}
		u.follow(u.post(p.Location, url.Values{"name": {"Dra. Martín Ruiz"}})).contains(t, "Saved.")
		if n := h.count("professionals", "name = 'Dra. Martín Ruiz' AND NOT active AND file_key LIKE 'dashboard-%'"); n != 1 {
			t.Fatal("rename and switch-off not stored")
		}
		u.get("/app/settings/professionals").must(t, http.StatusOK).contains(t, "Dra. Martín Ruiz", "Dr. López", "10:00-12:00")
		if n := h.auditRows("professional"); n != 6 {
			t.Fatalf("audit rows = %d, want 6", n)
		}
		reapply(t, h, "../workspace/testdata/acme.yaml")
	})
}

// TestSettingsEventTypes: create, rename and switch off an event type; the
// services list shows the name at once.
func TestSettingsEventTypes(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get("/app/settings/event-types").must(t, http.StatusOK).contains(t, `value="In person"`)
		h.apiService(a.Services["cleaning"]) // cached now
		u.follow(u.post("/app/settings/event-types", url.Values{"name": {"Video call"}, "color": {"#123"}, "active": {"true"}})).
			must(t, http.StatusOK).contains(t, "Event type created.", `value="Video call"`)
		visit := a.EventTypes["visit"]
		u.follow(u.post("/app/settings/event-types/"+itoa(visit), url.Values{"name": {"At the clinic"}, "color": {"#2e7d32"}, "active": {"true"}})).contains(t, "Saved.")
		if got := refNames(h.apiService(a.Services["cleaning"]), "event_types"); len(got) != 1 || got[0] != "At the clinic" {
			t.Fatalf("API event types %v", got)
		}
		u.follow(u.post("/app/settings/event-types/"+itoa(visit), url.Values{"name": {"At the clinic"}, "color": {"#2e7d32"}})).contains(t, "Saved.")
		if got := refNames(h.apiService(a.Services["cleaning"]), "event_types"); len(got) != 0 {
			t.Fatalf("an inactive event type is offered: %v", got)
		}
		for _, form := range []url.Values{{"name": {""}}, {"name": {"x"}, "color": {"#12345"}}, {"name": {"video CALL"}}} {
			u.follow(u.post("/app/settings/event-types/"+itoa(visit), form)).contains(t, `class="flash error"`)
		}
		if n := h.auditRows("event_type"); n != 3 {
			t.Fatalf("audit rows = %d, want 3", n)
		}
	})
}

// TestSettingsWaitlistSchedules: the offer schedule is stored as the
// workspace file stores it; switching a list off clears its next run.
func TestSettingsWaitlistSchedules(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		main := h.acme().Waitlists["main"]
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get("/app/settings/waitlists").must(t, http.StatusOK).contains(t, "General", `value="15"`, `value="120"`, "Limpieza dental")
		path := "/app/settings/waitlists/" + itoa(main)
		u.follow(u.post(path, url.Values{"active": {"true"}, "run_every_minutes": {"5"}, "horizon_days": {"14"}, "seat_ttl_minutes": {"60"}, "max_offers": {"2"}})).
			must(t, http.StatusOK).contains(t, "Saved.")
		var every, ttl, horizon, maxOffers int64
		var next *int64
		store.QueryRow(t.Context(), `SELECT run_every_seconds, seat_ttl_seconds, horizon_days, max_offers, next_run_at FROM waitlists WHERE id = ?`, main).
			Scan(&every, &ttl, &horizon, &maxOffers, &next)
		if every != 300 || ttl != 3600 || horizon != 14 || maxOffers != 2 || next == nil || *next > db.Micros(testNow)+300_000_000 {
			t.Fatalf("stored schedule: every %d ttl %d horizon %d max %d next %v", every, ttl, horizon, maxOffers, next)
		}
		u.follow(u.post(path, url.Values{"run_every_minutes": {"5"}, "horizon_days": {"14"}, "seat_ttl_minutes": {"60"}, "max_offers": {"2"}})).contains(t, "Saved.")
		if n := h.count("waitlists", "id = ? AND NOT active AND next_run_at IS NULL", main); n != 1 {
			t.Fatal("switched off, the list kept its next run")
		}
		for _, tc := range []struct{ field, value, text string }{
			{"horizon_days", "0", "The horizon must be 1 to 365 days."},
			{"run_every_minutes", "0", "A list runs every 1 minute to 7 days."},
			{"run_every_minutes", "99999999999999999", "A list runs every 1 minute to 7 days."},
			{"seat_ttl_minutes", "20000", "A seat is held 1 minute to 7 days."},
			{"max_offers", "0", "Offers before review must be 1 to 100."},
			{"max_offers", "two", "Write whole numbers in every field."},
		} {
			form := url.Values{"active": {"true"}, "run_every_minutes": {"5"}, "horizon_days": {"14"}, "seat_ttl_minutes": {"60"}, "max_offers": {"2"}}
			form.Set(tc.field, tc.value)
			u.follow(u.post(path, form)).contains(t, `class="flash error"`, tc.text)
		}
		if n := h.auditRows("waitlist"); n != 2 {
			t.Fatalf("audit rows = %d, want 2", n)
		}
		reapply(t, h, "../workspace/testdata/acme.yaml")
	})
}

// TestSettingsAccess: staff get 403 on every settings page and action;
// another account's ids are a 404, like unknown ones, and change nothing;
// an owner reading in Spanish gets the pages and refusals in Spanish.
func TestSettingsAccess(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a, o := h.acme(), h.other()
		routes := []struct{ method, path string }{
			{"GET", "/app/settings/services"},
			{"POST", "/app/settings/services"},
			{"GET", "/app/settings/services/" + itoa(a.Services["cleaning"])},
			{"POST", "/app/settings/services/" + itoa(a.Services["cleaning"])},
			{"GET", "/app/settings/professionals"},
			{"POST", "/app/settings/professionals"},
			{"GET", "/app/settings/professionals/" + itoa(a.Professionals["lopez"])},
			{"POST", "/app/settings/professionals/" + itoa(a.Professionals["lopez"])},
			{"POST", "/app/settings/professionals/" + itoa(a.Professionals["lopez"]) + "/hours"},
			{"POST", "/app/settings/professionals/" + itoa(a.Professionals["lopez"]) + "/time-off"},
			{"POST", "/app/settings/professionals/" + itoa(a.Professionals["lopez"]) + "/time-off/remove"},
			{"GET", "/app/settings/event-types"},
			{"POST", "/app/settings/event-types"},
			{"POST", "/app/settings/event-types/" + itoa(a.EventTypes["visit"])},
			{"GET", "/app/settings/waitlists"},
			{"POST", "/app/settings/waitlists/" + itoa(a.Waitlists["main"])},
		}
		form := url.Values{"name": {"Staff was here"}, "duration": {"30"}, "active": {"true"}, "hours_mon": {"08:00-09:00"}, "day": {"2026-11-25"},
			"run_every_minutes": {"5"}, "horizon_days": {"5"}, "seat_ttl_minutes": {"5"}, "max_offers": {"5"}}
		sara := h.signedIn("sara@acme.test", "sara-password")
		for _, r := range routes {
			var p page
			if r.method == "GET" {
				p = sara.get(r.path)
			} else {
				p = sara.post(r.path, clone(form))
			}
			if p.Status != http.StatusForbidden {
				t.Errorf("staff %s %s = %d, want 403", r.method, r.path, p.Status)
			}
		}
		if n := h.count("audit_log", "1 = 1"); n != 0 {
			t.Fatalf("staff wrote %d audit rows", n)
		}
		if n := h.count("services", "name = 'Staff was here'") + h.count("professionals", "name = 'Staff was here'") + h.count("event_types", "name = 'Staff was here'"); n != 0 {
			t.Fatal("staff wrote")
		}

		// Another account's objects, seen by acme's owner: 404, nothing
		// written; unknown and malformed ids alike.
		ana := h.signedIn("ana@acme.test", "ana-password")
		for _, r := range []struct{ method, path string }{
			{"GET", "/app/settings/services/" + itoa(o.Services["cleaning"])},
			{"POST", "/app/settings/services/" + itoa(o.Services["cleaning"])},
			{"GET", "/app/settings/professionals/" + itoa(o.Professionals["jones"])},
			{"POST", "/app/settings/professionals/" + itoa(o.Professionals["jones"])},
			{"POST", "/app/settings/professionals/" + itoa(o.Professionals["jones"]) + "/hours"},
			{"POST", "/app/settings/professionals/" + itoa(o.Professionals["jones"]) + "/time-off"},
			{"POST", "/app/settings/professionals/" + itoa(o.Professionals["jones"]) + "/time-off/remove"},
			{"POST", "/app/settings/event-types/" + itoa(o.EventTypes["visit"])},
			{"POST", "/app/settings/waitlists/" + itoa(o.Waitlists["main"])},
			{"GET", "/app/settings/services/999999"},
			{"GET", "/app/settings/professionals/abc"},
			{"POST", "/app/settings/event-types/0"},
		} {
			var p page
			if r.method == "GET" {
				p = ana.get(r.path)
			} else {
				p = ana.post(r.path, clone(form))
			}
			if p.Status != http.StatusNotFound {
				t.Errorf("%s %s = %d, want 404", r.method, r.path, p.Status)
			}
		}
		if n := h.count("audit_log", "1 = 1"); n != 0 {
			t.Fatalf("404s wrote %d audit rows", n)
		}
		var name, hours string
		store.QueryRow(t.Context(), `SELECT name, working_hours FROM professionals WHERE id = ?`, o.Professionals["jones"]).Scan(&name, &hours)
		if name == "Staff was here" || strings.Contains(hours, "08:00") {
			t.Fatal("another account's professional changed")
		}

		// Eva reads Spanish.
		eva := h.signedIn("eva@acme.test", "eva-password")
		eva.get("/app/settings/professionals/"+itoa(a.Professionals["lopez"])).must(t, http.StatusOK).contains(t, "Horario", "Ausencias", "Miércoles")
		eva.follow(eva.post("/app/settings/professionals/"+itoa(a.Professionals["lopez"])+"/hours", url.Values{"hours_mon": {"9-5"}})).
			contains(t, "Escribe el horario como franjas")
	})
}
