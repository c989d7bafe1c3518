package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestClientSearchDoors: the Clients page and the booking form's client
// lookup find clients with the one search rule (docs/patient-search.md),
// never another account's; a single match on the Clients page opens the
// patient's page and the booking form chooses it so "Book" books for it.
func TestClientSearchDoors(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("ana@acme.test", "ana-password")
		maria, pedro, otherMaria := a.Clients["maria"], a.Clients["pedro"], h.other().Clients["maria"]
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		slot := at("2026-11-23", "16:30")
		book := strings.ReplaceAll(bookLink(pro, svc, slot), "&amp;", "&")

		for _, test := range []struct {
			name, query string
			want        int64 // the single match, 0 for none
		}{
			{"first then last name", "maria garcia", maria},
			{"last then first name", "garcia maria", maria},
			{"upper case with accent", "GARCÍA", maria},
			{"prefix with accent", "marí", maria},
			{"phone with spaces", "600 111 222", maria},
			{"phone with country code", "+34600111222", maria},
			{"phone with dashes", "600-111-222", maria},
			{"e-mail part", "example", 0}, // María and Pedro both
			{"no match", "maria sanchez", 0},
		} {
			t.Run(test.name, func(t *testing.T) {
				q := url.QueryEscape(test.query)
				list := u.get("/app/clients?q=" + q)
				form := u.get(book+"&q="+q).must(t, http.StatusOK)
				if test.want == 0 {
					list.must(t, http.StatusOK)
					form.contains(t, `name="client_id" value="new" checked`)
				} else {
					// A single match opens the patient's page.
					list.must(t, http.StatusSeeOther)
					if list.Location != "/app/clients/"+itoa(test.want) {
						t.Fatalf("a single match went to %q", list.Location)
					}
					form.contains(t, `id="client-`+itoa(test.want)+`" name="client_id" value="`+itoa(test.want)+`" checked`)
				}
				// Account B's María has the same name, phone and e-mail.
				list.lacks(t, "/app/clients/"+itoa(otherMaria)+`"`)
				if list.Location == "/app/clients/"+itoa(otherMaria) {
					t.Fatal("a search opened another account's client")
				}
				form.lacks(t, `id="client-`+itoa(otherMaria)+`"`)
			})
		}
		u.get("/app/clients?q=example").must(t, http.StatusOK).contains(t, "/app/clients/"+itoa(maria), "/app/clients/"+itoa(pedro), "2 clients")
		u.get("/app/clients?q=maria+sanchez").must(t, http.StatusOK).contains(t, "No client matches")

		// The form as the single match left it books María with one click.
		form := u.get(book+"&q="+url.QueryEscape("maria garcia")).must(t, http.StatusOK)
		if !strings.Contains(form.Body, `value="`+itoa(maria)+`" checked`) {
			t.Fatalf("María not chosen: %.2000s", form.Body)
		}
		p := u.post("/app/book", url.Values{"professional_id": {itoa(pro)}, "service_id": {itoa(svc)}, "event_type_id": {itoa(visit)},
			"start": {slot.UTC().Format(time.RFC3339)}, "q": {"maria garcia"}, "client_id": {itoa(maria)}})
		u.follow(p).must(t, http.StatusOK).contains(t, "Booked María García")
		if n := h.count("appointments", "client_id = ? AND source = 'dashboard'", maria); n != 1 {
			t.Fatal("not booked for María")
		}
	})
}
