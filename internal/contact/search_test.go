package contact_test

import (
	"slices"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// The one client search rule (docs/patient-search.md), through every write
// path the test can reach: the workspace file (María García), creating a
// client, and editing one (Íñigo's e-mail).
func TestSearchClients(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, ids := acme(t, store)
		ctx := t.Context()
		// Account B has a María García with the same phone: she must never
		// appear in account A's searches.
		other := `account: {slug: beta, name: Beta Clinic, timezone: Europe/Madrid, default_region: ES}
clients: [{key: maria, first_name: María, last_name: García, phone: "+34600111222", email: maria@beta.test}]`
		if _, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(ctx, []byte(other)); err != nil {
			t.Fatal(err)
		}
		create := func(in contact.ClientInput) int64 {
			t.Helper()
			c, err := contact.CreateClient(ctx, store, acct, in, now)
			if err != nil {
				t.Fatal(err)
			}
			return c.ID
		}
		maria := ids.Clients["maria"]
		mariaLopez := create(contact.ClientInput{FirstName: "María", LastName: "García López", Phone: "600 333 444", Email: "mgl@clinic.test"})
		mariano := create(contact.ClientInput{FirstName: "Mariano", LastName: "Ruiz", Phone: "622 000 000"})
		inigo := create(contact.ClientInput{FirstName: "Íñigo", LastName: "Peña", Phone: "611 000 000", Email: "inigo@old.test"})
		if err := contact.UpdateClient(ctx, store, acct, inigo, contact.ClientUpdate{FirstName: "Íñigo", LastName: "Peña", Email: "Inigo.Pena@Correo.test"}, now); err != nil {
			t.Fatal(err)
		}

		for _, test := range []struct {
			name, query string
			want        []int64 // in order
		}{
			{"first then last name", "maria garcia", []int64{maria, mariaLopez}},
			{"last then first name", "garcia maria", []int64{maria, mariaLopez}},
			{"upper case with accent", "GARCÍA", []int64{maria, mariaLopez}},
			{"prefix with accent", "marí", []int64{maria, mariaLopez, mariano}},
			{"exact full name first", "maria garcia lopez", []int64{mariaLopez}},
			{"ñ folds to n", "inigo pena", []int64{inigo}},
			{"typed with ñ", "Peña", []int64{inigo}},
			{"phone with spaces", "600 111 222", []int64{maria}},
			{"phone with country code", "+34600111222", []int64{maria}},
			{"phone with dashes", "600-111-222", []int64{maria}},
			{"phone with 00 prefix", "0034 600 111 222", []int64{maria}},
			{"part of a phone", "333 444", []int64{mariaLopez}},
			{"e-mail word", "correo", []int64{inigo}},
			{"e-mail from its start", "inigo.pena@corr", []int64{inigo}},
			{"edited e-mail is gone", "old", nil},
			{"a word must start a word", "arcia", nil},
			{"every word must match", "maria pena", nil},
			{"a word is a prefix", "maria ruiz", []int64{mariano}},
			{"no match", "zoe", nil},
			{"punctuation only", "--", nil},
			{"punctuation cuts words", "mar%", []int64{maria, mariaLopez, mariano}},
			{"like wildcards are literal", "mar_a@example.com", nil},
			{"whole e-mail", "MARIA@example.com", []int64{maria}},
		} {
			t.Run(test.name, func(t *testing.T) {
				list, total, err := contact.SearchClients(ctx, store, acct, test.query, 10)
				if err != nil {
					t.Fatal(err)
				}
				var got []int64
				for _, c := range list {
					got = append(got, c.ID)
				}
				if !slices.Equal(got, test.want) || total != len(test.want) {
					t.Fatalf("SearchClients(%q) = %v (total %d), want %v", test.query, got, total, test.want)
				}
			})
		}

		// The limit cuts the list, not the total.
		list, total, err := contact.SearchClients(ctx, store, acct, "mar", 1)
		if err != nil || len(list) != 1 || list[0].ID != maria || total != 3 {
			t.Fatalf("limited search = %v, %d, %v", list, total, err)
		}
	})
}
