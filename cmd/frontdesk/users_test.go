package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// The two commands that change a password end the user's dashboard
// sessions; re-applying a workspace file with the same password signs
// nobody out (account.ChangePassword).
func TestPasswordCommandsEndSessions(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			ctx := context.Background()
			dsn := dbtest.DSN(t, e)
			usersFile := func(pw string) string {
				path := filepath.Join(t.TempDir(), "users.yaml")
				os.WriteFile(path, []byte("account: {slug: acme}\nusers:\n  - {key: ana, name: Ana Ruiz, email: ana@acme.test, password: "+pw+"}\n"), 0o600)
				return path
			}
			apply := func(file string) {
				t.Helper()
				if code, _, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", file); code != 0 {
					t.Fatalf("workspace apply %s: %d %s", file, code, stderr)
				}
			}
			apply("../../internal/workspace/testdata/acme.yaml")
			apply(usersFile("ana-password"))

			store, err := db.Open(ctx, dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			acct, err := account.BySlug(ctx, store, "acme")
			if err != nil {
				t.Fatal(err)
			}
			var ana int64
			if err := store.QueryRow(ctx, `SELECT id FROM users WHERE account_id = ? AND email = 'ana@acme.test'`, acct.ID).Scan(&ana); err != nil {
				t.Fatal(err)
			}
			signIn := func(token string) {
				t.Helper()
				now := time.Now()
				if err := account.StartSession(ctx, store, acct.ID, ana, token, "csrf", now, now.Add(time.Hour), now.Add(-time.Hour)); err != nil {
					t.Fatal(err)
				}
			}
			live := func(token string) bool {
				t.Helper()
				_, ok, err := account.SessionByToken(ctx, store, token)
				if err != nil {
					t.Fatal(err)
				}
				return ok
			}

			signIn("first")
			apply(usersFile("ana-password"))
			if !live("first") {
				t.Fatal("re-applying the same password ended the session")
			}
			apply(usersFile("ana-new-password"))
			if live("first") {
				t.Fatal("frontdesk workspace apply changed the password and left the session")
			}

			signIn("second")
			if code, out, stderr := runCmd(t, dsn, "ana-third-password\n", "users", "set-password", "--account", "acme", "--email", "ana@acme.test"); code != 0 {
				t.Fatalf("users set-password: %d %s %s", code, out, stderr)
			}
			if live("second") {
				t.Fatal("frontdesk users set-password left the session")
			}
		})
	}
}
