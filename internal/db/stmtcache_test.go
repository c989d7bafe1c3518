package db

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// SQLite statements are prepared once and reused, in and out of
// transactions; an In list of ids or strings is one JSON argument, so its
// statement is cached too, and one whose text depends on the list's length
// is not; a schema change under a cached statement is picked up.
func TestStatementCache(t *testing.T) {
	ctx := context.Background()
	store := sqliteWithTable(t)
	insert := `INSERT INTO t (id, v) VALUES (?, ?)`
	for i := int64(1); i <= 3; i++ {
		if err := store.Transact(ctx, func(tx *Tx) error {
			_, err := tx.Exec(ctx, insert, i, "x")
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, list := range [][]int64{{1, 2}, {1, 2, 3}} {
		in, args := In(list)
		ids, err := QueryInt64s(ctx, store, `SELECT id FROM t WHERE id IN `+in+` ORDER BY id`, args...)
		if err != nil || len(ids) != len(list) {
			t.Fatalf("In(%v): %v, %v", list, ids, err)
		}
	}
	in, args := In([]int{1, 2}) // neither ids nor strings: a placeholder per value
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
	_, cachedIn := store.stmts.m[`SELECT id FROM t WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`]
	size := len(store.stmts.m)
	store.stmts.mu.Unlock()
	if !cachedInsert || !cachedCount || !cachedIn || size != 4 { // CREATE, INSERT, the In list, COUNT
		t.Errorf("cache holds %d statements (insert %v, count %v, in %v), want CREATE, INSERT, the ids' In list and COUNT", size, cachedInsert, cachedCount, cachedIn)
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
	q, out, _ := pg.expand(`SELECT id FROM clients WHERE account_id = ? AND phone_national IN `+in, append([]any{int64(1)}, args...))
	if q != `SELECT id FROM clients WHERE account_id = ? AND phone_national = ANY(CAST(? AS text[]))` {
		t.Errorf("query = %s", q)
	}
	if len(out) != 3 || out[0] != pgx.QueryExecModeCacheDescribe {
		t.Errorf("args = %#v, want the describe-only exec mode first", out)
	}
	q, out, _ = pg.expand(`SELECT id FROM clients WHERE account_id = ?`, []any{int64(1)})
	if len(out) != 1 || q != `SELECT id FROM clients WHERE account_id = ?` {
		t.Errorf("plain statement changed: %s %#v", q, out)
	}
	sq, sargs, fixed := (Dialect{Engine: SQLite}).expand(`SELECT id FROM clients WHERE phone_national IN `+in, args)
	if sq != `SELECT id FROM clients WHERE phone_national IN (SELECT value FROM json_each(?))` || len(sargs) != 1 || sargs[0] != `["600111222","600111333"]` || !fixed {
		t.Errorf("SQLite: %s %#v %v", sq, sargs, fixed)
	}
	sq, sargs, fixed = (Dialect{Engine: SQLite}).expand(`SELECT id FROM clients WHERE phone_national NOT IN `+in, args)
	if sq != `SELECT id FROM clients WHERE phone_national NOT IN (?,?)` || len(sargs) != 2 || fixed {
		t.Errorf("SQLite, NOT IN: %s %#v %v", sq, sargs, fixed)
	}
}

// InsertMany's full-size statement is prepared once and kept, not prepared
// and closed on every call: two calls of 120 rows leave one 50-row
// statement and one 20-row statement in the cache.
func TestInsertManyKeepsItsStatements(t *testing.T) {
	ctx := context.Background()
	store := sqliteWithTable(t)
	for call := 0; call < 2; call++ {
		rows := make([][]any, 120)
		for i := range rows {
			rows[i] = []any{call*1000 + i + 1, "x"}
		}
		if err := store.Transact(ctx, func(tx *Tx) error {
			return InsertMany(ctx, tx, `INSERT INTO t (id, v)`, rows, "")
		}); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 240 {
		t.Fatalf("count = %d, %v; want 240", n, err)
	}
	store.stmts.mu.Lock()
	defer store.stmts.mu.Unlock()
	sizes := map[int]int{}
	for q := range store.stmts.m {
		if strings.HasPrefix(q, "INSERT INTO t (id, v) VALUES ") {
			sizes[strings.Count(q, "(?,?)")]++
		}
	}
	if len(sizes) != 2 || sizes[sqliteRowsPerInsert] != 1 || sizes[120%sqliteRowsPerInsert] != 1 {
		t.Errorf("cached inserts by rows: %v; want one of %d rows and one of %d", sizes, sqliteRowsPerInsert, 120%sqliteRowsPerInsert)
	}
}

// sqliteWithTable opens a SQLite file of the test's with one table, t (id,
// v), closed when the test ends.
func sqliteWithTable(t *testing.T) *DB {
	t.Helper()
	ctx := context.Background()
	store, err := Open(ctx, filepath.Join(t.TempDir(), "t.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.Exec(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		t.Fatal(err)
	}
	return store
}
