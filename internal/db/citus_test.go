package db_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// citusStore is a fresh migrated store on the Citus coordinator of
// FRONTDESK_TEST_CITUS; the test is skipped without one.
func citusStore(t *testing.T) *db.DB {
	t.Helper()
	if os.Getenv(dbtest.EnvCitus) == "" {
		t.Skipf("Citus tests skipped: set %s to a coordinator's DSN (docs/scale-out.md)", dbtest.EnvCitus)
	}
	store := dbtest.Open(t, db.Postgres)
	if ok, err := store.Citus(context.Background()); err != nil || !ok {
		t.Fatalf("%s is not a Citus coordinator (citus extension: %v, %v)", dbtest.EnvCitus, ok, err)
	}
	return store
}

type citusTable struct {
	kind, column string
	colocation   int64
}

// citusTables reads citus_tables for the store's schema, and the schema's
// tables that carry an account_id column.
func citusTables(t *testing.T, store *db.DB) (map[string]citusTable, []string, []string) {
	t.Helper()
	ctx := context.Background()
	var ext string // the schema of the extension's citus_tables view
	if err := store.QueryRow(ctx, `SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'citus_tables'`).Scan(&ext); err != nil {
		t.Fatal(err)
	}
	rows, err := store.Query(ctx, `SELECT c.relname, ct.citus_table_type, ct.distribution_column, ct.colocation_id
		FROM `+ext+`.citus_tables ct JOIN pg_class c ON c.oid = ct.table_name
		WHERE c.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]citusTable{}
	for rows.Next() {
		var name string
		var ct citusTable
		if err := rows.Scan(&name, &ct.kind, &ct.column, &ct.colocation); err != nil {
			t.Fatal(err)
		}
		got[name] = ct
	}
	rows.Close()
	var perAccount, all []string
	rows, err = store.Query(ctx, `SELECT c.relname, EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'account_id' AND NOT a.attisdropped)
		FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') ORDER BY c.relname`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var hasAccount bool
		if err := rows.Scan(&name, &hasAccount); err != nil {
			t.Fatal(err)
		}
		all = append(all, name)
		if hasAccount && !slices.Contains(db.ReferenceTables, name) {
			perAccount = append(perAccount, name)
		}
	}
	return got, perAccount, all
}

// TestCitusTables reads citus_tables: every per-account table is
// distributed by account_id, all in one colocation group; the lookup tables
// are reference tables; the processes' own tables stay on the coordinator;
// nothing else exists.
func TestCitusTables(t *testing.T) {
	store := citusStore(t)
	check := func(t *testing.T) {
		got, perAccount, all := citusTables(t, store)
		if len(perAccount) < 30 {
			t.Fatalf("only %d per-account tables found: %v", len(perAccount), perAccount)
		}
		group := got[perAccount[0]].colocation
		for _, name := range perAccount {
			ct, ok := got[name]
			switch {
			case !ok:
				t.Errorf("%s has account_id and is not a Citus table", name)
			case ct.kind != "distributed" || ct.column != "account_id":
				t.Errorf("%s is %s by %q, want distributed by account_id", name, ct.kind, ct.column)
			case ct.colocation != group:
				t.Errorf("%s is in colocation group %d, the others in %d", name, ct.colocation, group)
			}
		}
		for _, name := range db.ReferenceTables {
			if ct := got[name]; ct.kind != "reference" {
				t.Errorf("%s is %q, want a reference table", name, ct.kind)
			}
		}
		for _, name := range all {
			if slices.Contains(perAccount, name) || slices.Contains(db.ReferenceTables, name) {
				continue
			}
			if !slices.Contains(db.CoordinatorTables, name) {
				t.Errorf("%s is neither per-account, a reference table nor a coordinator table: say what it is in db.ReferenceTables or db.CoordinatorTables", name)
			}
			if _, ok := got[name]; ok {
				t.Errorf("%s is a Citus table, want a plain table on the coordinator", name)
			}
		}
	}
	t.Run("after migrate", check)
	// Distributing again (every migrate does) changes nothing and keeps
	// the foreign keys.
	ctx := context.Background()
	var fks int
	count := `SELECT COUNT(*) FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace`
	if err := store.QueryRow(ctx, count).Scan(&fks); err != nil {
		t.Fatal(err)
	}
	if err := store.Migrate(ctx, nil); err != nil {
		t.Fatalf("migrate again: %v", err)
	}
	var again int
	if err := store.QueryRow(ctx, count).Scan(&again); err != nil {
		t.Fatal(err)
	}
	if fks < 40 || again != fks {
		t.Errorf("foreign keys: %d after the first migrate, %d after the second (want the same, at least 40)", fks, again)
	}
	t.Run("migrated twice", check)
	// A table a later migration adds, the way docs/scale-out.md says
	// (created without foreign keys, distributed, then given its keys), is
	// distributed and keeps its keys.
	if _, err := store.Exec(ctx, `CREATE TABLE later_notes (account_id BIGINT NOT NULL, id BIGINT NOT NULL,
		client_id BIGINT NOT NULL, PRIMARY KEY (account_id, id))`); err != nil {
		t.Fatal(err)
	}
	if err := store.Distribute(ctx, nil); err != nil {
		t.Fatalf("distribute a new table: %v", err)
	}
	for _, fk := range []string{"(account_id) REFERENCES accounts (id)", "(account_id, client_id) REFERENCES clients (account_id, id)"} {
		if _, err := store.Exec(ctx, `ALTER TABLE later_notes ADD FOREIGN KEY `+fk); err != nil {
			t.Fatalf("keys of a new distributed table: %v", err)
		}
	}
	got, _, _ := citusTables(t, store)
	if ct := got["later_notes"]; ct.kind != "distributed" || ct.colocation != got["clients"].colocation {
		t.Errorf("a new per-account table: %+v, want distributed with clients (%+v)", ct, got["clients"])
	}
}

// TestCitusRouting: statements that name the account run on one shard
// (the coordinator's EXPLAIN shows a single task), and a foreign key
// between per-account tables holds on the cluster.
func TestCitusRouting(t *testing.T) {
	store := citusStore(t)
	ctx := context.Background()
	if _, err := store.Exec(ctx, `INSERT INTO accounts (id, slug, name, timezone, default_region, created_at, updated_at) VALUES (7, 'a7', 'A7', 'UTC', 'ES', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`SELECT * FROM appointments a JOIN clients c ON c.account_id = a.account_id AND c.id = a.client_id WHERE a.account_id = 7`,
		`SELECT * FROM jobs WHERE account_id = 7 AND id IN (1, 2, 3)`,
	} {
		rows, err := store.Query(ctx, "EXPLAIN "+q)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var line string
			rows.Scan(&line)
			plan = append(plan, line)
		}
		rows.Close()
		if !slices.ContainsFunc(plan, func(l string) bool { return strings.Contains(l, "Task Count: 1") }) {
			t.Errorf("%s is not a one-shard statement:\n%v", q, plan)
		}
	}
	_, err := store.Exec(ctx, `INSERT INTO appointments (account_id, client_id, service_id, professional_id, event_type_id, start_at, end_at, status, source, created_at, updated_at)
		VALUES (7, 999, 1, 1, 1, 0, 1, 'booked', 'api', 0, 0)`)
	if err == nil {
		t.Error("an appointment naming a client that does not exist was written on the cluster")
	}
}
