package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// runCmdAt is runCmd with the clock at now.
func runCmdAt(t *testing.T, dsn string, now time.Time, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Getenv: func(k string) string {
		if k == "FRONTDESK_DB" {
			return dsn
		}
		return ""
	}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Clock: clock.NewFake(now)}
	code = run(context.Background(), args, env)
	return code, out.String(), errb.String()
}

// TestRetentionCommand: the dry run says what would go and changes
// nothing; the run then removes exactly that; an unknown account exits 1,
// a missing --account 2 (docs/retention.md).
func TestRetentionCommand(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			ctx := context.Background()
			dsn := dbtest.DSN(t, e)
			now := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
			file := filepath.Join(t.TempDir(), "w.yaml")
			os.WriteFile(file, []byte("account: {slug: acme, retention: {audit: 12mo, messages: 30d}}\n"), 0o600)
			if code, _, stderr := runCmdAt(t, dsn, now, "workspace", "apply", "-f", file); code != 0 {
				t.Fatalf("workspace apply: %d %s", code, stderr)
			}
			os.WriteFile(file, []byte("account: {slug: other}\n"), 0o600)
			if code, _, stderr := runCmdAt(t, dsn, now, "workspace", "apply", "-f", file); code != 0 {
				t.Fatalf("workspace apply: %d %s", code, stderr)
			}
			store, err := db.Open(ctx, dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			acct, err := account.BySlug(ctx, store, "acme")
			if err != nil {
				t.Fatal(err)
			}
			for _, at := range []time.Time{now.AddDate(-2, 0, 0), now.AddDate(-1, 0, -1), now.AddDate(0, -11, 0), now} {
				if _, err := store.Exec(ctx, `INSERT INTO audit_log (account_id, action, object_type, created_at) VALUES (?, 'updated', 'service', ?)`,
					acct.ID, db.Micros(at)); err != nil {
					t.Fatal(err)
				}
			}
			entries := func() (n int) {
				store.QueryRow(ctx, `SELECT COUNT(*) FROM audit_log WHERE account_id = ?`, acct.ID).Scan(&n)
				return n
			}

			code, out, stderr := runCmdAt(t, dsn, now, "retention", "run", "--account", "acme", "--dry-run")
			want := "dry run for acme at 2026-06-15T12:00:00Z: nothing was changed\n" +
				"KIND      KEEP  OLDER THAN            WOULD GO\n" +
				"messages  30d   2026-05-16T12:00:00Z  0 blanked\n" +
				"audit     12mo  2025-06-15T12:00:00Z  2 rows\n"
			if code != 0 || out != want || entries() != 4 {
				t.Fatalf("dry run: %d, %d entries left\n%s\nwant\n%s%s", code, entries(), out, want, stderr)
			}
			code, out, _ = runCmdAt(t, dsn, now, "retention", "run", "--account", "acme")
			if code != 0 || !strings.Contains(out, "REMOVED") || !strings.Contains(out, "audit     12mo  2025-06-15T12:00:00Z  2 rows") || entries() != 2 {
				t.Fatalf("run: %d, %d entries left\n%s", code, entries(), out)
			}
			code, out, _ = runCmdAt(t, dsn, now, "retention", "run", "--account", "other")
			if code != 0 || out != "other keeps everything forever: its workspace file sets no account.retention\n" {
				t.Fatalf("no policy: %d %q", code, out)
			}
			for _, c := range []struct {
				args   []string
				code   int
				stderr string
			}{
				{[]string{"retention", "run", "--account", "nobody"}, 1, `account "nobody" not found`},
				{[]string{"retention", "run"}, 2, "--account SLUG is required"},
				{[]string{"retention", "purge"}, 2, "usage: frontdesk retention run"},
			} {
				code, _, stderr := runCmdAt(t, dsn, now, c.args...)
				if code != c.code || !strings.Contains(stderr, c.stderr) {
					t.Errorf("%v: %d %q, want %d %q", c.args, code, stderr, c.code, c.stderr)
				}
			}
		})
	}
}

// TestWorkerRunsRetention: `frontdesk worker` runs an account's retention
// on its own (the job worker's periodic tasks), by its clock.
func TestWorkerRunsRetention(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			dsn := dbtest.DSN(t, e)
			now := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
			file := filepath.Join(t.TempDir(), "w.yaml")
			os.WriteFile(file, []byte("account: {slug: acme, retention: {audit: 1y}}\n"), 0o600)
			if code, _, stderr := runCmdAt(t, dsn, now, "workspace", "apply", "-f", file); code != 0 {
				t.Fatalf("workspace apply: %d %s", code, stderr)
			}
			store, err := db.Open(context.Background(), dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			acct, _ := account.BySlug(context.Background(), store, "acme")
			for _, at := range []time.Time{now.AddDate(-2, 0, 0), now} {
				store.Exec(context.Background(), `INSERT INTO audit_log (account_id, action, object_type, created_at) VALUES (?, 'updated', 'service', ?)`, acct.ID, db.Micros(at))
			}

			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			var out, errb bytes.Buffer
			env := &Env{Getenv: func(string) string { return "" }, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Clock: clock.NewFake(now)}
			go func() { done <- run(ctx, []string{"worker", "--db", dsn, "--poll", "10ms"}, env) }()
			var n int
			for i := 0; i < 500; i++ {
				store.QueryRow(context.Background(), `SELECT COUNT(*) FROM audit_log WHERE account_id = ?`, acct.ID).Scan(&n)
				if n == 1 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("worker exited %d: %s", code, errb.String())
			}
			if n != 1 {
				t.Fatalf("the worker left %d audit entries, want 1", n)
			}
		})
	}
}
