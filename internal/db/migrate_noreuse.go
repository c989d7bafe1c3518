package db

// Migration 00021: ids of deleted rows are never handed out again.
//
// SQLite's INTEGER PRIMARY KEY gives a new row max(id)+1, so deleting the
// newest row frees its id for the next insert: a stale "delete webhook #6"
// (a form left open, a retried request) then deletes the newer #6, and the
// audit log names two different invitations #7. AUTOINCREMENT keeps the
// highest id ever used in sqlite_sequence and never goes below it.
// PostgreSQL's identity columns never reuse an id, so there this migration
// does nothing.
//
// The tables rebuilt are every table with an id whose rows the code
// deletes (noReuseTables); docs/api-notes.md "Ids" says which and why. Left
// as they are: tables without an id column (client_tags,
// service_professionals, service_event_types, rate_usage, signin_attempts,
// idempotency_keys), heartbeat (it deletes only rows below its newest, whose
// id therefore stays the highest) and what the bench tool deletes from its
// own database between rounds. TestDeletedRowsNeverReuseIDs reads the code's
// DELETE statements and fails on a table this list misses.
//
// It is a Go migration rather than a .sql file because SQLite cannot add
// AUTOINCREMENT to a table: the table is rebuilt (sqlite.org/lang_altertable
// "Making Other Kinds Of Table Schema Changes"), and the rebuild starts from
// the table's own stored definition, so columns, indexes and triggers that
// other migrations added (in whatever order they were applied) are kept.

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"

	"github.com/pressly/goose/v3"
)

// noReuseTables are the tables migration 00021 gives AUTOINCREMENT on
// SQLite, each with the audit log's object type naming its rows ("" when
// the audit log does not name them).
var noReuseTables = []struct{ table, auditType string }{
	{"webhooks", "webhook"},
	{"invitations", "invitation"},
	{"dashboard_sessions", ""},
}

// goMigrations are the migrations written in Go, for engine e.
func goMigrations(e Engine) []*goose.Migration {
	up, down := noop, noop
	if e == SQLite {
		up = func(ctx context.Context, tx *sql.Tx) error { return rebuildIDs(ctx, tx, true) }
		down = func(ctx context.Context, tx *sql.Tx) error { return rebuildIDs(ctx, tx, false) }
	}
	return []*goose.Migration{
		goose.NewGoMigration(21, &goose.GoFunc{RunTx: up}, &goose.GoFunc{RunTx: down}),
		searchTextMigration(e),
	}
}

func noop(context.Context, *sql.Tx) error { return nil }

// rebuildIDs rebuilds each table of noReuseTables with (autoincrement) or
// without AUTOINCREMENT on its id. Going up, sqlite_sequence starts at the
// highest id the table or the audit log knows of, so an id deleted before
// the migration is not reused either when the audit log names it.
func rebuildIDs(ctx context.Context, tx *sql.Tx, autoincrement bool) error {
	for _, t := range noReuseTables {
		if err := rebuildTable(ctx, tx, t.table, autoincrement); err != nil {
			return fmt.Errorf("rebuild %s: %w", t.table, err)
		}
		if !autoincrement {
			continue
		}
		var seq int64
		q := `SELECT MAX(COALESCE((SELECT MAX(id) FROM ` + t.table + `), 0), COALESCE((SELECT MAX(CAST(object_id AS INTEGER)) FROM audit_log WHERE object_type = ?), 0))`
		if err := tx.QueryRowContext(ctx, q, t.auditType).Scan(&seq); err != nil {
			return fmt.Errorf("rebuild %s: highest id: %w", t.table, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sqlite_sequence WHERE name = ?`, t.table); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)`, t.table, seq); err != nil {
			return err
		}
	}
	return nil
}

var (
	idColumn  = regexp.MustCompile(`(?i)\bid\s+INTEGER\s+PRIMARY\s+KEY(\s+AUTOINCREMENT)?\b`)
	tableHead = regexp.MustCompile(`(?i)^\s*CREATE\s+TABLE\s+"?[a-z_][a-z0-9_]*"?\s*\(`)
)

// rebuildTable recreates table from its stored definition with the id
// column's AUTOINCREMENT switched on or off, keeping its rows, indexes and
// triggers. Nothing may refer to the table by foreign key: dropping it
// would have to be done with the keys off, which a transaction cannot do.
func rebuildTable(ctx context.Context, tx *sql.Tx, table string, autoincrement bool) error {
	var def string
	if err := tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&def); err != nil {
		return fmt.Errorf("definition: %w", err)
	}
	m := idColumn.FindAllStringSubmatchIndex(def, -1)
	if len(m) != 1 || !tableHead.MatchString(def) {
		return fmt.Errorf("cannot read the id column of %q", def)
	}
	if has := m[0][2] >= 0; has == autoincrement {
		return nil // already so
	}
	var referrers []string
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT m.name FROM sqlite_master m, pragma_foreign_key_list(m.name) f
		WHERE m.type = 'table' AND f."table" = ? AND m.name <> ?`, table, table)
	if err != nil {
		return err
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		referrers = append(referrers, n)
	}
	rows.Close()
	if len(referrers) > 0 {
		return fmt.Errorf("referred to by %s", strings.Join(referrers, ", "))
	}

	id := "id INTEGER PRIMARY KEY"
	if autoincrement {
		id += " AUTOINCREMENT"
	}
	tmp := table + "_rebuild"
	newDef := def[:m[0][0]] + id + def[m[0][1]:]
	newDef = tableHead.ReplaceAllLiteralString(newDef, "CREATE TABLE "+tmp+" (")

	var extras []string // indexes and triggers, recreated after the swap
	rows, err = tx.QueryContext(ctx, `SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name`, table)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		extras = append(extras, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	steps := []string{
		newDef,
		`INSERT INTO ` + tmp + ` SELECT * FROM ` + table,
		`DROP TABLE ` + table,
		`ALTER TABLE ` + tmp + ` RENAME TO ` + table,
	}
	for _, s := range append(steps, extras...) {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", firstLine(s), err)
		}
	}
	var problems int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_foreign_key_check(?)`, table).Scan(&problems); err != nil {
		return err
	}
	if problems > 0 {
		return fmt.Errorf("%d rows fail their foreign keys", problems)
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
