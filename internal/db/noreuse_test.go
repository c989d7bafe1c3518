package db_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// rowOf inserts one row of a table whose deleted ids must not come back
// (migration 00021), numbered n, in account 1 (user 1), returning its id.
var rowOf = map[string]func(ctx context.Context, q db.Querier, n int) (int64, error){
	"webhooks": func(ctx context.Context, q db.Querier, n int) (int64, error) {
		var id int64
		err := q.QueryRow(ctx, `INSERT INTO webhooks (account_id, file_key, url) VALUES (1, ?, 'https://example.test/h') RETURNING id`,
			fmt.Sprintf("hook%d", n)).Scan(&id)
		return id, err
	},
	"invitations": func(ctx context.Context, q db.Querier, n int) (int64, error) {
		var id int64
		err := q.QueryRow(ctx, `INSERT INTO invitations (account_id, email, role, token_hash, created_at, expires_at)
			VALUES (1, 'a@example.test', 'staff', ?, 1, 2) RETURNING id`, fmt.Sprintf("inv%d", n)).Scan(&id)
		return id, err
	},
	"dashboard_sessions": func(ctx context.Context, q db.Querier, n int) (int64, error) {
		var id int64
		err := q.QueryRow(ctx, `INSERT INTO dashboard_sessions (account_id, user_id, token_hash, csrf_token, created_at, last_seen_at, expires_at)
			VALUES (1, 1, ?, 'c', 1, 1, 2) RETURNING id`, fmt.Sprintf("sess%d", n)).Scan(&id)
		return id, err
	},
}

// seedAccount writes account 1 and its user 1.
func seedAccount(t *testing.T, store *db.DB) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO accounts (id, slug, name, created_at, updated_at) VALUES (1, 'acme', 'Acme', 1, 1)`,
		`INSERT INTO users (id, account_id, file_key, name, created_at) VALUES (1, 1, 'u', 'U', 1)`,
	} {
		if _, err := store.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeletedIDsAreNotReused deletes the newest row of each table whose
// rows the code deletes: the next row, inserted or reserved, gets a new id.
func TestDeletedIDsAreNotReused(t *testing.T) {
	if got := db.NoReuseTables(); !slices.Equal(sortedKeys(rowOf), sorted(got)) {
		t.Fatalf("tables of migration 00021 %v; this test covers %v", got, sortedKeys(rowOf))
	}
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		seedAccount(t, store)
		n := 0
		for _, table := range db.NoReuseTables() {
			t.Run(table, func(t *testing.T) {
				insert := func() int64 {
					n++
					id, err := rowOf[table](ctx, store, n)
					if err != nil {
						t.Fatal(err)
					}
					return id
				}
				insert()
				deleted := insert()
				if _, err := store.Exec(ctx, `DELETE FROM `+table+` WHERE id = ?`, deleted); err != nil {
					t.Fatal(err)
				}
				if id := insert(); id <= deleted {
					t.Errorf("new row got id %d after %d was deleted", id, deleted)
				}
				// Reserved ids (batches) never go below a deleted one either.
				top := insert()
				if _, err := store.Exec(ctx, `DELETE FROM `+table+` WHERE id = ?`, top); err != nil {
					t.Fatal(err)
				}
				err := store.Transact(ctx, func(tx *db.Tx) error {
					ids, err := tx.Dialect().ReserveIDs(ctx, tx, table, 2)
					if err != nil {
						return err
					}
					if ids[0] <= top {
						t.Errorf("reserved %v after %d was deleted", ids, top)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

// TestMigrationKeepsRows migrates a database holding rows from the schema
// before migration 00021: rows, indexes and uniqueness stay, and neither
// the deleted newest row's id nor an id the audit log names come back.
func TestMigrationKeepsRows(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			ctx := context.Background()
			store, err := db.Open(ctx, dbtest.DSN(t, e), db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			if err := store.MigrateTo(ctx, 20); err != nil {
				t.Fatal(err)
			}
			seedAccount(t, store)
			want := map[string][]int64{}
			for _, table := range db.NoReuseTables() {
				for i := 1; i <= 3; i++ {
					id, err := rowOf[table](ctx, store, i)
					if err != nil {
						t.Fatal(err)
					}
					want[table] = append(want[table], id)
				}
				// The newest row is deleted before the migration.
				if _, err := store.Exec(ctx, `DELETE FROM `+table+` WHERE id = ?`, want[table][2]); err != nil {
					t.Fatal(err)
				}
			}
			// The audit log names the deleted webhook, as the dashboard
			// records it, and an invitation withdrawn long ago; nothing
			// names the deleted session.
			for _, q := range []string{
				fmt.Sprintf(`INSERT INTO audit_log (account_id, action, object_type, object_id, created_at) VALUES (1, 'deleted', 'webhook', '%d', 1)`, want["webhooks"][2]),
				`INSERT INTO audit_log (account_id, action, object_type, object_id, created_at) VALUES (1, 'withdrawn', 'invitation', '41', 1)`,
				`INSERT INTO audit_log (account_id, action, object_type, object_id, created_at) VALUES (1, 'created', 'api_key', 'main', 1)`,
			} {
				if _, err := store.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			if err := store.Migrate(ctx, nil); err != nil {
				t.Fatal(err)
			}
			for _, table := range db.NoReuseTables() {
				ids, err := db.QueryInt64s(ctx, store, `SELECT id FROM `+table+` ORDER BY id`)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(ids, want[table][:2]) {
					t.Errorf("%s: ids %v after migrating, want %v", table, ids, want[table][:2])
				}
				next, err := rowOf[table](ctx, store, 9)
				if err != nil {
					t.Fatal(err)
				}
				floor := map[string]int64{"webhooks": want[table][2], "invitations": 41, "dashboard_sessions": want[table][1]}[table]
				if e == db.Postgres {
					floor = want[table][2] // identity columns never went back
				}
				if next <= floor {
					t.Errorf("%s: new row got id %d, want above %d", table, next, floor)
				}
				// The unique columns are still unique.
				if _, err := rowOf[table](ctx, store, 1); !db.IsUniqueViolation(err) {
					t.Errorf("%s: duplicate unique value: %v", table, err)
				}
			}
			if e == db.SQLite {
				var indexes []string
				rows, err := store.Query(ctx, `SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('webhooks', 'invitations', 'dashboard_sessions') ORDER BY name`)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var n string
					rows.Scan(&n)
					indexes = append(indexes, n)
				}
				rows.Close()
				if want := []string{"dashboard_sessions_expires", "dashboard_sessions_user", "invitations_account"}; !slices.Equal(indexes, want) {
					t.Errorf("indexes after migrating: %v, want %v", indexes, want)
				}
				// Down and up again keeps the rows too.
				dbtest.SkipOnCitus(t, "migrations are rolled back on a single server only (docs/scale-out.md)")
				if err := store.MigrateDownTo(ctx, 20); err != nil {
					t.Fatal(err)
				}
				if err := store.Migrate(ctx, nil); err != nil {
					t.Fatal(err)
				}
				var n int
				if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM webhooks`).Scan(&n); err != nil || n != 3 {
					t.Errorf("webhooks after down and up: %d, %v", n, err)
				}
				// A session still refers to its user (foreign keys kept).
				if _, err := store.Exec(ctx, `INSERT INTO dashboard_sessions (account_id, user_id, token_hash, csrf_token, created_at, last_seen_at, expires_at)
					VALUES (1, 999, 'orphan', 'c', 1, 1, 2)`); err == nil {
					t.Error("a session of an unknown user was stored")
				}
			}
		})
	}
}

// deleteStatement finds a DELETE with a literal table name in Go source.
var deleteStatement = regexp.MustCompile("(?i)\\bDELETE\\s+FROM\\s+([a-z_][a-z0-9_]*)")

// reuseHarmless are tables the code deletes from whose ids may come back:
// nothing refers to them.
var reuseHarmless = map[string]string{
	"heartbeat": "only rows below the newest are deleted, so the highest id stays",
	// Retention (internal/retention, docs/retention.md) never deletes the
	// newest row of these tables either.
	"outbox":       "retention keeps the table's newest row, so the highest id stays",
	"jobs":         "retention keeps the table's newest row, so the highest id stays",
	"job_attempts": "retention keeps the table's newest row, so the highest id stays",
	"audit_log":    "retention keeps the table's newest row, so the highest id stays",
}

// TestDeletedRowsNeverReuseIDs reads every DELETE in the code (the bench
// tool's, which empties its own database, aside) and checks its table on a
// migrated SQLite database: no integer id, or AUTOINCREMENT on it.
func TestDeletedRowsNeverReuseIDs(t *testing.T) {
	root := filepath.Join("..", "..")
	tables := map[string]string{}
	for _, dir := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "bench" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range deleteStatement.FindAllStringSubmatch(string(src), -1) {
				tables[strings.ToLower(m[1])] = path
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(tables) < 5 {
		t.Fatalf("found only %v: is the pattern right?", tables)
	}
	store := dbtest.Open(t, db.SQLite)
	ctx := context.Background()
	for table, file := range tables {
		var def string
		if err := store.QueryRow(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&def); err != nil {
			t.Errorf("%s (%s): %v", table, file, err)
			continue
		}
		def = strings.ToUpper(def)
		hasID := regexp.MustCompile(`\bID\s+INTEGER\s+PRIMARY\s+KEY\b`).MatchString(def)
		if !hasID || strings.Contains(def, "AUTOINCREMENT") || reuseHarmless[table] != "" {
			continue
		}
		t.Errorf("%s deletes rows of %s, whose ids SQLite would reuse: add it to migration 00021's tables (a new migration)", file, table)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return sorted(out)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
