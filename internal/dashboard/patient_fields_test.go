package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// mariaForm is María's whole record as the client form sends it, with the
// DNI/NIE and insurer given.
func mariaForm(nationalID, insurer, policy string) url.Values {
	return url.Values{"first_name": {"María"}, "last_name": {"García"}, "email": {"maria@example.com"},
		"national_id": {nationalID}, "insurer": {insurer}, "insurance_policy": {policy}, "data": {`{"plan": "gold"}`}}
}

// storedIDs reads a client's national id, insurer and policy number.
func (h *harness) storedIDs(client int64) (string, string, string) {
	h.t.Helper()
	var id, ins, pol string
	if err := h.store.QueryRow(context.Background(), `SELECT national_id, insurer, insurance_policy FROM clients WHERE id = ?`, client).Scan(&id, &ins, &pol); err != nil {
		h.t.Fatal(err)
	}
	return id, ins, pol
}

// TestPatientNationalID: the client form checks the DNI/NIE with
// contact.NationalID (docs/patient-fields.md) and stores it normalised;
// the search (Clients page and type-ahead) finds the patient by it typed
// in any case and with spaces or dashes.
func TestPatientNationalID(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		u := h.signedIn("ana@acme.test", "ana-password")
		maria := h.acme().Clients["maria"]
		page := "/app/clients/" + itoa(maria)
		for _, test := range []struct {
			name, in, want string // want "" with refusal: refused
			refusal        string
		}{
			{"valid DNI", "12345678Z", "12345678Z", ""},
			{"valid NIE", "X1234567L", "X1234567L", ""},
			{"spaces and lower case", " 12 345 678 z ", "12345678Z", ""},
			{"dashes and lower case NIE", "y-1234567-x", "Y1234567X", ""},
			{"bad letter", "12345678A", "", "does not match its number"},
			{"bad length", "1234567Z", "", "is not a DNI"},
			{"NIE too long", "X12345678L", "", "is not a DNI"},
			{"empty clears", "", "", ""},
		} {
			t.Run(test.name, func(t *testing.T) {
				before, _, _ := h.storedIDs(maria)
				u.get(page)
				p := u.post(page, mariaForm(test.in, "Sanitas", "POL-77"))
				got, ins, pol := h.storedIDs(maria)
				if test.refusal != "" {
					u.follow(p).contains(t, test.refusal)
					if got != before {
						t.Fatalf("a refused DNI changed the stored one from %q to %q", before, got)
					}
					return
				}
				u.follow(p).must(t, http.StatusOK).contains(t, "Client saved.", `value="`+test.want+`"`)
				if got != test.want || ins != "Sanitas" || pol != "POL-77" {
					t.Fatalf("stored %q %q %q, want %q", got, ins, pol, test.want)
				}
			})
		}
		// Too long an insurer is refused.
		u.get(page)
		u.follow(u.post(page, mariaForm("12345678Z", strings.Repeat("a", 101), ""))).contains(t, "The insurer may have at most 100 characters")

		u.get(page)
		u.follow(u.post(page, mariaForm("12345678Z", "Sanitas", "POL-77"))).contains(t, "Client saved.")
		for _, q := range []string{"12345678Z", "12345678z", "12345678 z", "12.345.678-Z", "1234 5678", "12345678"} {
			p := u.get("/app/clients?q=" + url.QueryEscape(q))
			if p.Status != http.StatusSeeOther || p.Location != page {
				t.Errorf("search %q: %d %q, want the patient's page", q, p.Status, p.Location)
			}
			if s := suggest(t, u, q); len(s.Clients) != 1 || s.Clients[0].ID != maria {
				t.Errorf("suggest %q: %+v", q, s)
			}
		}
		// A wrong letter finds nobody; the name still finds her.
		u.get("/app/clients?q=12345678A").must(t, http.StatusOK).contains(t, "No client matches")
		// Spanish: the refusal in the user's language.
		eva := h.signedIn("eva@acme.test", "eva-password")
		eva.get(page)
		eva.follow(eva.post(page, mariaForm("12345678A", "", ""))).contains(t, "no corresponde a su número")
	})
}

// suggestAnswer is the type-ahead's JSON.
type suggestAnswer struct {
	Clients []struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Phone string `json:"phone"`
		URL   string `json:"url"`
	} `json:"clients"`
	Total int `json:"total"`
}

func suggest(t *testing.T, u *user, q string) suggestAnswer {
	t.Helper()
	p := u.get("/app/clients/suggest?q="+url.QueryEscape(q)).must(t, http.StatusOK)
	if ct := p.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("content type %q", ct)
	}
	var out suggestAnswer
	if err := json.Unmarshal([]byte(p.Body), &out); err != nil {
		t.Fatalf("%v: %s", err, p.Body)
	}
	return out
}

// TestClientSuggest: the header's type-ahead answers the one search as
// JSON, at most 8 clients, only the session's account's, and 401 without
// a session; every signed-in page has the header's search form.
func TestClientSuggest(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a, o := h.acme(), h.other()
		u := h.signedIn("ana@acme.test", "ana-password")
		s := suggest(t, u, "maria")
		if len(s.Clients) != 1 || s.Clients[0].ID != a.Clients["maria"] || s.Clients[0].Name != "María García" ||
			s.Clients[0].Phone != "+34600111222" || s.Clients[0].URL != "/app/clients/"+itoa(a.Clients["maria"]) || s.Total != 1 {
			t.Fatalf("suggest maria: %+v", s)
		}
		if s := suggest(t, u, ""); len(s.Clients) != 0 || s.Total != 0 {
			t.Fatalf("an empty query suggested %+v", s)
		}
		for i := range 10 {
			u.get("/app/clients/new")
			u.post("/app/clients", url.Values{"first_name": {"Zoe"}, "last_name": {"Test " + itoa(int64(i))}, "phone": {"+3461100000" + itoa(int64(i))}}).must(t, http.StatusSeeOther)
		}
		if s := suggest(t, u, "zoe"); len(s.Clients) != 8 || s.Total != 10 {
			t.Fatalf("suggest zoe: %d clients of %d, want 8 of 10", len(s.Clients), s.Total)
		}
		// Account B's María has the same name and phone: each account sees
		// its own only.
		bob := h.signedIn("bob@other.test", "bob-password")
		for _, q := range []string{"maria", "600111222"} {
			for _, c := range suggest(t, u, q).Clients {
				if c.ID == o.Clients["maria"] {
					t.Fatalf("acme's suggest %q returned account B's María", q)
				}
			}
			if s := suggest(t, bob, q); len(s.Clients) != 1 || s.Clients[0].ID != o.Clients["maria"] {
				t.Fatalf("B's suggest %q: %+v", q, s)
			}
		}
		// Without a session: 401 as JSON, no client.
		anon := h.newUser()
		p := anon.get("/app/clients/suggest?q=maria")
		if p.Status != http.StatusUnauthorized || strings.Contains(p.Body, "María") || !strings.HasPrefix(p.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("signed out: %d %q %s", p.Status, p.Header.Get("Content-Type"), p.Body)
		}
		// The header's search on signed-in pages, none on the sign-in page.
		for _, path := range []string{"/app/today", "/app/clients", "/app/calendar", "/app/settings/me"} {
			u.get(path).must(t, http.StatusOK).contains(t, `action="/app/clients" class="header-search" role="search"`,
				`data-suggest="/app/clients/suggest"`, `role="combobox"`, `aria-expanded="false"`, `role="listbox"`)
		}
		anon.get("/app/login").lacks(t, "header-search")
		h.signedIn("eva@acme.test", "eva-password").get("/app/today").must(t, http.StatusOK).
			contains(t, `placeholder="Buscar paciente"`, `aria-label="Pacientes encontrados"`)
	})
}

// TestPatientPageActions: the patient's page moves and cancels each booked
// appointment, books for the patient through Today, and links to the
// patient's messages; the no-show and late-cancel counts stay.
func TestPatientPageActions(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("ana@acme.test", "ana-password")
		maria := a.Clients["maria"]
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		next := h.addAppointment("acme", maria, svc, pro, visit, at("2026-11-24", "10:00"), "pending")
		later := h.addAppointment("acme", maria, svc, pro, visit, at("2026-11-25", "10:00"), "pending")
		page := "/app/clients/" + itoa(maria)
		u.get(page).must(t, http.StatusOK).contains(t,
			`href="/app/appointments/`+itoa(next)+`/reschedule?return=client&amp;date=2026-11-24"`,
			`action="/app/appointments/`+itoa(next)+`/cancel" data-confirm="Cancel the appointment on Tue 24 Nov 2026, 10:00?"`,
			`action="/app/appointments/`+itoa(later)+`/cancel"`,
			`name="back" value="/app/clients/`+itoa(maria)+`#appointments"`,
			`href="/app/today?client_id=`+itoa(maria)+`"`,
			`href="/app/conversations/patient/`+itoa(maria)+`"`,
			"No-shows: 0", "Late cancels: 0")

		// Cancel goes back to the patient's page.
		c := u.post("/app/appointments/"+itoa(later)+"/cancel", url.Values{"back": {page + "#appointments"}})
		if c.Status != http.StatusSeeOther || strings.TrimSuffix(c.Location, "#appointments") != page {
			t.Fatalf("cancel: %d %q", c.Status, c.Location)
		}
		if h.count("appointments", "id = ? AND status = 'cancelled'", later) != 1 {
			t.Fatal("not cancelled")
		}
		// Move through the reschedule page, back to the patient's page.
		u.get("/app/appointments/"+itoa(next)+"/reschedule?return=client&date=2026-11-24").must(t, http.StatusOK).
			contains(t, "Back to the client", `name="return" value="client"`)
		m := u.post("/app/appointments/"+itoa(next)+"/reschedule", url.Values{"start": {"2026-11-24T11:00"}, "return": {"client"}})
		if m.Status != http.StatusSeeOther || m.Location != page+"#appointments" {
			t.Fatalf("move: %d %q %.500s", m.Status, m.Location, m.Body)
		}
		u.get(page).contains(t, "Tue 24 Nov 2026, 11:00")

		// Book: Today with the patient chosen carries her into every Book
		// link, and the booking form shows her checked.
		today := u.get("/app/today?client_id="+itoa(maria)+"&date=2026-11-23").must(t, http.StatusOK).contains(t, "Booking for María García", "client_id="+itoa(maria), "view=week&amp;client_id="+itoa(maria), `name="client_id" value="`+itoa(maria)+`"`)
		link := strings.ReplaceAll(bookLink(pro, svc, at("2026-11-23", "16:30")), "&amp;", "&")
		v, _ := url.ParseQuery(strings.SplitN(link, "?", 2)[1])
		v.Set("client_id", itoa(maria))
		if !strings.Contains(today.Body, strings.ReplaceAll("/app/book?"+v.Encode(), "&", "&amp;")) {
			t.Fatalf("no Book link for María: %q", regexp.MustCompile(`/app/book\?[^"]*`).FindAllString(today.Body, 3))
		}
		u.get("/app/book?"+v.Encode()).must(t, http.StatusOK).contains(t, `id="client-`+itoa(maria)+`" name="client_id" value="`+itoa(maria)+`" checked`)
		// Another account's client is not found.
		u.get("/app/today?client_id="+itoa(h.other().Clients["maria"])).must(t, http.StatusNotFound)
	})
}

// TestWorkspaceNationalID: the workspace file's clients take national_id,
// insurer and insurance_policy through the same rules, normalised, and
// refuse a bad DNI/NIE; the search finds the patient by it.
func TestWorkspaceNationalID(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		apply := func(clients string) error {
			file := "account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}\nclients:\n" + clients
			_, err := (&workspace.Applier{DB: store, Now: h.clock.Now, HashPassword: password.Hash, Targets: outbound.Policy{AllowPrivate: true}}).Apply(t.Context(), []byte(file))
			return err
		}
		maria := h.acme().Clients["maria"]
		if err := apply(`  - {key: maria, national_id: "x-1234567-l", insurer: " Adeslas ", insurance_policy: "A-1"}` + "\n"); err != nil {
			t.Fatal(err)
		}
		if id, ins, pol := h.storedIDs(maria); id != "X1234567L" || ins != "Adeslas" || pol != "A-1" {
			t.Fatalf("stored %q %q %q", id, ins, pol)
		}
		u := h.signedIn("ana@acme.test", "ana-password")
		if p := u.get("/app/clients?q=x1234567l"); p.Location != "/app/clients/"+itoa(maria) {
			t.Fatalf("search by the file's NIE: %d %q", p.Status, p.Location)
		}
		u.get("/app/clients/"+itoa(maria)).contains(t, "María", `value="X1234567L"`, `value="Adeslas"`)
		for _, bad := range []string{`national_id: "X1234567T"`, `national_id: "1234567Z"`, `insurer: "` + strings.Repeat("a", 101) + `"`} {
			err := apply(`  - {key: maria, ` + bad + `}` + "\n")
			if err == nil || (!strings.Contains(err.Error(), "national_id") && !strings.Contains(err.Error(), "insurer")) {
				t.Fatalf("%s: %v", bad, err)
			}
		}
		if id, _, _ := h.storedIDs(maria); id != "X1234567L" {
			t.Fatalf("a refused file changed the NIE to %q", id)
		}
	})
}
