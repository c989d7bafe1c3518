package contact_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// ByKeys answers what ByNationals and ByEmails answer.
func TestByKeysMatchesSingleLookups(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, _ := acme(t, store)
		ctx := t.Context()
		res, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(ctx,
			[]byte(`account: {slug: beta, name: Beta Clinic, timezone: Europe/Madrid, default_region: ES}`))
		if err != nil {
			t.Fatal(err)
		}
		other, err := account.BySlug(ctx, store, res.Account.Slug)
		if err != nil {
			t.Fatal(err)
		}
		mk := func(acctOther bool, first, phone, email string) int64 {
			a := acct
			if acctOther {
				a = other
			}
			c, err := contact.CreateClient(ctx, store, a, contact.ClientInput{FirstName: first, Phone: phone, Email: email}, now)
			if err != nil {
				t.Fatal(err)
			}
			return c.ID
		}
		byPhoneOnly := mk(false, "Phone", "600 700 001", "")
		shared1 := mk(false, "Shared old", "600 700 002", "shared@example.com")
		// E-mail is not unique in the table (older data, imports): a second
		// client shares it; the oldest wins.
		sharedNew := mk(false, "Shared new", "600 700 003", "tmp@example.com")
		if _, err := store.Exec(ctx, `UPDATE clients SET email = 'SHARED@example.com', email_norm = 'shared@example.com' WHERE account_id = ? AND id = ?`, acct.ID, sharedNew); err != nil {
			t.Fatal(err)
		}
		byEmailOnly := mk(false, "Mail", "600 700 004", "mail@example.com")
		mk(true, "Other account", "600 700 005", "other@example.com")

		for _, tc := range []struct {
			name              string
			nationals, emails []string
			phones, mails     map[string]int64
		}{
			{"both lists", []string{"600700001", "600700005", "699999999", ""}, []string{" Shared@Example.com", "mail@example.com", "other@example.com"},
				map[string]int64{"600700001": byPhoneOnly}, map[string]int64{"shared@example.com": shared1, "mail@example.com": byEmailOnly}},
			{"phones only", []string{"600700002", "600700004"}, nil,
				map[string]int64{"600700002": shared1, "600700004": byEmailOnly}, map[string]int64{}},
			{"e-mails only", nil, []string{"mail@example.com"}, map[string]int64{}, map[string]int64{"mail@example.com": byEmailOnly}},
			// A client reached by both keys (a batch of known clients).
			{"one client by both keys", []string{"600700002"}, []string{"shared@example.com"},
				map[string]int64{"600700002": shared1}, map[string]int64{"shared@example.com": shared1}},
			// The phone brings the younger of two clients sharing the
			// e-mail: the e-mail still answers the oldest.
			{"phone brings the younger owner", []string{"600700003"}, []string{"shared@example.com"},
				map[string]int64{"600700003": sharedNew}, map[string]int64{"shared@example.com": shared1}},
			{"nothing", nil, nil, map[string]int64{}, map[string]int64{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				byPhone, byEmail, err := contact.ByKeys(ctx, store, acct, tc.nationals, tc.emails)
				if err != nil {
					t.Fatal(err)
				}
				ids := func(m map[string]contact.Client) map[string]int64 {
					out := map[string]int64{}
					for k, c := range m {
						out[k] = c.ID
					}
					return out
				}
				if got := ids(byPhone); !maps.Equal(got, tc.phones) {
					t.Errorf("by phone %v, want %v", got, tc.phones)
				}
				if got := ids(byEmail); !maps.Equal(got, tc.mails) {
					t.Errorf("by e-mail %v, want %v", got, tc.mails)
				}
				single, err := contact.ByNationals(ctx, store, acct, tc.nationals)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := slices.Sorted(maps.Keys(ids(byPhone))), slices.Sorted(maps.Keys(ids(single))); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("ByKeys phones %v, ByNationals %v", got, want)
				}
				// Whole clients, as ByEmails loads them, whichever
				// statement brought them.
				mails, err := contact.ByEmails(ctx, store, acct, tc.emails)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(byEmail, mails) {
					t.Errorf("ByKeys e-mails %+v, ByEmails %+v", byEmail, mails)
				}
			})
		}
	})
}
