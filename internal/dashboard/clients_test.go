package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

func TestClientCreate(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		maria := h.acme().Clients["maria"]
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get("/app/clients").must(t, http.StatusOK).contains(t, `href="/app/clients/new"`, "New client")
		u.get("/app/clients/new").must(t, http.StatusOK).contains(t, `action="/app/clients"`, `<label for="phone">`)

		// Happy path: the phone typed without a country code takes the
		// account's region; the browser lands on the new client's page.
		p := u.post("/app/clients", url.Values{"first_name": {"Lola"}, "last_name": {"Pérez"}, "phone": {"600 555 777"},
			"email": {"lola@example.com"}, "company": {"Flores SL"}, "tags": {"new, vip"}, "notes": {"Prefers mornings"}}).must(t, http.StatusSeeOther)
		if !strings.HasPrefix(p.Location, "/app/clients/") {
			t.Fatalf("redirect to %q", p.Location)
		}
		u.follow(p).must(t, http.StatusOK).contains(t, "Client Lola Pérez created.", "34600555777", `value="lola@example.com"`, "Prefers mornings", "vip")
		if n := h.count("clients", "phone_cc = 34 AND phone_national = '600555777' AND email_norm = 'lola@example.com'"); n != 1 {
			t.Fatalf("created rows = %d", n)
		}
		total := h.count("clients", "1 = 1")

		for _, test := range []struct {
			name  string
			form  url.Values
			wants []string
		}{
			{"duplicate phone", url.Values{"first_name": {"Otra"}, "phone": {"+34 600 111 222"}},
				[]string{"34 600 111 222 already belongs to María García.", `href="/app/clients/` + itoa(maria) + `"`, "Open María García", `value="Otra"`}},
			{"duplicate phone, national", url.Values{"first_name": {"Otra"}, "phone": {"600111222"}},
				[]string{"already belongs to María García", `href="/app/clients/` + itoa(maria) + `"`}},
			{"duplicate e-mail", url.Values{"first_name": {"Otra"}, "email": {"MARIA@example.com"}},
				[]string{"The e-mail MARIA@example.com already belongs to María García.", `href="/app/clients/` + itoa(maria) + `"`}},
			{"invalid phone", url.Values{"first_name": {"Otra"}, "phone": {"12"}}, []string{"This is not a phone number we can reach", `value="12"`}},
			{"missing name", url.Values{"phone": {"+34600000001"}}, []string{"A client needs a first or last name."}},
			{"no phone nor e-mail", url.Values{"first_name": {"Otra"}}, []string{"A client needs a phone or an e-mail."}},
		} {
			t.Run(test.name, func(t *testing.T) {
				u.post("/app/clients", test.form).must(t, http.StatusUnprocessableEntity).contains(t, test.wants...)
			})
		}
		if n := h.count("clients", "1 = 1"); n != total {
			t.Fatalf("refusals wrote clients: %d, want %d", n, total)
		}

		// Staff create clients too; Eva reads the refusal in Spanish.
		s := h.signedIn("sara@acme.test", "sara-password")
		s.follow(s.post("/app/clients", url.Values{"first_name": {"Staffed"}, "email": {"staffed@example.com"}})).contains(t, "Client Staffed created.")
		e := h.signedIn("eva@acme.test", "eva-password")
		e.post("/app/clients", url.Values{"first_name": {"Otra"}, "phone": {"600111222"}}).must(t, http.StatusUnprocessableEntity).
			contains(t, "El teléfono 600111222 ya pertenece a María García.", "Abrir María García")
	})
}

// TestClientCreateConcurrently: two (here four) receptionists saving the
// same phone at once make one client; the others see who has it.
func TestClientCreateConcurrently(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		const n = 4
		users := make([]*user, n)
		for i := range users {
			users[i] = h.signedIn("ana@acme.test", "ana-password")
		}
		pages := make([]page, n)
		var wg sync.WaitGroup
		for i := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pages[i] = users[i].post("/app/clients", url.Values{"first_name": {"Twin"}, "phone": {"+34 611 222 333"}})
			}()
		}
		wg.Wait()
		created := 0
		for _, p := range pages {
			switch p.Status {
			case http.StatusSeeOther:
				created++
			case http.StatusUnprocessableEntity:
				p.contains(t, "already belongs to Twin")
			default:
				t.Fatalf("status %d: %.300s", p.Status, p.Body)
			}
		}
		if rows := h.count("clients", "phone_national = '611222333'"); created != 1 || rows != 1 {
			t.Fatalf("created %d, rows %d; want 1 and 1", created, rows)
		}
	})
}

// TestClientPageShowsEverything: the client's page lists appointments
// (upcoming, then past), waiting-list entries (open and resolved), cards,
// conversations and consent per channel, each seeded through the API or
// the area that owns it.
func TestClientPageShowsEverything(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		a := h.acme()
		maria := a.Clients["maria"]
		book := func(start string) int64 {
			t.Helper()
			status, body := h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
				"client": map[string]any{"first_name": "María", "phone": "+34600111222"}, "service_id": a.Services["cleaning"],
				"professional_id": a.Professionals["lopez"], "event_type_id": a.EventTypes["visit"],
				"start_at": start + ":00", "end_at": start[:11] + "10:30:00", "timezone": "Europe/Madrid"})
			if status != 200 {
				t.Fatalf("book: %d %v", status, body)
			}
			return int64(body["data"].(map[string]any)["id"].(float64))
		}
		book("2026-11-25T10:00")
		past := book("2026-11-30T10:00")
		// The second one happened last month (moved in the store: the API
		// books only the future).
		if _, err := store.Exec(t.Context(), `UPDATE appointments SET start_at = ?, end_at = ?, status = 'completed' WHERE id = ?`,
			db.Micros(time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC)), db.Micros(time.Date(2026, 10, 5, 9, 30, 0, 0, time.UTC)), past); err != nil {
			t.Fatal(err)
		}
		status, body := h.api("POST", "/api/v2/public/calendar/waitlist/entries", acmeKey, map[string]any{
			"client_id": maria, "service_ids": []int64{a.Services["cleaning"]}, "notes": "mornings please"})
		if status != 200 {
			t.Fatalf("waitlist: %d %v", status, body)
		}
		acct := h.account("acme")
		wa, err := channels.ByKeyWithoutCredentials(t.Context(), store, acct, "wa")
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Transact(t.Context(), func(tx *db.Tx) error {
			_, err := channels.SetConsent(context.Background(), tx, acct, maria, wa.ID, true, testNow)
			return err
		}); err != nil {
			t.Fatal(err)
		}

		u := h.signedIn("ana@acme.test", "ana-password")
		p := u.get("/app/clients/"+itoa(maria)).must(t, http.StatusOK)
		for _, want := range []string{
			// appointments: upcoming first, then past
			"Upcoming", "Wed 25 Nov 2026, 10:00", "Limpieza dental", "Dr. López", "Past", "Mon 5 Oct 2026, 11:00", "completed",
			// the waiting list
			"General", "mornings please", "waiting", "position 1",
			// the card and its page
			"Sales", `href="/app/pipelines/` + itoa(a.Pipelines["sales"]) + `/cards/`,
			// the conversation
			`href="/app/conversations/` + itoa(a.Conversations["c1"]) + `"`, "resolved",
			// consent per channel
			"opted out", "<td>wa</td>", "WhatsApp",
			// the add form
			`action="/app/clients/` + itoa(maria) + `/waitlist"`,
		} {
			p.contains(t, want)
		}
		if strings.Index(p.Body, "Wed 25 Nov 2026") > strings.Index(p.Body, "Mon 5 Oct 2026") {
			t.Fatal("past appointment listed before the upcoming one")
		}
	})
}

func TestClientAddToWaitlist(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		pedro := a.Clients["pedro"]
		if _, err := store.Exec(t.Context(), `UPDATE webhooks SET events = '["waitlist.entry_created"]'`); err != nil {
			t.Fatal(err)
		}
		u := h.signedIn("ana@acme.test", "ana-password")
		path := "/app/clients/" + itoa(pedro)
		u.get(path).must(t, http.StatusOK).contains(t, "Not on any waiting list.", `<option value="`+itoa(a.Waitlists["main"])+`">General</option>`)

		form := url.Values{"waitlist_id": {itoa(a.Waitlists["main"])}, "service_id": {itoa(a.Services["cleaning"])}, "priority": {"1"},
			"time_preference": {"morning"}, "notes": {"after 10 please"}}
		p := u.post(path+"/waitlist", form).must(t, http.StatusSeeOther)
		if p.Location != path+"#waitlist" {
			t.Fatalf("redirect to %q", p.Location)
		}
		u.follow(p).must(t, http.StatusOK).contains(t, "Added to the waiting list for Limpieza dental.", "General", "after 10 please", "high")
		if n := h.count("waitlist_entries", "client_id = ? AND status = 'waiting' AND priority = 1 AND time_preference = 'morning'", pedro); n != 1 {
			t.Fatalf("entries = %d", n)
		}
		webhooks := func() int {
			return h.count("outbox", "kind = 'webhook' AND source_type = 'event:waitlist.entry_created'")
		}
		if n := webhooks(); n != 1 {
			t.Fatalf("waitlist.entry_created deliveries = %d, want 1", n)
		}

		// Again: already waiting; no second entry, no second event.
		u.follow(u.post(path+"/waitlist", form)).contains(t, "Already waiting for Limpieza dental")
		if n := h.count("waitlist_entries", "client_id = ?", pedro); n != 1 || webhooks() != 1 {
			t.Fatalf("entries = %d, deliveries = %d after a repeat", n, webhooks())
		}

		// Refusals come back as a message on the client's page.
		for _, test := range []struct {
			name string
			form url.Values
			want string
		}{
			{"no service", url.Values{"waitlist_id": {""}}, "Choose the services the client waits for."},
			{"unknown service", url.Values{"service_id": {"999999"}}, "That service does not exist or is no longer offered."},
			{"another account's service", url.Values{"service_id": {itoa(h.other().Services["cleaning"])}}, "That service does not exist"},
			{"bad priority", url.Values{"service_id": {itoa(a.Services["cleaning"])}, "priority": {"9"}}, "Choose a priority"},
			{"bad time of day", url.Values{"service_id": {itoa(a.Services["cleaning"])}, "time_preference": {"night"}}, "Choose a time of day"},
		} {
			t.Run(test.name, func(t *testing.T) {
				p := u.post(path+"/waitlist", test.form).must(t, http.StatusSeeOther)
				u.get(p.Location).must(t, http.StatusOK).contains(t, `class="flash error"`, test.want)
			})
		}
		// Eva reads the page and its messages in Spanish.
		e := h.signedIn("eva@acme.test", "eva-password")
		e.follow(e.post(path+"/waitlist", clone(form))).contains(t, "Ya espera por Limpieza dental", "Añadir a una lista de espera", "en espera", "alta")
		if _, err := store.Exec(t.Context(), `UPDATE waitlists SET active = ? WHERE id = ?`, false, a.Waitlists["main"]); err != nil {
			t.Fatal(err)
		}
		u.follow(u.post(path+"/waitlist", clone(form))).contains(t, "That waiting list is paused")
		e.follow(e.post(path+"/waitlist", clone(form))).contains(t, "Esa lista de espera está en pausa")
		if webhooks() != 1 {
			t.Fatal("a refusal queued a webhook")
		}
	})
}

// TestClientRoutesOtherAccount: another account's client is a 404 on every
// route of the part, and nothing is written.
func TestClientRoutesOtherAccount(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		theirs := h.other().Clients["maria"]
		u := h.signedIn("ana@acme.test", "ana-password")
		for _, id := range []string{itoa(theirs), "999999", "abc"} {
			path := "/app/clients/" + id
			u.get(path).must(t, http.StatusNotFound)
			for _, post := range []struct {
				path string
				form url.Values
			}{
				{path, url.Values{"first_name": {"Hacked"}}},
				{path + "/tags", url.Values{"name": {"hacked"}}},
				{path + "/tags/remove", url.Values{"tag_id": {"1"}}},
				{path + "/waitlist", url.Values{"service_id": {itoa(h.other().Services["cleaning"])}}},
			} {
				u.post(post.path, post.form).must(t, http.StatusNotFound)
			}
		}
		// Another account's waiting list, named on our client's form.
		u.post("/app/clients/"+itoa(h.acme().Clients["pedro"])+"/waitlist", url.Values{"waitlist_id": {itoa(h.other().Waitlists["main"])},
			"service_id": {itoa(h.acme().Services["cleaning"])}}).must(t, http.StatusNotFound)
		if n := h.count("clients", "first_name = 'Hacked'") + h.count("waitlist_entries", "1 = 1") + h.count("tags", "name = 'hacked'"); n != 0 {
			t.Fatalf("%d rows written through another account's ids", n)
		}
	})
}

// clone copies a form: post writes the user's CSRF token into the one it
// is given.
func clone(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		if k != "csrf_token" {
			out[k] = append([]string(nil), vs...)
		}
	}
	return out
}
