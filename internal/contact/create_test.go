package contact_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/workspace"
	"github.com/frontdesk/frontdesk/internal/workspace/workspacetest"
)

var now = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

func acme(tb testing.TB, store *db.DB) (account.Account, workspace.IDs) {
	tb.Helper()
	return workspacetest.Apply(tb, store, now, "../workspace/testdata/acme.yaml")
}

func TestCreateClient(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, ids := acme(t, store)
		maria := ids.Clients["maria"]
		ctx := t.Context()

		c, err := contact.CreateClient(ctx, store, acct, contact.ClientInput{FirstName: " Lola ", LastName: "Pérez", Phone: "600 555 777",
			Email: " Lola@Example.com ", Company: "Flores SL", Notes: "Prefers mornings", Tags: []string{"new", " vip ", ""}}, now)
		if err != nil {
			t.Fatal(err)
		}
		// The account's region (ES) supplies the country code; the e-mail
		// is trimmed and matched lower-cased; notes go to the custom fields.
		if c.Phone.E164() != "+34600555777" || c.Email != "Lola@Example.com" || c.FirstName != "Lola" || c.Company != "Flores SL" || c.Data["notes"] != "Prefers mornings" {
			t.Fatalf("created %+v", c)
		}
		tags, err := contact.ClientTags(ctx, store, acct, c.ID)
		if err != nil || len(tags) != 2 {
			t.Fatalf("tags = %+v, %v", tags, err)
		}

		for _, test := range []struct {
			name      string
			in        contact.ClientInput
			code, msg string
			dup       *contact.Duplicate
		}{
			{"phone of a client", contact.ClientInput{FirstName: "X", Phone: "+34 600 111 222"}, errs.ValidationError, contact.MsgPhoneTaken,
				&contact.Duplicate{Field: "phone", ClientID: maria, ClientName: "María García"}},
			{"national digits of a client", contact.ClientInput{FirstName: "X", Phone: "600111222"}, errs.ValidationError, contact.MsgPhoneTaken,
				&contact.Duplicate{Field: "phone", ClientID: maria, ClientName: "María García"}},
			// Clients are matched on national digits whatever the country
			// code (the phone index is on them): never a second client.
			{"same digits, another country", contact.ClientInput{FirstName: "X", Phone: "+33 6 00 11 12 22"}, errs.ValidationError, contact.MsgPhoneTaken,
				&contact.Duplicate{Field: "phone", ClientID: maria, ClientName: "María García"}},
			{"e-mail of a client", contact.ClientInput{FirstName: "X", Email: "MARIA@example.com"}, errs.ValidationError, contact.MsgEmailTaken,
				&contact.Duplicate{Field: "email", ClientID: maria, ClientName: "María García"}},
			{"no name", contact.ClientInput{Phone: "+34600000001"}, errs.ValidationError, contact.MsgNameRequired, nil},
			{"no phone nor e-mail", contact.ClientInput{FirstName: "X"}, errs.ValidationError, contact.MsgContactRequired, nil},
			{"invalid phone", contact.ClientInput{FirstName: "X", Phone: "12"}, errs.InvalidPhone, contact.MsgInvalidPhone, nil},
			{"invalid e-mail", contact.ClientInput{FirstName: "X", Email: "not-an-email"}, errs.ValidationError, contact.MsgInvalidEmail, nil},
		} {
			t.Run(test.name, func(t *testing.T) {
				_, err := contact.CreateClient(ctx, store, acct, test.in, now)
				if test.code == "" {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				var e *errs.Error
				if !errors.As(err, &e) || e.Code != test.code || e.Message != test.msg {
					t.Fatalf("err = %v, want %s %q", err, test.code, test.msg)
				}
				if test.dup != nil {
					if d, ok := e.Details.(contact.Duplicate); !ok || d != *test.dup {
						t.Fatalf("details = %#v, want %#v", e.Details, *test.dup)
					}
				}
			})
		}
		// The refused ones wrote nothing.
		var n int
		if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM clients WHERE account_id = ?`, acct.ID).Scan(&n); err != nil || n != 2 {
			t.Fatalf("clients = %d, %v; want 2 (María, Lola)", n, err)
		}
	})
}

// TestCreateClientConcurrently: receptionists creating one phone at the
// same moment make one client; the others are told it exists.
func TestCreateClientConcurrently(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, _ := acme(t, store)
		const n = 6
		var wg sync.WaitGroup
		errsOut := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errsOut[i] = contact.CreateClient(context.Background(), store, acct,
					contact.ClientInput{FirstName: "Twin", Phone: "+34 611 222 333", Email: "twin@example.com"}, now)
			}()
		}
		wg.Wait()
		created, refused := 0, 0
		for _, err := range errsOut {
			var e *errs.Error
			switch {
			case err == nil:
				created++
			case errors.As(err, &e) && e.Code == errs.ValidationError:
				refused++
			default:
				t.Fatalf("unexpected error: %v", err)
			}
		}
		var rows int
		if err := store.QueryRow(t.Context(), `SELECT COUNT(*) FROM clients WHERE account_id = ? AND phone_national = '611222333'`, acct.ID).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if created != 1 || refused != n-1 || rows != 1 {
			t.Fatalf("created %d, refused %d, rows %d; want 1, %d, 1", created, refused, rows, n-1)
		}
	})
}
