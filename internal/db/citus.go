package db

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"

	"github.com/jackc/pgx/v5"
)

// On a Citus cluster (docs/scale-out.md) every per-account table is
// distributed by account_id, all of them colocated, so one account's rows
// live on one shard group and every statement that names the account runs
// on one worker. The tables below are the exceptions.

// ReferenceTables are copied whole to every node: accounts, and the tables
// a request looks up by a key, uuid or token before it knows its account
// (an API key's hash, a channel's callback uuid, an ingest node's uuid, a
// dashboard session's or an invitation's token). They are small and change
// rarely; a foreign key from one of them to a distributed table cannot be
// kept on Citus and is dropped by Distribute (the code that writes them
// checks the account of what they name).
var ReferenceTables = []string{"accounts", "api_keys", "channels", "input_nodes", "dashboard_sessions", "invitations"}

// CoordinatorTables stay plain tables on the coordinator: state of the
// server processes rather than of an account (migrations, heartbeats,
// rate-limit windows, sign-in throttles, worker instances). Every serve
// process talks to the coordinator, so they stay one table for all.
var CoordinatorTables = []string{"goose_db_version", "heartbeat", "rate_usage", "signin_attempts", "worker_instances"}

// Citus reports whether the store is a Citus coordinator (the extension is
// installed in its database).
func (db *DB) Citus(ctx context.Context) (bool, error) {
	if db.dialect.Engine != Postgres {
		return false, nil
	}
	var ok bool
	err := db.sql.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`).Scan(&ok)
	return ok, err
}

// Distribute makes the schema's tables Citus tables: reference tables
// first, then every table with an account_id column distributed by it, all
// in one transaction. Tables already
// distributed are left alone, so it runs after every migration (a new table
// gets distributed, the rest is a no-op). Nothing happens on an engine
// without Citus.
func (db *DB) Distribute(ctx context.Context, log *slog.Logger) error {
	if ok, err := db.Citus(ctx); err != nil || !ok {
		return err
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var schema string
	if err := conn.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return err
	}
	// Two processes starting together distribute one at a time; the second
	// finds everything done.
	h := fnv.New64a()
	h.Write([]byte("frontdesk/distribute/" + schema))
	key := int64(h.Sum64())
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, key)

	// Processes distributing other schemas of the same cluster at the same
	// time (the tests do) can meet in a distributed deadlock, which Citus
	// breaks by cancelling one of them: its transaction rolled back whole,
	// so it is run again after a pause, as Transact does.
	return db.retrying(ctx, 5, func() error { return db.distributeOnce(ctx, conn, log) })
}

// distributeOnce is one attempt of Distribute, on conn (which holds the
// schema's advisory lock).
func (db *DB) distributeOnce(ctx context.Context, conn *sql.Conn, log *slog.Logger) error {
	tables, err := schemaTables(ctx, conn)
	if err != nil {
		return err
	}
	if !needsDistribution(tables) {
		return nil
	}
	// One transaction: a crash half-way leaves the schema as it was, never
	// tables distributed with their foreign keys still off. Sequential mode
	// lets one transaction create shards and then constrain them.
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`); err != nil {
		return err
	}
	// A plain table with a foreign key to a reference table would be made
	// a "Citus local table" (which cannot then be distributed), and Citus
	// distributes a table only once what it refers to is: so the foreign
	// keys of the tables about to change come off first and go back on
	// once every table is in place. Those from a reference table to a
	// distributed one cannot be kept and stay off.
	exec := func(q string, args ...any) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}
	var restore []foreignKey
	for name, t := range tables {
		for _, fk := range t.fks {
			if t.kind != "" && tables[fk.to] != nil && tables[fk.to].kind != "" {
				continue // both already Citus tables: the key is kept
			}
			if t.kind == "" && tables[fk.to] == nil {
				continue
			}
			if err := exec(fmt.Sprintf(`ALTER TABLE %s DROP CONSTRAINT %s`, quoteIdent(name), quoteIdent(fk.name))); err != nil {
				return fmt.Errorf("distribute %s: %w", name, err)
			}
			if !(slices.Contains(ReferenceTables, name) && !slices.Contains(ReferenceTables, fk.to)) {
				restore = append(restore, fk)
			}
		}
	}
	for _, t := range ReferenceTables {
		if tables[t] == nil || tables[t].kind != "" {
			continue
		}
		if err := exec(`SELECT create_reference_table($1)`, t); err != nil {
			return fmt.Errorf("distribute %s: %w", t, err)
		}
		if log != nil {
			log.Info("reference table created", "table", t)
		}
	}
	for _, name := range sortedNames(tables) {
		t := tables[name]
		if !t.hasAccount || t.kind != "" || slices.Contains(ReferenceTables, name) {
			continue
		}
		if err := exec(`SELECT create_distributed_table($1, 'account_id')`, name); err != nil {
			return fmt.Errorf("distribute %s: %w", name, err)
		}
		if log != nil {
			log.Info("table distributed", "table", name, "by", "account_id")
		}
	}
	for _, fk := range restore {
		if err := exec(fmt.Sprintf(`ALTER TABLE %s ADD CONSTRAINT %s %s`, quoteIdent(fk.from), quoteIdent(fk.name), fk.def)); err != nil {
			return fmt.Errorf("distribute %s: %w", fk.from, err)
		}
	}
	return tx.Commit()
}

// needsDistribution reports whether a table is still to become a Citus
// table: a reference table or one with an account_id column.
func needsDistribution(tables map[string]*schemaTable) bool {
	for name, t := range tables {
		if t.kind == "" && (t.hasAccount || slices.Contains(ReferenceTables, name)) {
			return true
		}
	}
	return false
}

type schemaTable struct {
	hasAccount bool
	kind       string // citus_tables' type, "" when a plain table
	fks        []foreignKey
}

type foreignKey struct{ from, name, to, def string }

// schemaTables reads the current schema's tables, their foreign keys and
// what Citus has made of them.
func schemaTables(ctx context.Context, conn *sql.Conn) (map[string]*schemaTable, error) {
	out := map[string]*schemaTable{}
	rows, err := conn.QueryContext(ctx, `SELECT c.relname,
			EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'account_id' AND NOT a.attisdropped),
			COALESCE((SELECT CASE p.partmethod WHEN 'h' THEN 'distributed' ELSE 'reference' END FROM pg_dist_partition p WHERE p.logicalrelid = c.oid), '')
		FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var name string
		t := &schemaTable{}
		if err := rows.Scan(&name, &t.hasAccount, &t.kind); err != nil {
			rows.Close()
			return nil, err
		}
		out[name] = t
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = conn.QueryContext(ctx, `SELECT r.relname, f.conname, t.relname, pg_get_constraintdef(f.oid)
		FROM pg_constraint f JOIN pg_class r ON r.oid = f.conrelid JOIN pg_class t ON t.oid = f.confrelid
		WHERE f.contype = 'f' AND f.connamespace = current_schema()::regnamespace`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var fk foreignKey
		if err := rows.Scan(&fk.from, &fk.name, &fk.to, &fk.def); err != nil {
			return nil, err
		}
		if t := out[fk.from]; t != nil {
			t.fks = append(t.fks, fk)
		}
	}
	return out, rows.Err()
}

// sortedNames is the tables' names in order (logs and errors that read the
// same on every run).
func sortedNames(tables map[string]*schemaTable) []string {
	names := make([]string, 0, len(tables))
	for name := range tables {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return pgx.Identifier{s}.Sanitize() }
