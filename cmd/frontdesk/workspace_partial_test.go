package main

import (
	"context"
	"testing"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// `workspace apply` validates a file before it opens the store, where it
// cannot tell a new object from an existing one: a partial file that leaves
// out the name of an object applied before must pass that check, and one
// that leaves out the name of a new object must still fail in the apply.
func TestWorkspaceApplyPartialFile(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			dsn := dbtest.DSN(t, e)
			if code, _, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", "../../internal/workspace/testdata/acme.yaml"); code != 0 {
				t.Fatalf("full file: %d %s", code, stderr)
			}
			for _, test := range []struct {
				name, file string
				code       int
			}{
				{"existing objects without names", "account: {slug: acme}\nusers: [{key: ana, email: ana2@acme.test}]\npipelines: [{key: sales, stages: [{key: new, color: \"#000000\"}]}]", 0},
				{"a new object without a name", "account: {slug: acme}\nusers: [{key: bea}]", 1},
			} {
				if code, _, stderr := runCmd(t, dsn, test.file, "workspace", "apply", "-f", "-"); code != test.code {
					t.Errorf("%s: exit %d, want %d: %s", test.name, code, test.code, stderr)
				}
			}
			store, err := db.Open(context.Background(), dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			acct, err := account.BySlug(context.Background(), store, "acme")
			if err != nil {
				t.Fatal(err)
			}
			var name, email string
			store.QueryRow(context.Background(), `SELECT name, email FROM users WHERE account_id = ? AND file_key = 'ana'`, acct.ID).Scan(&name, &email)
			if acct.Timezone != "Europe/Madrid" || name != "Ana Ruiz" || email != "ana2@acme.test" {
				t.Errorf("after the partial file: timezone %q, user %q <%s>", acct.Timezone, name, email)
			}
		})
	}
}
