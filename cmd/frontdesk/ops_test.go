package main

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/logtest"
)

// Every command and subcommand answers --help (and -h) with its usage on
// stdout and exit 0, touching no database; a flag it does not know is
// exit 2 with the usage on stderr and nothing on stdout.
func TestHelp(t *testing.T) {
	// A --db that cannot be opened: help must not try.
	missing := t.TempDir() + "/no/such/dir/frontdesk.db"
	commands := [][]string{
		{"serve"}, {"workspace"}, {"workspace", "apply"},
		{"keys"}, {"keys", "create"}, {"keys", "list"}, {"keys", "revoke"},
		{"users"}, {"users", "set-password"}, {"worker"},
		{"outbox"}, {"outbox", "list"}, {"webhooks"}, {"webhooks", "deliveries"},
		{"chat"}, {"chat", "import"}, {"import"}, {"import", "pipeline"}, {"import", "waitlist"},
		{"bench"}, {"bench", "load"}, {"migrate"}, {"backup"}, {"restore"}, {"channels"}, {"channels", "test"},
		{"mcp"},
	}
	for _, cmd := range commands {
		name := strings.Join(cmd, " ")
		for _, h := range []string{"--help", "-h"} {
			t.Run(name+" "+h, func(t *testing.T) {
				code, out, stderr := runCmd(t, missing, "", append(append([]string{}, cmd...), h)...)
				if code != 0 || !strings.Contains(strings.ToLower(out), "usage") || stderr != "" {
					t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
				}
			})
		}
		t.Run(name+" help", func(t *testing.T) {
			code, out, _ := runCmd(t, missing, "", append([]string{"help"}, cmd...)...)
			if code != 0 || !strings.Contains(strings.ToLower(out), "usage") {
				t.Errorf("frontdesk help %s: exit %d, stdout %q", name, code, out)
			}
		})
		t.Run(name+" wrong flag", func(t *testing.T) {
			code, out, stderr := runCmd(t, missing, "", append(append([]string{}, cmd...), "--no-such-flag")...)
			if code != 2 || out != "" || !strings.Contains(strings.ToLower(stderr), "usage") {
				t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
			}
		})
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, stderr := runCmd(t, missing, "", args...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		for _, c := range commands {
			if !strings.Contains(out, "frontdesk "+c[0]) {
				t.Errorf("%v does not list %q", args, c[0])
			}
		}
	}
	if code, out, stderr := runCmd(t, missing, ""); code != 2 || out != "" || !strings.Contains(stderr, "Usage") {
		t.Errorf("no command: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// serveEnv starts serve in-process with the given environment and returns
// its address and stderr; it stops when the test ends.
func serveEnv(t *testing.T, vars map[string]string, args ...string) (addr string, stderr *logtest.Buffer) {
	addr, stderr, _ = serveStoppable(t, vars, args...)
	return addr, stderr
}

// serveStoppable is serveEnv that can also be stopped earlier.
func serveStoppable(t *testing.T, vars map[string]string, args ...string) (addr string, stderr *logtest.Buffer, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	stderr = &logtest.Buffer{}
	env := &Env{Getenv: func(k string) string { return vars[k] }, Stdin: strings.NewReader(""), Stdout: &logtest.Buffer{}, Stderr: stderr,
		Clock: clock.System{}, Ready: ready}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--worker=false"}, args...), env)
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	select {
	case addr = <-ready:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	return addr, stderr, stop
}

// A short FRONTDESK_ADMIN_TOKEN leaves the admin routes off and says why on
// stderr, without printing the token; a long one turns them on.
func TestWeakAdminToken(t *testing.T) {
	put := func(addr, token string) int {
		req, _ := http.NewRequest("PUT", "http://"+addr+"/api/v2/admin/workspaces/acme", strings.NewReader(`{"account": {"slug": "acme", "name": "Acme"}}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	weak := "weak-admin-token-31-characters!"
	if len(weak) != 31 {
		t.Fatal(len(weak))
	}
	addr, stderr := serveEnv(t, map[string]string{"FRONTDESK_ADMIN_TOKEN": weak}, "--db", dbtest.DSN(t, db.SQLite))
	if s := put(addr, weak); s == http.StatusOK {
		t.Errorf("short token accepted: %d", s)
	}
	if msg := stderr.String(); !strings.Contains(msg, "FRONTDESK_ADMIN_TOKEN is shorter than 32 characters: admin routes are off") || strings.Contains(msg, weak) {
		t.Errorf("stderr: %s", msg)
	}

	strong := strings.Repeat("s", 32)
	addr, stderr = serveEnv(t, map[string]string{"FRONTDESK_ADMIN_TOKEN": strong}, "--db", dbtest.DSN(t, db.SQLite))
	if s := put(addr, strong); s != http.StatusOK {
		t.Errorf("32-character token: %d", s)
	}
	if strings.Contains(stderr.String(), "FRONTDESK_ADMIN_TOKEN") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// backup and restore from the command line, against a running server.
func TestBackupRestoreCommands(t *testing.T) {
	dsn := dbtest.DSN(t, db.SQLite)
	if code, _, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", "../../internal/workspace/testdata/acme.yaml"); code != 0 {
		t.Fatal(stderr)
	}
	_, _, stop := serveStoppable(t, nil, "--db", dsn)
	out := filepath.Join(t.TempDir(), "frontdesk-backup.db")
	code, stdout, stderr := runCmd(t, dsn, "", "backup", "--out", out)
	if code != 0 || !strings.Contains(stdout, "integrity_check ok") {
		t.Fatalf("backup: exit %d %s %s", code, stdout, stderr)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", st, err)
	}
	if code, _, stderr := runCmd(t, dsn, "", "backup", "--out", out); code != 1 || !strings.Contains(stderr, "--force") {
		t.Errorf("backup over an existing file: exit %d %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, dsn, "", "backup", "--out", out, "--force"); code != 0 {
		t.Errorf("backup --force: exit %d %s", code, stderr)
	}
	// A change after the backup, which the restore undoes.
	if code, _, stderr := runCmd(t, dsn, "", "keys", "create", "--account", "acme", "--name", "after-backup"); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runCmd(t, dsn, "", "restore", "--from", out); code != 1 || !strings.Contains(stderr, "in use") {
		t.Errorf("restore under a running server: exit %d %s", code, stderr)
	}
	stop()
	code, stdout, stderr = runCmd(t, dsn, "", "restore", "--from", out)
	if code != 0 || !strings.Contains(stdout, "previous database is kept") {
		t.Fatalf("restore: exit %d %s %s", code, stdout, stderr)
	}
	code, stdout, _ = runCmd(t, dsn, "", "keys", "list", "--account", "acme")
	if code != 0 || strings.Contains(stdout, "after-backup") || !strings.Contains(stdout, "NAME") {
		t.Errorf("keys after restore: %s", stdout)
	}
	if code, _, stderr := runCmd(t, dsn, "", "backup", "--out", filepath.Join(t.TempDir(), "x.db"), "--db", filepath.Join(t.TempDir(), "none.db")); code != 1 {
		t.Errorf("backup of a missing database: exit %d %s", code, stderr)
	}
}

// On PostgreSQL backup prints the pg_dump command, without the password,
// and fails: it does not pretend to have made a backup.
func TestBackupPostgres(t *testing.T) {
	dsn := dbtest.DSN(t, db.Postgres)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "sw0rdfish-pw"
	u.User = url.UserPassword(u.User.Username(), secret)
	q := u.Query()
	q.Set("pool_max_conns", "4")
	u.RawQuery = q.Encode()
	code, stdout, stderr := runCmd(t, u.String(), "", "backup", "--out", "fd.dump")
	if code != 1 || strings.Contains(stdout+stderr, secret) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if !strings.HasPrefix(stdout, "pg_dump --format=custom --file 'fd.dump' --schema 'fdtest_") || strings.Contains(stdout, "search_path") || strings.Contains(stdout, "pool_max_conns") {
		t.Errorf("stdout: %s", stdout)
	}
	if !strings.Contains(stderr, "does not back up PostgreSQL") || !strings.Contains(stderr, "PGPASSWORD") {
		t.Errorf("stderr: %s", stderr)
	}
	if code, _, stderr := runCmd(t, u.String(), "", "restore", "--from", "fd.dump"); code != 1 || !strings.Contains(stderr, "pg_restore") {
		t.Errorf("restore on PostgreSQL: exit %d %s", code, stderr)
	}
}
