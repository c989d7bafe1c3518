package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/frontdesk/frontdesk/internal/db"
)

// freshStore opens a new, migrated store of its own and returns it with a
// description and the function that closes it. dsn "" is a SQLite file in a
// new temp directory, removed afterwards; a SQLite path must not exist yet
// (the bench writes millions of rows and never into someone's data) and is
// kept afterwards, for a look at the plans; a PostgreSQL URL gets a schema
// of its own, reached through search_path and dropped afterwards, as
// internal/db/dbtest does.
func freshStore(ctx context.Context, dsn string) (*db.DB, string, func(), error) {
	var drop func()
	desc := dsn
	switch {
	case dsn == "":
		dir, err := os.MkdirTemp("", "frontdesk-bench-")
		if err != nil {
			return nil, "", nil, err
		}
		dsn = filepath.Join(dir, "bench.db")
		desc = dsn + " (temporary)"
		drop = func() { os.RemoveAll(dir) }
	case db.IsPostgresDSN(dsn):
		schema, withPath, err := createSchema(ctx, dsn)
		if err != nil {
			return nil, "", nil, err
		}
		base := dsn
		desc = redact(dsn) + " (schema " + schema + ", dropped afterwards)"
		dsn = withPath
		drop = func() {
			// The run's context may be cancelled (Ctrl-C); the schema goes anyway.
			admin, err := db.Open(context.Background(), base, db.Options{MaxOpenConns: 1})
			if err != nil {
				return
			}
			defer admin.Close()
			admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		}
	default:
		if _, err := os.Stat(dsn); err == nil {
			return nil, "", nil, fmt.Errorf("%s exists: the bench needs a fresh database (omit --db for a temporary one)", dsn)
		}
		desc = dsn + " (kept afterwards)"
		drop = func() {}
	}
	store, err := db.Open(ctx, dsn, db.Options{})
	if err != nil {
		drop()
		return nil, "", nil, err
	}
	if err := store.Migrate(ctx, nil); err != nil {
		store.Close()
		drop()
		return nil, "", nil, err
	}
	return store, desc, func() { store.Close(); drop() }, nil
}

// createSchema creates a uniquely named schema and returns it with base's
// DSN pointing there.
func createSchema(ctx context.Context, base string) (string, string, error) {
	admin, err := db.Open(ctx, base, db.Options{MaxOpenConns: 1})
	if err != nil {
		return "", "", err
	}
	defer admin.Close()
	var b [6]byte
	rand.Read(b[:])
	schema := "fdbench_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", "", fmt.Errorf("create schema: %w", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", "", err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return schema, u.String(), nil
}

// redact hides a password in a database URL.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(database URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxx")
	}
	return u.String()
}

// engineVersion names the engine and its version ("SQLite 3.46.0 (modernc)",
// "PostgreSQL 15.20").
func engineVersion(ctx context.Context, store *db.DB) string {
	var v string
	if store.Engine() == db.Postgres {
		if err := store.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
			return "PostgreSQL (version unknown)"
		}
		return "PostgreSQL " + v
	}
	if err := store.QueryRow(ctx, "SELECT sqlite_version()").Scan(&v); err != nil {
		return "SQLite (version unknown)"
	}
	return "SQLite " + v + " (modernc.org/sqlite, pure Go)"
}
