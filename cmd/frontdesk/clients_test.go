package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/privacy"
	pt "github.com/frontdesk/frontdesk/internal/privacy/privacytest"
)

// TestClientsCommands: exit codes, stdout and stderr of "frontdesk clients
// export|erase" (docs/data-rights.md), on the data-rights fixture.
func TestClientsCommands(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			ctx := context.Background()
			dsn := dbtest.DSN(t, e)
			for _, file := range []string{"../../internal/workspace/testdata/acme.yaml", "../../internal/httpapi/testdata/other.yaml"} {
				if code, _, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", file); code != 0 {
					t.Fatalf("apply %s: %d %s", file, code, stderr)
				}
			}
			store, err := db.Open(ctx, dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			acme, err := account.BySlug(ctx, store, "acme")
			if err != nil {
				t.Fatal(err)
			}
			pt.SeedAccount(t, store, acme)
			zeb := pt.Seed(t, store, acme, pt.Erasable, 10)
			id := strconv.FormatInt(zeb.ClientID, 10)
			erased := func() bool {
				t.Helper()
				at, err := privacy.ErasedAt(ctx, store, acme, zeb.ClientID)
				if err != nil {
					t.Fatal(err)
				}
				return at != nil
			}

			for _, c := range []struct {
				name   string
				stdin  string
				args   []string
				code   int
				stderr string // a part of stderr
				stdout string // a part of stdout ("" : stdout is empty)
			}{
				{"export: no client", "", []string{"clients", "export", "--account", "acme"}, 2, "--client ID", ""},
				{"export: unknown account", "", []string{"clients", "export", "--account", "nope", "--client", id}, 1, `account "nope" not found`, ""},
				{"export: unknown client", "", []string{"clients", "export", "--account", "acme", "--client", "999999"}, 1, "Client 999999 not found.", ""},
				{"export: another account's client", "", []string{"clients", "export", "--account", "other", "--client", id}, 1, "Client " + id + " not found.", ""},
				{"export", "", []string{"clients", "export", "--account", "acme", "--client", id}, 0, "", pt.Erasable.Marker},
				{"erase: another account's client", id + "\n", []string{"clients", "erase", "--account", "other", "--client", id, "--yes"}, 1, "Client " + id + " not found.", ""},
				{"erase: unknown client", "999999\n", []string{"clients", "erase", "--account", "acme", "--client", "999999"}, 1, "Client 999999 not found.", ""},
				{"erase: no stdin", "", []string{"clients", "erase", "--account", "acme", "--client", id}, 1, "not confirmed", ""},
				{"erase: another id typed", "1" + id + "\n", []string{"clients", "erase", "--account", "acme", "--client", id}, 1, "nothing was erased", ""},
				{"erase: bad flag", "", []string{"clients", "erase", "--account", "acme", "--client", "x"}, 2, "--client ID", ""},
				{"erase: confirmed on stdin", id + "\n", []string{"clients", "erase", "--account", "acme", "--client", id}, 0, "Type the client's id", "client " + id + " erased: 1 future appointment(s) cancelled"},
				{"erase: twice", "", []string{"clients", "erase", "--account", "acme", "--client", id, "--yes"}, 1, "was erased already", ""},
				{"unknown subcommand", "", []string{"clients", "forget"}, 2, "frontdesk clients export", ""},
			} {
				t.Run(c.name, func(t *testing.T) {
					wasErased := erased()
					code, stdout, stderr := runCmd(t, dsn, c.stdin, c.args...)
					if code != c.code || !strings.Contains(stderr, c.stderr) || c.stdout == "" && stdout != "" || !strings.Contains(stdout, c.stdout) {
						t.Fatalf("exit %d (want %d)\nstdout: %.300s\nstderr: %s", code, c.code, stdout, stderr)
					}
					if c.code != 0 && erased() != wasErased {
						t.Fatal("a refused command erased the client")
					}
				})
			}
			if !erased() {
				t.Fatal("the confirmed erase did not erase")
			}
			// Each door's export and erasure is in the audit log, by id.
			for action, by := range map[string]string{"exported": "frontdesk clients export", "erased": "frontdesk clients erase"} {
				var n int
				store.QueryRow(ctx, `SELECT COUNT(*) FROM audit_log WHERE account_id = ? AND action = ? AND object_type = 'client' AND object_id = ? AND user_name = ?`,
					acme.ID, action, id, by).Scan(&n)
				if n != 1 {
					t.Errorf("audit entries %s by %q: %d, want 1", action, by, n)
				}
			}
			code, stdout, _ := runCmd(t, dsn, "", "clients", "export", "--account", "acme", "--client", id)
			var doc map[string]any
			if code != 0 || json.Unmarshal([]byte(stdout), &doc) != nil || doc["client"].(map[string]any)["erased_at"] == nil || strings.Contains(stdout, pt.Erasable.Marker) {
				t.Fatalf("export after erasure: %d %s", code, stdout)
			}
		})
	}
}
