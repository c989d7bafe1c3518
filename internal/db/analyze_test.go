package db_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// A hot table that grew by thousands of rows since its last ANALYZE gets
// one, with a VACUUM that makes its new pages all-visible (index-only
// counts); a table that did not, does not.
func TestAnalyzeGrown(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		if store.Engine() != db.Postgres || store.Dialect().Citus {
			if err := store.AnalyzeGrown(ctx); err != nil {
				t.Fatal(err) // nothing to do on SQLite, nor on Citus (the workers analyze their shards), and no error
			}
			return
		}
		if _, err := store.Exec(ctx, `INSERT INTO clients (account_id, first_name, last_name, name_search, data, created_at, updated_at)
			SELECT 1, 'A', 'B', 'a b', '{}', 0, 0 FROM generate_series(1, 3000)`); err != nil {
			t.Fatal(err)
		}
		// The worker's sends grow conversations as fast as ingest grows
		// clients.
		if _, err := store.Exec(ctx, `INSERT INTO accounts (id, slug, name, timezone, default_region, created_at, updated_at) VALUES (1, 'a1', 'A1', 'UTC', 'ES', 0, 0)`); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Exec(ctx, `INSERT INTO conversations (account_id, customer_phone_number, phone_national, status, direction, summary, message_count, created_at, updated_at)
			SELECT 1, '+34600' || g, '600' || g, 'new', 'outbound', '', 0, 0, 0 FROM generate_series(100000, 102999) g`); err != nil {
			t.Fatal(err)
		}
		analyzed := func(table string) bool {
			var at, vacuumed sql.NullTime
			if err := store.QueryRow(ctx, `SELECT last_analyze, last_vacuum FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = ?`, table).Scan(&at, &vacuumed); err != nil {
				t.Fatal(err)
			}
			if at.Valid != vacuumed.Valid {
				t.Fatalf("%s: analyzed %v, vacuumed %v", table, at.Valid, vacuumed.Valid)
			}
			return at.Valid
		}
		// The statistics collector reports the inserts within about a
		// second; the deadline is a failsafe, not a measurement.
		deadline := time.Now().Add(30 * time.Second)
		for !analyzed("clients") || !analyzed("conversations") {
			if time.Now().After(deadline) {
				t.Fatalf("clients and conversations grew by 3,000 rows: analyzed %v and %v", analyzed("clients"), analyzed("conversations"))
			}
			if err := store.AnalyzeGrown(ctx); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if analyzed("cards") {
			t.Fatal("cards did not grow and was analyzed")
		}
	})
}

// A hot table without statistics is analyzed as soon as this process has
// committed FirstAnalyzeRows rows into it, not at the keeper's next round:
// until then a 500-key lookup walks every client of the account. Rows of a
// rolled-back transaction do not count, and a table that has statistics is
// left to the rounds.
func TestAnalyzeFirst(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if store.Engine() != db.Postgres || store.Dialect().Citus {
			if err := store.AnalyzeFirst(ctx); err != nil {
				t.Fatal(err)
			}
			return
		}
		if _, err := store.Exec(ctx, `INSERT INTO accounts (id, slug, name, created_at, updated_at) VALUES (1, 'one', 'One', 0, 0)`); err != nil {
			t.Fatal(err)
		}
		next := 0
		insert := func(n int, commit bool) {
			t.Helper()
			rows := make([][]any, n)
			for i := range rows {
				next++
				e := fmt.Sprintf("contacto%d@example.com", next)
				rows[i] = []any{int64(1), "A", "B", "a b", "{}", int64(0), int64(0), e, e}
			}
			rollback := errors.New("rolled back")
			err := store.Transact(ctx, func(tx *db.Tx) error {
				if err := db.InsertMany(ctx, tx, `INSERT INTO clients (account_id, first_name, last_name, name_search, data, created_at, updated_at, email, email_norm)`, rows, ""); err != nil {
					return err
				}
				if !commit {
					return rollback
				}
				return nil
			})
			if err != nil && err != rollback {
				t.Fatal(err)
			}
		}
		// Autovacuum stays away from this test's table: only this
		// process's ANALYZE counts.
		if _, err := store.Exec(ctx, `ALTER TABLE clients SET (autovacuum_enabled = false)`); err != nil {
			t.Fatal(err)
		}
		analyzed := func() (n int) {
			t.Helper()
			if err := store.QueryRow(ctx, `SELECT analyze_count FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = 'clients'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		go store.KeepStatistics(ctx, time.Hour, nil)

		insert(300, true)
		insert(400, false)
		if err := store.AnalyzeFirst(ctx); err != nil {
			t.Fatal(err)
		}
		if n := analyzed(); n != 0 {
			t.Fatalf("clients analyzed %d times after 300 committed rows", n)
		}
		// 3,000 committed: the keeper wakes. Without statistics the lookup
		// below walks the account's 3,000 clients.
		insert(2700, true)
		deadline := time.Now().Add(30 * time.Second) // a failsafe, not a measurement
		// The count moves when ANALYZE ends, a moment before its
		// transaction commits the statistics: wait for both.
		visible := func() bool {
			var n int
			if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'clients' AND attname = 'email_norm'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n > 0
		}
		for analyzed() == 0 || !visible() {
			if time.Now().After(deadline) {
				t.Fatal("3,000 rows committed into clients without statistics, and no ANALYZE")
			}
			time.Sleep(10 * time.Millisecond)
		}

		emails := make([]string, 500)
		for i := range emails {
			emails[i] = fmt.Sprintf("contacto%d@example.com", i+1)
		}
		in, args := db.InKeys(emails)
		rows, err := store.Query(ctx, `EXPLAIN SELECT c.id FROM clients c WHERE c.account_id = ? AND c.email_norm IN `+in, append([]any{int64(1)}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := db.Column[string](rows)
		if err != nil {
			t.Fatal(err)
		}
		if text := strings.Join(plan, "\n"); !strings.Contains(text, "Index Cond: ((account_id = '1'::bigint) AND (email_norm = ANY") {
			t.Errorf("the e-mail lookup does not probe the keys:\n%s", text)
		}

		before := analyzed()
		insert(2*db.FirstAnalyzeRows, true)
		if err := store.AnalyzeFirst(ctx); err != nil {
			t.Fatal(err)
		}
		if n := analyzed(); n != before {
			t.Fatalf("clients analyzed %d times, then %d; the rounds keep a table that has statistics", before, n)
		}
	})
}
