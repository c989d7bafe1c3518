package db_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

func openSQLite(t *testing.T, path string) *db.DB {
	t.Helper()
	store, err := db.Open(context.Background(), path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Migrate(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return store
}

func checkModes(t *testing.T, path string, names ...string) {
	t.Helper()
	for _, n := range names {
		st, err := os.Stat(path + n)
		if err != nil {
			t.Errorf("%s%s: %v", path, n, err)
		} else if st.Mode().Perm() != 0o600 {
			t.Errorf("%s%s has mode %v, want -rw-------", path, n, st.Mode().Perm())
		}
	}
}

// A new database, its -wal and its -shm are readable by their owner only;
// an existing database readable by others is restricted when opened.
func TestSQLiteFileModes(t *testing.T) {
	ctx := context.Background()
	path := dbtest.DSN(t, db.SQLite)
	store := openSQLite(t, path)
	if _, err := store.Exec(ctx, `INSERT INTO accounts (slug, name, created_at, updated_at) VALUES ('a', 'A', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	checkModes(t, path, "", "-wal", "-shm")

	old := filepath.Join(t.TempDir(), "old.db")
	if err := os.WriteFile(old, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(old, 0o644) // whatever the umask
	openSQLite(t, old)
	checkModes(t, old, "", "-wal", "-shm")
}

// A copy of the database file alone, taken while the server runs, holds
// the schema: migrations are checkpointed out of the WAL.
func TestCopyOfRunningDatabaseHasSchema(t *testing.T) {
	path := dbtest.DSN(t, db.SQLite)
	openSQLite(t, path) // stays open, like a running server
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(cp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := db.VerifySQLite(context.Background(), cp); err != nil {
		t.Fatal(err)
	}
}

// probeRows counts the rows of the test's own table in the SQLite file at
// path and checks they are 1..n with no gap (one consistent snapshot).
func probeRows(t *testing.T, path string) int {
	t.Helper()
	store, err := db.Open(context.Background(), path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var n, max int
	if err := store.QueryRow(context.Background(), `SELECT COUNT(*), COALESCE(MAX(id), 0) FROM backup_probe`).Scan(&n, &max); err != nil {
		t.Fatal(err)
	}
	if n != max {
		t.Errorf("%d rows but the highest id is %d", n, max)
	}
	return n
}

// A backup taken while another connection keeps committing holds every
// row committed before it began and passes integrity_check; it is written
// 0600 and never overwrites a file without force.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	path := dbtest.DSN(t, db.SQLite)
	server := openSQLite(t, path)
	if _, err := server.Exec(ctx, `CREATE TABLE backup_probe (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	// Enough data that the copy takes a while.
	if _, err := server.Exec(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
		INSERT INTO backup_probe (id, body) SELECT i, hex(randomblob(200)) FROM n`); err != nil {
		t.Fatal(err)
	}
	// Another process's connection writes one row per transaction until
	// told to stop.
	writer, err := db.Open(ctx, path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	var committed atomic.Int64
	committed.Store(20000)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := int64(20001); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := writer.Exec(ctx, `INSERT INTO backup_probe (id, body) VALUES (?, 'w')`, i); err != nil {
				t.Error(err)
				return
			}
			committed.Store(i)
		}
	}()
	for committed.Load() < 20050 { // the writer is running
	}
	out := filepath.Join(t.TempDir(), "backup.db")
	before := committed.Load()
	if err := server.Backup(ctx, out, false); err != nil {
		t.Fatal(err)
	}
	after := committed.Load()
	close(stop)
	wg.Wait()
	if err := db.VerifySQLite(ctx, out); err != nil {
		t.Fatal(err)
	}
	checkModes(t, out, "")
	if n := int64(probeRows(t, out)); n < before || n > after+1 {
		t.Errorf("backup holds %d rows; %d were committed before it began, %d when it ended", n, before, after)
	}
	if after == before {
		t.Log("the writer committed nothing during the backup")
	}

	// Refuses to overwrite; --force replaces.
	data, _ := os.ReadFile(out)
	if err := server.Backup(ctx, out, false); !errors.Is(err, db.ErrExists) {
		t.Errorf("second backup to the same file: %v", err)
	}
	if now, _ := os.ReadFile(out); !bytes.Equal(now, data) {
		t.Error("the refused backup changed the file")
	}
	if err := server.Backup(ctx, out, true); err != nil {
		t.Errorf("forced backup: %v", err)
	}
	if n := probeRows(t, out); int64(n) < after {
		t.Errorf("forced backup holds %d rows, want at least %d", n, after)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// Restore refuses a corrupt backup and a database in use, and otherwise
// replaces the database with the backup: 0600, no stale -wal or -shm, the
// old file kept beside it.
func TestRestore(t *testing.T) {
	ctx := context.Background()
	path := dbtest.DSN(t, db.SQLite)
	store, err := db.Open(ctx, path, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	insert := func(from, to int) {
		t.Helper()
		for i := from; i <= to; i++ {
			if _, err := store.Exec(ctx, `INSERT INTO backup_probe (id, body) VALUES (?, 'x')`, i); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := store.Exec(ctx, `CREATE TABLE backup_probe (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	insert(1, 10)
	backup := filepath.Join(t.TempDir(), "b.db")
	if err := store.Backup(ctx, backup, false); err != nil {
		t.Fatal(err)
	}
	insert(11, 25) // after the backup: the restore must drop these

	if _, err := db.RestoreSQLite(ctx, backup, path); !errors.Is(err, db.ErrInUse) {
		t.Fatalf("restore under a running store: %v", err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	corrupt := filepath.Join(t.TempDir(), "corrupt.db")
	data, _ := os.ReadFile(backup)
	bad := append([]byte{}, data...)
	// Whole pages of garbage from the middle on: a backup has no free
	// pages, so every one of them belonged to a b-tree.
	for i := (len(bad) / 2) &^ 4095; i < len(bad); i++ {
		bad[i] = 0xAB
	}
	os.WriteFile(corrupt, bad, 0o600)
	if _, err := db.RestoreSQLite(ctx, corrupt, path); err == nil {
		t.Error("a corrupt backup was restored")
	}
	notDB := filepath.Join(t.TempDir(), "empty.db")
	os.WriteFile(notDB, []byte(strings.Repeat("x", 4096)), 0o600)
	if _, err := db.RestoreSQLite(ctx, notDB, path); err == nil {
		t.Error("a file that is no database was restored")
	}
	if n := probeRows(t, path); n != 25 {
		t.Fatalf("refused restores changed the database: %d rows", n)
	}
	// Leave a stale WAL behind, as a crashed server would.
	os.WriteFile(path+"-wal", []byte("stale"), 0o600)

	kept, err := db.RestoreSQLite(ctx, backup, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale -wal: %v", err)
	}
	checkModes(t, path, "")
	checkModes(t, kept, "")
	if n := probeRows(t, path); n != 10 {
		t.Errorf("restored database has %d rows, want the backup's 10", n)
	}
	if n := probeRows(t, kept); n != 25 {
		t.Errorf("kept database has %d rows, want 25", n)
	}
	// A restore into a path with no database yet.
	fresh := filepath.Join(t.TempDir(), "new.db")
	if _, err := db.RestoreSQLite(ctx, backup, fresh); err != nil {
		t.Fatal(err)
	}
	checkModes(t, fresh, "")
	if n := probeRows(t, fresh); n != 10 {
		t.Errorf("fresh restore: %d rows", n)
	}
}

// Every SQLite connection the pool opens carries the settings sqliteDSN
// gives it (docs/performance.md, "Statement journals in memory").
func TestSQLiteConnectionSettings(t *testing.T) {
	ctx := context.Background()
	store := openSQLite(t, dbtest.DSN(t, db.SQLite))
	// Two connections at once: the second is opened by the pool too.
	first, err := store.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := store.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	for _, tc := range []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"synchronous", "1"}, // NORMAL
		{"cache_size", "-32768"},
		{"temp_store", "2"}, // MEMORY
	} {
		for i, conn := range []interface {
			QueryRowContext(context.Context, string, ...any) *sql.Row
		}{first, second} {
			var got string
			if err := conn.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("connection %d: PRAGMA %s = %s, want %s", i, tc.pragma, got, tc.want)
			}
		}
	}
}
