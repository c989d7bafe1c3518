package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
)

func readyz(t *testing.T, srv *httpapi.Server) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	return rec.Code, rec.Body.String()
}

func openMigrated(t *testing.T, dsn string) *db.DB {
	t.Helper()
	store, err := db.Open(context.Background(), dsn, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := store.Migrate(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return store
}

func quietServer(store *db.DB) *httpapi.Server {
	return httpapi.NewServer(httpapi.Config{DB: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// A SQLite database that cannot grow (a full disk, here its page count
// capped on every connection of the server's pool) answers reads but
// refuses writes: /readyz says 503, and 200 again once there is room.
func TestReadyDiskFullSQLite(t *testing.T) {
	ctx := context.Background()
	path := dbtest.DSN(t, db.SQLite)
	var pages int
	first := openMigrated(t, path)
	if err := first.QueryRow(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	first.Close()
	capped := "file:" + path + "?_pragma=" + url.QueryEscape(fmt.Sprintf("max_page_count(%d)", pages+40))
	store := openMigrated(t, capped)
	srv := quietServer(store)
	if code, body := readyz(t, srv); code != 200 {
		t.Fatalf("readyz with room to write: %d %s", code, body)
	}
	if _, err := store.Exec(ctx, `CREATE TABLE filler (b TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		_, err := store.Exec(ctx, `INSERT INTO filler (b) VALUES (hex(randomblob(2000)))`)
		if err != nil {
			if !strings.Contains(err.Error(), "full") {
				t.Fatal(err)
			}
			break
		}
		if i > 1000 {
			t.Fatal("the capped database never filled up")
		}
	}
	if err := store.Ping(ctx); err != nil {
		t.Fatalf("the full database should still answer: %v", err)
	}
	time.Sleep(1100 * time.Millisecond) // past the probe's pacing
	if code, body := readyz(t, srv); code != 503 || !strings.Contains(body, "refuses writes") {
		t.Errorf("readyz on a full database: %d %s", code, body)
	}
	if _, err := store.Exec(ctx, `DELETE FROM filler`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	if code, body := readyz(t, srv); code != 200 {
		t.Errorf("readyz once there is room again: %d %s", code, body)
	}
}

// A PostgreSQL session that may not write (default_transaction_read_only
// set on this test's own connections only, as a read-only replica or a
// server out of disk would behave) is not ready.
func TestReadyReadOnlyPostgres(t *testing.T) {
	dsn := dbtest.DSN(t, db.Postgres)
	if code, body := readyz(t, quietServer(openMigrated(t, dsn))); code != 200 {
		t.Fatalf("readyz on a writable database: %d %s", code, body)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("default_transaction_read_only", "on")
	u.RawQuery = q.Encode()
	store, err := db.Open(context.Background(), u.String(), db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if code, body := readyz(t, quietServer(store)); code != 503 || !strings.Contains(body, "refuses writes") {
		t.Errorf("readyz on a read-only session: %d %s", code, body)
	}
}
