// Package dbtest gives tests a fresh, migrated store on every engine:
// SQLite always (a file in the test's temp dir), PostgreSQL when
// FRONTDESK_TEST_POSTGRES holds a DSN. Each PostgreSQL store lives in its own
// schema, dropped afterwards, so parallel and repeated runs never collide and
// the machine's database is never reconfigured.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
)

// EnvPostgres names the variable holding the PostgreSQL test DSN.
const EnvPostgres = "FRONTDESK_TEST_POSTGRES"

// EnvCitus names the variable holding a Citus coordinator's DSN. When set,
// the PostgreSQL stores of the tests are made there (every per-account table
// distributed, docs/scale-out.md) and Engines runs only them: the cluster
// run checks what the PostgreSQL run checks.
const EnvCitus = "FRONTDESK_TEST_CITUS"

// Engines runs fn once per available engine as subtests "sqlite" and
// "postgres", each with its own fresh store.
func Engines(t *testing.T, fn func(t *testing.T, store *db.DB)) {
	t.Helper()
	engines := []db.Engine{db.SQLite, db.Postgres}
	if os.Getenv(EnvCitus) != "" {
		engines = []db.Engine{db.Postgres}
	}
	for _, e := range engines {
		t.Run(string(e), func(t *testing.T) {
			fn(t, Open(t, e))
		})
	}
}

// Open returns a fresh migrated store on engine e, skipping the test when
// PostgreSQL is asked for and not configured.
func Open(tb testing.TB, e db.Engine) *db.DB {
	tb.Helper()
	dsn := DSN(tb, e)
	store, err := db.Open(context.Background(), dsn, db.Options{})
	if err != nil {
		tb.Fatalf("open %s: %v", e, err)
	}
	tb.Cleanup(func() { store.Close() })
	if err := store.Migrate(context.Background(), nil); err != nil {
		tb.Fatalf("migrate %s: %v", e, err)
	}
	return store
}

// DSN returns a DSN for a fresh, empty database on engine e (not migrated).
func DSN(tb testing.TB, e db.Engine) string {
	tb.Helper()
	if e == db.SQLite {
		return filepath.Join(tb.TempDir(), "frontdesk.db")
	}
	base := os.Getenv(EnvPostgres)
	if citus := os.Getenv(EnvCitus); citus != "" {
		base = citusBase(tb, citus)
	}
	if base == "" {
		tb.Skipf("PostgreSQL tests skipped: set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", EnvPostgres)
	}
	return freshSchema(tb, base)
}

// freshSchema creates a uniquely named schema and returns base with its
// search_path pointing there.
func freshSchema(tb testing.TB, base string) string {
	tb.Helper()
	ctx := context.Background()
	admin, err := db.Open(ctx, base, db.Options{MaxOpenConns: 1})
	if err != nil {
		tb.Fatalf("PostgreSQL at %s is unreachable: %v", EnvPostgres, err)
	}
	defer admin.Close()
	var b [6]byte
	rand.Read(b[:])
	schema := "fdtest_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		tb.Fatalf("create schema: %v", err)
	}
	tb.Cleanup(func() {
		a, err := db.Open(context.Background(), base, db.Options{MaxOpenConns: 1})
		if err != nil {
			return
		}
		defer a.Close()
		a.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("parse %s: %v", EnvPostgres, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// citusBase is the Citus DSN with the shard count of the tests' tables: a
// few shards per table keep a fresh store's distribution to a second while
// still spreading accounts over both workers.
func citusBase(tb testing.TB, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatalf("parse %s: %v", EnvCitus, err)
	}
	q := u.Query()
	if q.Get("citus.shard_count") == "" {
		q.Set("citus.shard_count", "4")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// SkipOnCitus skips the rest of a test when the stores are made on Citus,
// saying why: for what only a single server does (migrations rolled back).
func SkipOnCitus(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv(EnvCitus) != "" {
		tb.Skip("not on Citus: " + why)
	}
}

// PostgresBase is the DSN the tests' PostgreSQL stores are made under (the
// Citus coordinator's when EnvCitus is set), "" when there is none: for
// tests that hand a server or command a database URL of their own.
func PostgresBase() string {
	if citus := os.Getenv(EnvCitus); citus != "" {
		return citus
	}
	return os.Getenv(EnvPostgres)
}
