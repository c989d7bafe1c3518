package db_test

import (
	"context"
	"database/sql"
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
