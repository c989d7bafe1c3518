package dashboard_test

import (
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// getRoute is a GET pattern of routes.go ("pipelines/{pipeline_id}").
var getRoute = regexp.MustCompile(`"GET "\s*\+\s*(Prefix|p)\s*\+\s*"([^"]*)"`)

// getRoutes reads every page the dashboard serves from routes.go, so a new
// page fails TestEveryPageInSpanish until the test opens it.
func getRoutes(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range getRoute.FindAllStringSubmatch(string(src), -1) {
		path := m[2]
		if m[1] == "p" {
			path = "settings/" + path
		}
		if path != "static/" && !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	return out
}

// TestEveryPageInSpanish signs in as an owner and as staff, both in
// Spanish, opens every page of the dashboard with the fixture's data
// (a client, a card, a conversation, a real appointment to move) and fails
// on any text the Spanish catalogue does not have: a catalogue miss is
// English on a Spanish page (a label, a flash, a stored value shown raw).
// Staff get the owners' pages refused, and the refusal is in Spanish too.
func TestEveryPageInSpanish(t *testing.T) {
	routes := getRoutes(t)
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		sales := a.Pipelines["sales"]
		status, body := h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
			"client": map[string]any{"first_name": "Lola", "phone": "+34600555666"}, "service_id": a.Services["cleaning"],
			"professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
			"start_at": "2026-11-23T12:00:00", "end_at": "2026-11-23T12:30:00", "timezone": "Europe/Madrid"})
		if status != 200 {
			t.Fatalf("book: %d %v", status, body)
		}
		appt := itoa(int64(body["data"].(map[string]any)["id"].(float64)))
		var webhook int64
		if err := store.QueryRow(t.Context(), `SELECT id FROM webhooks ORDER BY id LIMIT 1`).Scan(&webhook); err != nil {
			t.Fatal(err)
		}
		spanishDayData(t, h)
		// Rooms, for Today by room: three appointments at once for two
		// rooms (the third in the "No room" column), a room's maintenance.
		h.applyYAML(roomsYAML)
		for range 3 {
			if status, body := h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
				"client": map[string]any{"first_name": "Lola", "phone": "+34600555666"}, "service_id": h.acme().Services["whitening"],
				"professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
				"start_at": "2026-11-23T11:00:00", "end_at": "2026-11-23T11:30:00", "timezone": "Europe/Madrid"}); status != 200 {
				t.Fatalf("book a room: %d %v", status, body)
			}
		}
		eva := h.signedIn("eva@acme.test", "eva-password")
		// A waiting-list entry for the afternoon, and a stage move: the
		// client page shows both, the card its history.
		eva.post("/app/clients/"+itoa(a.Clients["maria"])+"/waitlist", url.Values{"service_id": {itoa(a.Services["cleaning"])},
			"priority": {"1"}, "time_preference": {"afternoon"}}).must(t, http.StatusSeeOther)
		var entry int64
		if err := store.QueryRow(t.Context(), `SELECT id FROM waitlist_entries WHERE client_id = ? ORDER BY id DESC LIMIT 1`, a.Clients["maria"]).Scan(&entry); err != nil {
			t.Fatal(err)
		}
		m := inviteLink.FindStringSubmatch(eva.post("/app/settings/team/invitations",
			url.Values{"email": {"nina@acme.test"}, "name": {"Nina"}, "role": {"staff"}}).must(t, http.StatusOK).Body)
		if m == nil {
			t.Fatal("no invitation link")
		}
		// Each route's page with the fixture's ids; "" is the route itself.
		paths := map[string]string{
			"":                        "",
			"{$}":                     "",
			"login":                   "login",
			"keys":                    "keys",
			"pipelines":               "pipelines",
			"pipelines/{pipeline_id}": "pipelines/" + itoa(sales),
			"pipelines/{pipeline_id}/cards/{card_id}": "pipelines/" + itoa(sales) + "/cards/" + itoa(cardOf(t, store, a.Clients["maria"], sales)),
			"waitlists": "waitlists",
			"calendar":  "calendar?date=2026-11-23",
			"activity":  "activity",
			"today":     "today",
			"book":      "book?service_id=" + itoa(a.Services["cleaning"]) + "&professional_id=" + itoa(a.Professionals["lopez"]) + "&start=2026-11-24T09:00:00Z&q=Mar",
			"appointments/{appointment_id}/reschedule": "appointments/" + appt + "/reschedule?date=2026-11-24",
			"clients":                                  "clients",
			"clients/new":                              "clients/new",
			"clients/{client_id}":                      "clients/" + itoa(a.Clients["maria"]),
			"conversations":                            "conversations",
			"conversations/{session_id}":               "conversations/" + itoa(a.Conversations["c1"]),
			"settings/services":                        "settings/services",
			"settings/services/{service_id}":           "settings/services/" + itoa(a.Services["cleaning"]),
			"settings/booking-rules":                   "settings/booking-rules",
			"settings/professionals":                   "settings/professionals",
			"settings/professionals/{professional_id}": "settings/professionals/" + itoa(a.Professionals["lopez"]),
			"settings/event-types":                     "settings/event-types",
			"settings/resources":                       "settings/resources",
			"settings/waitlists":                       "settings/waitlists",
			"settings":                                 "settings",
			"settings/{$}":                             "settings/",
			"settings/notifications":                   "settings/notifications",
			"settings/webhooks":                        "settings/webhooks",
			"settings/webhooks/{webhook_id}":           "settings/webhooks/" + itoa(webhook),
			"settings/team":                            "settings/team",
			"settings/audit":                           "settings/audit",
			"settings/retention":                       "settings/retention",
			"settings/channels":                        "settings/channels",
			"settings/calendar-feeds":                  "settings/calendar-feeds",
			"settings/booking-page":                    "settings/booking-page",
			"settings/me":                              "settings/me",
			"invite/{token}":                           strings.TrimPrefix(m[1], "/app/"),
			"waitlists/offer":                          "waitlists/offer?professional_id=" + itoa(a.Professionals["lopez"]) + "&service_id=" + itoa(a.Services["cleaning"]) + "&start=2026-11-24T09:00:00Z",
			"waitlists/entries/{entry_id}/book":        "waitlists/entries/" + itoa(entry) + "/book",
			"clients/suggest":                          "clients/suggest?q=Mar",
			"conversations/patient/{client_id}":        "conversations/patient/" + itoa(a.Clients["maria"]),
			"settings/quick-replies":                   "settings/quick-replies",
			"clients/{client_id}/export":               "clients/" + itoa(a.Clients["maria"]) + "/export",
			"clients/{client_id}/erase":                "clients/" + itoa(a.Clients["maria"]) + "/erase",
			"reports":                                  "reports?from=2026-11-01&to=2026-11-30",
			"reports/{file}":                           "reports/messages.csv?from=2026-11-01&to=2026-11-30",
		}
		for _, r := range routes {
			if _, ok := paths[r]; !ok {
				t.Errorf("routes.go serves GET %s: open it in TestEveryPageInSpanish", r)
			}
		}
		// A page's other modes, opened too: Today by room (docs/today.md).
		modes := []string{"today?date=2026-11-23&by=room"}

		sara := h.signedIn("sara@acme.test", "sara-password")
		sara.post("/app/settings/me", url.Values{"language": {"es"}}).must(t, http.StatusSeeOther)
		misses, stop := dashboard.RecordMisses()
		defer stop()
		check := func(who, path string) {
			t.Helper()
			if m := misses(); len(m) > 0 {
				var keys []string
				for k := range m {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				t.Errorf("%s %s: no Spanish for %q", who, path, keys)
			}
		}
		// Signed out: the sign-in page and the invitation, in the browser's Spanish.
		for _, path := range []string{"login", paths["invite/{token}"]} {
			u := h.newUser()
			req, _ := http.NewRequest("GET", h.srv.URL+"/app/"+path, nil)
			req.Header.Set("Accept-Language", "es-ES,es;q=0.9")
			u.do(req).must(t, http.StatusOK).contains(t, `<html lang="es">`)
			check("signed out", path)
		}
		for _, who := range []struct {
			name  string
			u     *user
			owner bool
		}{{"owner", eva, true}, {"staff", sara, false}} {
			for _, r := range routes {
				path, ok := paths[r]
				if !ok || r == "login" || r == "invite/{token}" {
					continue
				}
				p := who.u.get("/app/" + path)
				if r == "clients/suggest" || r == "reports/{file}" { // the header's type-ahead (JSON, names as stored), a report's CSV
					p.must(t, http.StatusOK)
					check(who.name, path)
					continue
				}
				if r == "clients/{client_id}/export" && who.owner { // a JSON download (docs/data-rights.md)
					p.must(t, http.StatusOK)
					check(who.name, path)
					continue
				}
				switch {
				case p.Status == http.StatusSeeOther:
				case p.Status == http.StatusForbidden && !who.owner:
				case p.Status != http.StatusOK:
					t.Errorf("%s %s: status %d: %.300s", who.name, path, p.Status, p.Body)
					continue
				}
				if p.Status != http.StatusSeeOther && !strings.Contains(p.Body, `<html lang="es">`) {
					t.Errorf("%s %s is not in Spanish", who.name, path)
				}
				check(who.name, path)
			}
			for _, path := range modes {
				who.u.get("/app/"+path).must(t, http.StatusOK).contains(t, `<html lang="es">`, "Por sala", "Sin sala", "Mantenimiento")
				check(who.name, path)
			}
		}
		// Stored values and days read in Spanish: a waiting-list entry's
		// evening and its dates, a source.
		eva.get("/app/waitlists").must(t, http.StatusOK).contains(t, "noche", "mar 1 dic 2026", "jue 31 dic 2026")
		eva.get("/app/calendar?date=2026-11-23").must(t, http.StatusOK).contains(t, "lunes, 23 de noviembre de 2026", "página de reservas", "recepción")
	})
}

// spanishDayData fills acme's day with what pages show as stored values:
// appointments from every door in every status, messages of every kind and
// status, a conversation's sentiment, a held seat offer.
func spanishDayData(t *testing.T, h *harness) {
	t.Helper()
	a := h.acme()
	acct := h.account("acme").ID
	svc, pro, visit := a.Services["cleaning"], a.Professionals["lopez"], a.EventTypes["visit"]
	for i, appt := range []struct{ source, status string }{
		{"dashboard", "booked"}, {"booking_page", "arrived"}, {"waitlist", "completed"}, {"api", "no_show"}, {"workspace", "cancelled"},
	} {
		start := at("2026-11-23", "13:00").Add(time.Duration(i) * time.Hour)
		if _, err := h.store.Exec(t.Context(), `INSERT INTO appointments (account_id, client_id, service_id, professional_id, event_type_id,
			start_at, end_at, timezone, status, source, confirmation_status, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, 'Europe/Madrid', ?, ?, 'pending', ?, ?)`, acct, a.Clients["maria"], svc, pro, visit,
			db.Micros(start), db.Micros(start.Add(30*time.Minute)), appt.status, appt.source, db.Micros(testNow), db.Micros(testNow)); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []struct{ kind, status, source string }{
		{"booking_confirmation", "sent", "booking"}, {"booking_reminder", "pending", "booking"}, {"seat_offer", "delivered", "waitlist"},
		{"team_reply", "failed", "chat_message"}, {"channel_reply", "suppressed", "channel"}, {"verification_code", "read", "verification"},
		{"automation_message", "cancelled", "add"}, {"sequence_message", "sent", "ingest"}, {"webhook", "sent", "event:appointment.booked"},
	} {
		if _, err := h.store.Exec(t.Context(), `INSERT INTO outbox (account_id, kind, channel, recipient, body, status, attempts, scheduled_at, created_at, source_type)
			VALUES (?, ?, 'sms', '+34600111222', 'Hola', ?, 1, ?, ?, ?)`, acct, m.kind, m.status, db.Micros(testNow), db.Micros(testNow), m.source); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.store.Exec(t.Context(), `UPDATE conversations SET sentiment = 'positive' WHERE id = ?`, a.Conversations["c1"]); err != nil {
		t.Fatal(err)
	}
	if status, body := h.api("POST", "/api/v2/public/calendar/waitlist/entries", acmeKey, map[string]any{"phone": "+34600777888", "first_name": "Nora",
		"service_ids": []int64{svc}, "time_preference": "evening", "earliest_date": "2026-12-01", "latest_date": "2026-12-31"}); status != 200 {
		t.Fatalf("waiting-list entry: %d %v", status, body)
	}
	h.addHeldEntry("acme", a.Waitlists["main"], a.Clients["pedro"], svc, pro, at("2026-11-24", "15:00"), testNow.Add(2*time.Hour))
}
