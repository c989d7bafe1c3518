package main

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
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
		{"bench"}, {"bench", "load"}, {"migrate"},
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
func serveEnv(t *testing.T, vars map[string]string, args ...string) (addr string, stderr *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	stderr = &syncBuffer{}
	env := &Env{Getenv: func(k string) string { return vars[k] }, Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: stderr,
		Clock: clock.System{}, Ready: ready}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--worker=false"}, args...), env)
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case addr = <-ready:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	return addr, stderr
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

// syncBuffer is a bytes.Buffer safe for a server goroutine to write while
// the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
