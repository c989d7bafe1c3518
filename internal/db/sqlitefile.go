package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The SQLite file holds personal data, password hashes and webhook secrets,
// so Frontdesk keeps it, its -wal and its -shm readable by their owner only.
// SQLite's unix VFS creates -wal and -shm with the main file's mode, so
// creating the main file 0600 before SQLite opens it is enough for a new
// database; an existing file readable by others is tightened (with a
// warning), since leaving it open is the leak this guards against.

// sqliteFileMode is the mode of every file of a SQLite store.
const sqliteFileMode = 0o600

// sqlitePath returns the file a SQLite DSN names, or "" for an in-memory
// database.
func sqlitePath(dsn string) string {
	p := dsn
	if strings.HasPrefix(p, "file:") {
		p = strings.TrimPrefix(p, "file:")
		var q string
		p, q, _ = strings.Cut(p, "?")
		if v, err := url.ParseQuery(q); err == nil && v.Get("mode") == "memory" {
			return ""
		}
		if u, err := url.PathUnescape(p); err == nil {
			p = u
		}
	}
	if p == "" || p == ":memory:" {
		return ""
	}
	return filepath.FromSlash(p)
}

// secureSQLiteFiles creates the database file 0600 when it does not exist
// and takes group and other permissions off an existing one and its -wal
// and -shm.
func secureSQLiteFiles(path string, log *slog.Logger) error {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, sqliteFileMode)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, st.Mode().Perm()&^0o077); err != nil {
			return fmt.Errorf("%s is readable by other users (%v) and could not be restricted: %w", p, st.Mode().Perm(), err)
		}
		if log != nil {
			log.Warn("database file was readable by other users: restricted to its owner", "file", p, "was", st.Mode().Perm().String(), "now", (st.Mode().Perm() &^ 0o077).String())
		}
	}
	return nil
}

// checkpoint copies the WAL into the database file (PASSIVE: it never
// waits for readers or writers), so a copy of the file alone holds at
// least the schema. A consistent copy of a running server still needs
// Backup.
func (db *DB) checkpoint(ctx context.Context) error {
	if db.dialect.Engine != SQLite {
		return nil
	}
	_, err := db.sql.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
	return err
}

// ErrExists is returned when a backup would overwrite a file.
var ErrExists = errors.New("file exists")

// ErrInUse is returned by RestoreSQLite while a process has the target
// database open.
var ErrInUse = errors.New("database is in use")

// Backup writes a consistent copy of a SQLite store to out, while the
// store keeps serving: VACUUM INTO reads one snapshot inside a read
// transaction, so writers (in this process or another) go on and the copy
// holds exactly the transactions committed before it began. The copy is
// written to a temporary file 0600 beside out, checked (VerifySQLite), then
// moved into place; out is replaced only when force is set.
func (db *DB) Backup(ctx context.Context, out string, force bool) error {
	if db.dialect.Engine != SQLite {
		return fmt.Errorf("backup: %s databases are backed up with their own tools", db.dialect.Engine)
	}
	if !force {
		if _, err := os.Lstat(out); err == nil {
			return fmt.Errorf("%s: %w (use --force to replace it)", out, ErrExists)
		}
	}
	tmp, err := emptyTemp(out)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once it is renamed
	// VACUUM INTO fills an existing empty file and keeps its mode.
	if _, err := db.sql.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	if err := VerifySQLite(ctx, tmp); err != nil {
		return fmt.Errorf("backup did not verify: %w", err)
	}
	if force {
		err = os.Rename(tmp, out)
	} else if err = os.Link(tmp, out); err == nil { // never clobbers a file created meanwhile
		err = os.Remove(tmp)
	} else if errors.Is(err, os.ErrExist) {
		err = fmt.Errorf("%s: %w (use --force to replace it)", out, ErrExists)
	}
	if err != nil {
		return err
	}
	return syncDir(filepath.Dir(out))
}

// VerifySQLite opens the SQLite file at path read-only and checks that
// PRAGMA integrity_check says ok and that it holds a Frontdesk schema.
func VerifySQLite(ctx context.Context, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() || st.Size() == 0 {
		return fmt.Errorf("%s is not a SQLite database", path)
	}
	conn, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro")
	if err != nil {
		return err
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		problems = append(problems, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(problems) != 1 || problems[0] != "ok" {
		return fmt.Errorf("%s: integrity_check: %s", path, strings.Join(problems, "; "))
	}
	var version int64
	if err := conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version WHERE is_applied`).Scan(&version); err != nil || version == 0 {
		return fmt.Errorf("%s holds no Frontdesk schema", path)
	}
	return nil
}

// RestoreSQLite replaces the SQLite database at target with the backup at
// from. It checks the backup first, then refuses while any connection has
// target open (see inUse), then copies the backup to a temporary file 0600
// beside target and renames it over target, so a crash leaves either the
// old database or the new one, never half of one. The old -wal and -shm
// belong to the old file and are removed. The previous database, when
// there was one, is kept as target.replaced-TIMESTAMP; its name is
// returned.
func RestoreSQLite(ctx context.Context, from, target string) (kept string, err error) {
	if err := VerifySQLite(ctx, from); err != nil {
		return "", fmt.Errorf("the backup did not verify: %w", err)
	}
	if _, err := os.Stat(target); err == nil {
		if err := inUse(ctx, target); err != nil {
			return "", err
		}
		kept = target + ".replaced-" + time.Now().UTC().Format("20060102T150405Z")
		if err := os.Link(target, kept); err != nil {
			return "", fmt.Errorf("keep the current database: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	tmp, err := emptyTemp(target)
	if err != nil {
		return kept, err
	}
	defer os.Remove(tmp)
	if err := copyFile(tmp, from); err != nil {
		return kept, err
	}
	if err := os.Rename(tmp, target); err != nil {
		return kept, err
	}
	for _, p := range []string{target + "-wal", target + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return kept, err
		}
	}
	return kept, syncDir(filepath.Dir(target))
}

// inUse reports ErrInUse when another connection, in this process or any
// other, has the SQLite database at path open. In WAL mode every open
// connection holds a shared lock on the database file for as long as it is
// open; a connection in EXCLUSIVE locking mode that asks for an exclusive
// transaction with no busy timeout fails at once with SQLITE_BUSY while one
// does. When it succeeds, its close checkpoints the WAL into the file, so
// the kept copy of the old database is complete.
func inUse(ctx context.Context, path string) error {
	conn, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=busy_timeout(0)&_pragma=locking_mode(EXCLUSIVE)")
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		if strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "locked") {
			return fmt.Errorf("%s: %w: stop the server (and any worker) using it first", path, ErrInUse)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return err
	}
	return conn.Close()
}

// emptyTemp creates an empty file 0600 in the directory of path.
func emptyTemp(path string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	if err := f.Chmod(sqliteFileMode); err != nil {
		f.Close()
		os.Remove(name)
		return "", err
	}
	return name, f.Close()
}

// copyFile copies src into the existing file dst and syncs it.
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := out.ReadFrom(in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	d.Sync() // not supported everywhere; the rename itself has happened
	return nil
}
