package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// `workspace apply` seals webhook secrets under FRONTDESK_SECRET_KEY, stores
// them as they are without it, and refuses a malformed key before writing.
func TestWorkspaceApplySecretKey(t *testing.T) {
	const file = "../../internal/workspace/testdata/acme.yaml"
	for _, test := range []struct {
		name    string
		key     string
		code    int
		sealed  bool
		stderr  string
		written bool
	}{
		{name: "no key", key: "", written: true},
		{name: "hex key", key: strings.Repeat("ab", 32), sealed: true, written: true},
		{name: "base64 key", key: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", sealed: true, written: true},
		{name: "malformed key", key: "short", code: 1, stderr: "FRONTDESK_SECRET_KEY must be 32 bytes"},
	} {
		t.Run(test.name, func(t *testing.T) {
			for _, e := range []db.Engine{db.SQLite, db.Postgres} {
				t.Run(string(e), func(t *testing.T) {
					dsn := dbtest.DSN(t, e)
					var out, errb bytes.Buffer
					env := &Env{
						Getenv: func(k string) string {
							switch k {
							case "FRONTDESK_DB":
								return dsn
							case "FRONTDESK_SECRET_KEY":
								return test.key
							}
							return ""
						},
						Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Clock: clock.System{},
					}
					code := run(context.Background(), []string{"workspace", "apply", "-f", file}, env)
					if code != test.code || !strings.Contains(errb.String(), test.stderr) {
						t.Fatalf("exit %d, stderr %q; want %d and %q", code, errb.String(), test.code, test.stderr)
					}
					if !test.written {
						if out.Len() != 0 {
							t.Errorf("stdout = %q", out.String())
						}
						return
					}
					store, err := db.Open(context.Background(), dsn, db.Options{})
					if err != nil {
						t.Fatal(err)
					}
					defer store.Close()
					var secret string
					if err := store.QueryRow(context.Background(), `SELECT secret FROM webhooks WHERE file_key = 'crm'`).Scan(&secret); err != nil {
						t.Fatal(err)
					}
					if got := secret != "s3cret" && strings.HasPrefix(secret, "fdenc:v1:"); got != test.sealed {
						t.Errorf("stored secret %q: sealed %v, want %v", secret, got, test.sealed)
					}
				})
			}
		})
	}
}

// serve without FRONTDESK_SECRET_KEY logs one warning that webhook secrets
// are stored unencrypted; with a key it does not; a malformed key stops it
// before it listens.
func TestServeSecretKeyWarning(t *testing.T) {
	for _, test := range []struct {
		name     string
		key      string
		code     int
		warnings int
		stderr   string
	}{
		{name: "no key", warnings: 1},
		{name: "key", key: strings.Repeat("0f", 32)},
		{name: "malformed key", key: "not-a-key", code: 1, stderr: "FRONTDESK_SECRET_KEY must be 32 bytes"},
	} {
		t.Run(test.name, func(t *testing.T) {
			dsn := dbtest.DSN(t, db.SQLite)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ready := make(chan string, 1)
			var out, errb bytes.Buffer
			env := &Env{Getenv: func(k string) string {
				if k == "FRONTDESK_SECRET_KEY" {
					return test.key
				}
				return ""
			}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Clock: clock.System{}, Ready: ready}
			done := make(chan int, 1)
			go func() { done <- run(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--db", dsn}, env) }()
			var code int
			select {
			case <-ready:
				cancel()
				code = <-done
			case code = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("serve neither started nor failed")
			}
			if code != test.code || !strings.Contains(errb.String(), test.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errb.String(), test.code, test.stderr)
			}
			if n := strings.Count(errb.String(), "webhook secrets are stored unencrypted"); n != test.warnings {
				t.Errorf("warnings = %d, want %d: %s", n, test.warnings, errb.String())
			}
		})
	}
}
