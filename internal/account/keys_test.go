package account_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

func newAccount(t *testing.T, store *db.DB) account.Account {
	t.Helper()
	ctx := context.Background()
	if _, err := store.Exec(ctx, `INSERT INTO accounts (slug, name, timezone, default_region, created_at, updated_at) VALUES ('acme', 'Acme', 'UTC', 'ES', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	acct, err := account.BySlug(ctx, store, "acme")
	if err != nil {
		t.Fatal(err)
	}
	return acct
}

// A key's listed prefix is "pk_" and min(5, (len-3)/4) characters: never
// more than 8, and little of a short key (a 12-character key once showed
// 10 characters).
func TestKeyPrefixRevealsLittle(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct := newAccount(t, store)
		tests := []struct{ value, want string }{
			{"pk_123456789", "pk_12"},                  // 12 characters, the shortest accepted
			{"pk_1234567890123", "pk_123"},             // 16
			{"pk_demo_frontdesk", "pk_dem"},            // the demo key, 17
			{"pk_12345678901234567890123", "pk_12345"}, // 26: capped at 5 characters after pk_
		}
		for _, test := range tests {
			if _, err := account.InsertKey(ctx, store, acct, account.NewKey{Name: test.value, Value: test.value}, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		generated, err := account.InsertKey(ctx, store, acct, account.NewKey{Name: "generated"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		keys, err := account.ListKeys(ctx, store, acct)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, k := range keys {
			got[k.Name] = k.Prefix
		}
		for _, test := range append(tests, struct{ value, want string }{"generated", generated[:8]}) {
			if got[test.value] != test.want {
				t.Errorf("prefix of %s = %q, want %q", test.value, got[test.value], test.want)
			}
		}
	})
}

// Migration 00012 cuts prefixes stored under the old rule (10 characters)
// to what the shortest accepted key shows, on both engines.
func TestKeyPrefixMigration(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct := newAccount(t, store)
		for _, p := range []string{"pk_test_ac", "pk_12", "pk_"} {
			if _, err := store.Exec(ctx, `INSERT INTO api_keys (account_id, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, 0)`,
				acct.ID, p, p, "hash-"+p); err != nil {
				t.Fatal(err)
			}
		}
		// Run 00012 again over rows written the old way.
		keys := keysAfterMigration(t, store, acct, 12)
		want := map[string]string{"pk_test_ac": "pk_te", "pk_12": "pk_12", "pk_": "pk_"}
		for _, k := range keys {
			if k.Prefix != want[k.Name] {
				t.Errorf("prefix %s after migration = %q, want %q", k.Name, k.Prefix, want[k.Name])
			}
		}
	})
}
