package account_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// A live key's name is unique in its account, whoever creates it: a
// revoked key's name is free again, and of several creates racing with one
// name exactly one wins on either engine (migration 00023's index).
func TestLiveKeyNamesAreUnique(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct := newAccount(t, store)
		now := time.Now()
		insert := func(k account.NewKey) error {
			return store.Transact(ctx, func(tx *db.Tx) error {
				_, err := account.InsertKey(ctx, tx, acct, k, now)
				return err
			})
		}
		if err := insert(account.NewKey{Name: " zapier "}); err != nil {
			t.Fatal(err)
		}
		err := insert(account.NewKey{Name: "zapier"})
		if e := (*errs.Error)(nil); !errors.As(err, &e) || e.Code != errs.ValidationError ||
			e.Message != `A live key named "zapier" already exists; choose another name.` {
			t.Fatalf("second live zapier: %v", err)
		}
		if err := insert(account.NewKey{Name: "zapier", Revoked: true}); err != nil {
			t.Errorf("a revoked twin is no live key: %v", err)
		}
		if _, err := account.RevokeKey(ctx, store, acct, "zapier", now); err != nil {
			t.Fatal(err)
		}
		if err := insert(account.NewKey{Name: "zapier"}); err != nil {
			t.Errorf("the name of a revoked key is free again: %v", err)
		}

		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			won      int
			refusals []error
		)
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := insert(account.NewKey{Name: "race"})
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					won++
				} else {
					refusals = append(refusals, err)
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Errorf("%d racing creates of one name succeeded, want 1", won)
		}
		for _, err := range refusals {
			if !errs.Is(err, errs.ValidationError) || !strings.Contains(err.Error(), "already exists") {
				t.Errorf("racing create refused with %v", err)
			}
		}
	})
}

// Migration 00023 renames live twins made before it (every one after the
// oldest gets "-<id>"), so its index can be built and each be revoked.
func TestLiveKeyNameMigration(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct := newAccount(t, store)
		if _, err := store.Exec(ctx, `DROP INDEX api_keys_live_name`); err != nil {
			t.Fatal(err)
		}
		for i, revoked := range []any{nil, nil, nil, int64(1)} {
			if _, err := store.Exec(ctx, `INSERT INTO api_keys (account_id, name, prefix, hash, created_at, revoked_at) VALUES (?, 'twin', 'pk_', ?, 0, ?)`,
				acct.ID, "hash-"+string(rune('a'+i)), revoked); err != nil {
				t.Fatal(err)
			}
		}
		keys := keysAfterMigration(t, store, acct, 23)
		var got []string
		for _, k := range keys {
			got = append(got, k.Name)
		}
		first := keys[0].ID
		want := []string{"twin", "twin-" + strconv.FormatInt(first+1, 10), "twin-" + strconv.FormatInt(first+2, 10), "twin"}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("names after migration = %v, want %v", got, want)
		}
	})
}

// keysAfterMigration runs migration version again and lists acct's keys.
func keysAfterMigration(t *testing.T, store *db.DB, acct account.Account, version int) []account.Key {
	t.Helper()
	ctx := context.Background()
	if _, err := store.Exec(ctx, `DELETE FROM goose_db_version WHERE version_id = ?`, version); err != nil {
		t.Fatal(err)
	}
	if err := store.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	keys, err := account.ListKeys(ctx, store, acct)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}
