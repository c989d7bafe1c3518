package db_test

import (
	"context"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// On PostgreSQL the clients table keeps free room on its pages (migration
// 00049), so rewriting clients already stored (an update batch's merge)
// puts part of the new row versions beside the old ones, writing no index
// entry. With full pages not one of them would: every version moves to
// another page. SQLite has no such setting and nothing to check; on Citus
// every shard of clients must have it.
func TestClientPagesLeaveRoomForMerges(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		if store.Engine() != db.Postgres {
			return
		}
		ctx := context.Background()
		if store.Dialect().Citus {
			// The rows, and their counts, are in the workers' shards:
			// each shard must carry the setting.
			rows, err := store.Query(ctx, `SELECT result FROM run_command_on_shards('clients',
				$$SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = '%s'::regclass$$)`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var opts string
				if err := rows.Scan(&opts); err != nil {
					t.Fatal(err)
				}
				if n++; opts != "fillfactor=85" {
					t.Errorf("a clients shard has options %q, want fillfactor=85", opts)
				}
			}
			if err := rows.Err(); err != nil || n == 0 {
				t.Fatalf("%d shards: %v", n, err)
			}
			return
		}
		if _, err := store.Exec(ctx, `INSERT INTO clients (account_id, first_name, last_name, name_search, data, created_at, updated_at)
			SELECT 1, 'Ana', 'Pérez ' || g, 'ana perez', '{"source":"crm export, a row of custom fields"}', 0, 0 FROM generate_series(1, 300) AS g`); err != nil {
			t.Fatal(err)
		}
		var updated, heapOnly int64
		err := store.Transact(ctx, func(tx *db.Tx) error {
			if _, err := tx.Exec(ctx, `UPDATE clients SET last_name = last_name || ' Gil', updated_at = 1 WHERE account_id = 1`); err != nil {
				return err
			}
			// The transaction's own counts, complete before it commits.
			return tx.QueryRow(ctx, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables
				WHERE schemaname = current_schema() AND relname = 'clients'`).Scan(&updated, &heapOnly)
		})
		if err != nil {
			t.Fatal(err)
		}
		if updated != 300 || heapOnly < 30 {
			t.Fatalf("300 clients rewritten: %d updates, %d of them on the same page; want 300 and at least 30", updated, heapOnly)
		}
	})
}
