package db

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
)

// SQLite statements are prepared once and reused, in and out of
// transactions; In-list statements are not cached; a schema change under a
// cached statement is picked up.
func TestStatementCache(t *testing.T) {
	ctx := context.Background()
	store, err := Open(ctx, filepath.Join(t.TempDir(), "cache.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.Exec(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		t.Fatal(err)
	}
	insert := `INSERT INTO t (id, v) VALUES (?, ?)`
	for i := int64(1); i <= 3; i++ {
		if err := store.Transact(ctx, func(tx *Tx) error {
			_, err := tx.Exec(ctx, insert, i, "x")
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	in, args := In([]int64{1, 2})
	rows, err := store.Query(ctx, `SELECT id FROM t WHERE id IN `+in, args...)
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	count := `SELECT COUNT(*) FROM t`
	var n int
	if err := store.QueryRow(ctx, count).Scan(&n); err != nil || n != 3 {
		t.Fatalf("count = %d, %v", n, err)
	}
	store.stmts.mu.Lock()
	_, cachedInsert := store.stmts.m[insert]
	_, cachedCount := store.stmts.m[count]
	size := len(store.stmts.m)
	store.stmts.mu.Unlock()
	if !cachedInsert || !cachedCount || size != 3 { // CREATE, INSERT, COUNT
		t.Errorf("cache holds %d statements (insert %v, count %v), want CREATE, INSERT and COUNT only", size, cachedInsert, cachedCount)
	}

	star := `SELECT * FROM t WHERE id = ?`
	var id int64
	var v string
	if err := store.QueryRow(ctx, star, 1).Scan(&id, &v); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Exec(ctx, `ALTER TABLE t ADD COLUMN w TEXT DEFAULT 'new'`); err != nil {
		t.Fatal(err)
	}
	var w string
	if err := store.QueryRow(ctx, star, 1).Scan(&id, &v, &w); err != nil || w != "new" {
		t.Errorf("after ALTER TABLE: w = %q, %v", w, err)
	}
}

// On PostgreSQL a statement bound to an In list is planned for the array it
// is given (pgx's describe-only cache: no prepared statement whose generic
// plan would ignore the array); every other statement keeps pgx's default.
func TestPostgresArrayStatementsArePlannedPerCall(t *testing.T) {
	pg := Dialect{Engine: Postgres}
	in, args := In([]string{"600111222", "600111333"})
	q, out := pg.expand(`SELECT id FROM clients WHERE account_id = ? AND phone_national IN `+in, append([]any{int64(1)}, args...))
	if q != `SELECT id FROM clients WHERE account_id = ? AND phone_national = ANY(CAST(? AS text[]))` {
		t.Errorf("query = %s", q)
	}
	if len(out) != 3 || out[0] != pgx.QueryExecModeCacheDescribe {
		t.Errorf("args = %#v, want the describe-only exec mode first", out)
	}
	q, out = pg.expand(`SELECT id FROM clients WHERE account_id = ?`, []any{int64(1)})
	if len(out) != 1 || q != `SELECT id FROM clients WHERE account_id = ?` {
		t.Errorf("plain statement changed: %s %#v", q, out)
	}
	sq, sargs := (Dialect{Engine: SQLite}).expand(`SELECT id FROM clients WHERE phone_national IN `+in, args)
	if sq != `SELECT id FROM clients WHERE phone_national IN (?,?)` || len(sargs) != 2 {
		t.Errorf("SQLite: %s %#v", sq, sargs)
	}
}
