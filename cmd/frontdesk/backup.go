package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/frontdesk/frontdesk/internal/db"
)

const backupUsage = `Usage: frontdesk backup --out FILE [--force] [--db PATH]

SQLite: writes a consistent copy of the database to FILE while the server
keeps running (VACUUM INTO: one snapshot, writers are not stopped), readable
by its owner only (0600), and checks it with PRAGMA integrity_check before
putting it in place. An existing FILE is replaced only with --force.

PostgreSQL: Frontdesk does not back up PostgreSQL itself. The command prints
the pg_dump command for the database (without its password: give it in
PGPASSWORD or ~/.pgpass) and exits 1.

Flags:
`

const restoreUsage = `Usage: frontdesk restore --from FILE [--db PATH]

SQLite only: replaces the database at --db (env FRONTDESK_DB) with the backup
FILE. The backup is checked with PRAGMA integrity_check first; the restore is
refused while a server or worker has the database open (stop them first). The
backup is copied beside the database and renamed over it, so a crash leaves
the old database or the new one; stale -wal and -shm files are removed; the
previous database is kept as PATH.replaced-TIMESTAMP.

Flags:
`

func cmdBackup(ctx context.Context, args []string, env *Env) error {
	f := newFlags("backup", env)
	out := f.String("out", "", "file to write the backup to (required)")
	force := f.Bool("force", false, "replace --out if it exists")
	f.Usage = func() {
		fmt.Fprint(f.Output(), backupUsage)
		f.PrintDefaults()
	}
	if err := f.parse(args); err != nil {
		return err
	}
	if db.IsPostgresDSN(*f.dsn) {
		file := *out
		if file == "" {
			file = "frontdesk.dump"
		}
		fmt.Fprintln(env.Stdout, pgDumpCommand(*f.dsn, file))
		return errors.New("backup: Frontdesk does not back up PostgreSQL itself: run the pg_dump command above " +
			"(the password is not shown: set PGPASSWORD or use ~/.pgpass); restore with pg_restore")
	}
	if *out == "" {
		fmt.Fprintln(env.Stderr, "backup: --out FILE is required")
		return errUsage
	}
	// Opening a missing SQLite file would create an empty database.
	if _, err := os.Stat(*f.dsn); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	store, err := db.Open(ctx, *f.dsn, db.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.Backup(ctx, *out, *force); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "backup written to %s (integrity_check ok)\n", *out)
	return nil
}

func cmdRestore(ctx context.Context, args []string, env *Env) error {
	f := newFlags("restore", env)
	from := f.String("from", "", "backup file written by frontdesk backup (required)")
	f.Usage = func() {
		fmt.Fprint(f.Output(), restoreUsage)
		f.PrintDefaults()
	}
	if err := f.parse(args); err != nil {
		return err
	}
	if db.IsPostgresDSN(*f.dsn) {
		return errors.New("restore is for SQLite: restore a PostgreSQL database with pg_restore from a pg_dump archive")
	}
	if *from == "" {
		fmt.Fprintln(env.Stderr, "restore: --from FILE is required")
		return errUsage
	}
	kept, err := db.RestoreSQLite(ctx, *from, *f.dsn)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "restored %s from %s\n", *f.dsn, *from)
	if kept != "" {
		fmt.Fprintf(env.Stdout, "the previous database is kept as %s\n", kept)
	}
	return nil
}

// libpqParams are the URL parameters pg_dump understands; others (pgx's
// pool settings, search_path) would make it refuse the URL.
var libpqParams = map[string]bool{
	"sslmode": true, "sslrootcert": true, "sslcert": true, "sslkey": true, "sslcrl": true,
	"connect_timeout": true, "application_name": true, "options": true, "target_session_attrs": true,
	"host": true, "port": true, "dbname": true, "user": true, "service": true, "channel_binding": true,
}

// pgDumpCommand returns the pg_dump command for dsn with its password
// removed; a search_path becomes --schema.
func pgDumpCommand(dsn, file string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		// Never err.Error(): it quotes the whole URL, password included.
		return "pg_dump --format=custom --file " + shellQuote(file) + " DATABASE_URL  # the configured URL does not parse as a URL"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	var schemas []string
	for _, s := range strings.Split(q.Get("search_path"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			schemas = append(schemas, s)
		}
	}
	for k := range q {
		if !libpqParams[k] {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	parts := []string{"pg_dump", "--format=custom", "--file", shellQuote(file)}
	sort.Strings(schemas)
	for _, s := range schemas {
		parts = append(parts, "--schema", shellQuote(s))
	}
	parts = append(parts, shellQuote(u.String()))
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
