package db_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

func TestMigrateAndBasics(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		v, err := store.SchemaVersion(ctx)
		if err != nil || v < 1 {
			t.Fatalf("schema version = %d, %v", v, err)
		}
		// Migrating again is a no-op.
		if err := store.Migrate(ctx, nil); err != nil {
			t.Fatal(err)
		}
		err = store.Transact(ctx, func(tx *db.Tx) error {
			ids, err := tx.Dialect().ReserveIDs(ctx, tx, "accounts", 3)
			if err != nil {
				return err
			}
			rows := [][]any{}
			for i, id := range ids {
				rows = append(rows, []any{id, "acct" + string(rune('a'+i)), "A", int64(1), int64(1)})
			}
			return db.InsertMany(ctx, tx, "INSERT INTO accounts (id, slug, name, created_at, updated_at)", rows, "")
		})
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := store.QueryRow(ctx, "SELECT COUNT(*) FROM accounts WHERE slug LIKE ?", "acct%").Scan(&n); err != nil || n != 3 {
			t.Fatalf("count = %d, %v", n, err)
		}
		// A new row after reserved ids gets a fresh id on both engines.
		var id int64
		if err := store.QueryRow(ctx, "INSERT INTO accounts (slug, name, created_at, updated_at) VALUES (?, ?, 1, 1) RETURNING id", "later", "L").Scan(&id); err != nil {
			t.Fatal(err)
		}
		if id <= 3 {
			t.Fatalf("id after reservation = %d, want > 3", id)
		}
		// Rolled back writes leave nothing.
		_ = store.Transact(ctx, func(tx *db.Tx) error {
			tx.Exec(ctx, "INSERT INTO accounts (slug, name, created_at, updated_at) VALUES ('gone', 'G', 1, 1)")
			return context.Canceled
		})
		if err := store.QueryRow(ctx, "SELECT COUNT(*) FROM accounts WHERE slug = 'gone'").Scan(&n); err != nil || n != 0 {
			t.Fatalf("rolled back row visible: %d %v", n, err)
		}
		// Booleans round-trip identically.
		var b bool
		if err := store.QueryRow(ctx, "SELECT TRUE").Scan(&b); err != nil || !b {
			t.Fatalf("bool = %v %v", b, err)
		}
	})
}

// Concurrent writers queue on SQLite (BEGIN IMMEDIATE + busy timeout) and on
// PostgreSQL; none fails.
func TestConcurrentWriters(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				errs <- store.Transact(ctx, func(tx *db.Tx) error {
					var n int
					if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM accounts").Scan(&n); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, "INSERT INTO accounts (slug, name, created_at, updated_at) VALUES (?, 'x', 1, 1)", "w"+string(rune('a'+i)))
					return err
				})
			}(i)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestRebind(t *testing.T) {
	pg := db.Dialect{Engine: db.Postgres}
	for _, test := range []struct{ in, want string }{
		{"SELECT ?", "SELECT $1"},
		{"a = ? AND b = '?' AND c = ?", "a = $1 AND b = '?' AND c = $2"},
		{"no params", "no params"},
	} {
		if got := pg.Rebind(test.in); got != test.want {
			t.Errorf("Rebind(%q) = %q, want %q", test.in, got, test.want)
		}
	}
	if got := (db.Dialect{Engine: db.SQLite}).Rebind("a = ?"); got != "a = ?" {
		t.Errorf("sqlite rebind changed query: %q", got)
	}
}

func TestInLists(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		for _, slug := range []string{"a", "b", "c"} {
			store.Exec(ctx, "INSERT INTO accounts (slug, name, created_at, updated_at) VALUES (?, 'x', 1, 1)", slug)
		}
		count := func(q string, args ...any) int {
			var n int
			if err := store.QueryRow(ctx, q, args...).Scan(&n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return n
		}
		in, args := db.In([]string{"a", "c", "zz"})
		if n := count("SELECT COUNT(*) FROM accounts WHERE slug IN "+in, args...); n != 2 {
			t.Errorf("IN strings = %d", n)
		}
		in, args = db.In([]string{"a"})
		if n := count("SELECT COUNT(*) FROM accounts WHERE slug NOT IN "+in+" AND name = ?", append(args, "x")...); n != 2 {
			t.Errorf("NOT IN = %d", n)
		}
		in, args = db.In([]int64{})
		if n := count("SELECT COUNT(*) FROM accounts WHERE id IN "+in, args...); n != 0 {
			t.Errorf("IN empty = %d", n)
		}
		in, args = db.In([]int64{1, 2, 3})
		if n := count("SELECT COUNT(*) FROM accounts WHERE name = ? AND id IN "+in+" AND slug <> ?", append(append([]any{"x"}, args...), "b")...); n != 2 {
			t.Errorf("IN ints between other params = %d", n)
		}
	})
}

func TestSlowQueryLog(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			dsn := dbtest.DSN(t, e)
			cases := []struct {
				name      string
				threshold time.Duration
				want      bool
			}{
				{"every statement is slow at 1ns", time.Nanosecond, true},
				{"nothing is slow at an hour", time.Hour, false},
				{"zero turns the log off", 0, false},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					var buf bytes.Buffer
					log := slog.New(slog.NewTextHandler(&buf, nil))
					store, err := db.Open(context.Background(), dsn, db.Options{SlowQuery: tc.threshold, Log: log})
					if err != nil {
						t.Fatal(err)
					}
					defer store.Close()
					ctx := context.Background()
					var one int
					if err := store.QueryRow(ctx, `SELECT 1 WHERE 1 = ?`, 1).Scan(&one); err != nil {
						t.Fatal(err)
					}
					if err := store.Transact(ctx, func(tx *db.Tx) error {
						_, err := tx.Exec(ctx, `SELECT   2`)
						return err
					}); err != nil {
						t.Fatal(err)
					}
					got := buf.String()
					if tc.want {
						for _, q := range []string{`query="SELECT 1 WHERE 1 = ?"`, `query="SELECT 2"`} {
							if !strings.Contains(got, q) || !strings.Contains(got, "slow query") {
								t.Errorf("log lacks %s:\n%s", q, got)
							}
						}
					} else if got != "" {
						t.Errorf("logged with threshold %v:\n%s", tc.threshold, got)
					}
				})
			}
		})
	}
}

// SQLite write transactions of one process take turns on a queue; one that
// waits past the busy timeout gets ErrBusy, one whose request is cancelled
// gets the context's error, and neither ever reaches the database.
func TestSQLiteWriteTurns(t *testing.T) {
	dsn := dbtest.DSN(t, db.SQLite)
	store, err := db.Open(context.Background(), dsn, db.Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	holding, done := make(chan struct{}), make(chan struct{})
	go store.Transact(context.Background(), func(tx *db.Tx) error {
		close(holding)
		<-done
		return nil
	})
	<-holding
	defer close(done)

	start := time.Now()
	err = store.Transact(context.Background(), func(tx *db.Tx) error { t.Error("ran while another writer held its turn"); return nil })
	if !errors.Is(err, db.ErrBusy) || time.Since(start) < 50*time.Millisecond {
		t.Errorf("got %v after %v, want ErrBusy after the 50ms busy timeout", err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := store.Transact(ctx, func(tx *db.Tx) error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled wait: got %v", err)
	}
}

// An after-commit callback may start a write transaction of its own: the
// committed transaction has given up its write turn by then.
func TestAfterCommitMayWrite(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		var inner error
		ran := false
		err := store.Transact(ctx, func(tx *db.Tx) error {
			tx.AfterCommit(func() {
				ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				inner = store.Transact(ctx, func(tx *db.Tx) error { ran = true; return nil })
			})
			return nil
		})
		if err != nil || inner != nil || !ran {
			t.Errorf("outer %v, inner %v, inner ran %v", err, inner, ran)
		}
	})
}
