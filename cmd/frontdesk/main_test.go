package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

// runCmd runs the binary's entry point in-process.
func runCmd(t *testing.T, dsn string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{
		Getenv: func(k string) string {
			switch k {
			case "FRONTDESK_DB":
				return dsn
			case outbound.EnvAllowPrivate:
				return "true" // the tests' webhook receivers and providers listen on loopback
			}
			return ""
		},
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Clock: clock.System{},
	}
	code = run(context.Background(), args, env)
	return code, out.String(), errb.String()
}

func TestWorkspaceApplyCommand(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			dsn := dbtest.DSN(t, e)
			file := "../../internal/workspace/testdata/acme.yaml"
			code, first, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", file)
			if code != 0 {
				t.Fatalf("apply: %d %s", code, stderr)
			}
			data, _ := os.ReadFile(file)
			code, second, stderr := runCmd(t, dsn, string(data), "workspace", "apply", "-f", "-")
			if code != 0 {
				t.Fatalf("apply from stdin: %d %s", code, stderr)
			}
			var a, b map[string]any
			json.Unmarshal([]byte(first), &a)
			json.Unmarshal([]byte(second), &b)
			if len(a["api_keys"].(map[string]any)) != 3 || len(b["api_keys"].(map[string]any)) != 0 {
				t.Errorf("api_keys: %v then %v", a["api_keys"], b["api_keys"])
			}
			ja, _ := json.Marshal([]any{a["account"], a["ids"]})
			jb, _ := json.Marshal([]any{b["account"], b["ids"]})
			if string(ja) != string(jb) {
				t.Errorf("ids differ:\n%s\n%s", ja, jb)
			}

			bad := filepath.Join(t.TempDir(), "bad.yaml")
			os.WriteFile(bad, []byte("account: {slug: acme}\npipelines: [{key: p, name: P, stages: [{key: a, name: A, allowed_targets: [zz]}]}]\n"), 0o644)
			code, out, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", bad)
			if code == 0 || out != "" || !strings.Contains(stderr, "pipelines[0].stages[0].allowed_targets[0]") {
				t.Errorf("invalid file: code %d, stdout %q, stderr %q", code, out, stderr)
			}
		})
	}
}

func TestKeysCommands(t *testing.T) {
	dsn := dbtest.DSN(t, db.SQLite)
	if code, _, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", "../../internal/workspace/testdata/acme.yaml"); code != 0 {
		t.Fatal(stderr)
	}
	code, out, stderr := runCmd(t, dsn, "", "keys", "create", "--account", "acme", "--name", "zapier")
	key := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(key, "pk_") || len(key) < 40 || strings.Contains(key, "\n") {
		t.Fatalf("create: %d %q %s", code, out, stderr)
	}
	// Keys are revoked by name: a second live "zapier" is refused.
	if code, _, stderr := runCmd(t, dsn, "", "keys", "create", "--account", "acme", "--name", "zapier"); code == 0 || !strings.Contains(stderr, `A live key named "zapier" already exists`) {
		t.Fatalf("second zapier: exit %d, %s", code, stderr)
	}
	code, out, _ = runCmd(t, dsn, "", "keys", "list", "--account", "acme", "--json")
	var keys []map[string]any
	json.Unmarshal([]byte(out), &keys)
	if code != 0 || len(keys) != 4 || keys[3]["name"] != "zapier" || strings.Contains(out, key) {
		t.Fatalf("list: %s", out)
	}
	for _, k := range []string{"name", "prefix", "created_at", "expires_at", "revoked", "last_used_at"} {
		if _, ok := keys[3][k]; !ok {
			t.Errorf("list item lacks %s", k)
		}
	}
	if code, _, _ := runCmd(t, dsn, "", "keys", "revoke", "--account", "acme", "--name", "zapier"); code != 0 {
		t.Fatal("revoke failed")
	}
	if code, _, _ := runCmd(t, dsn, "", "keys", "revoke", "--account", "acme", "--name", "zapier"); code == 0 {
		t.Error("revoking twice succeeded")
	}
	if code, _, _ := runCmd(t, dsn, "", "keys", "create"); code != 2 {
		t.Errorf("missing --account: exit %d, want 2", code)
	}
}

// serveInProcess runs `frontdesk serve` with args in this process until the
// returned stop is called (stop reports its exit status; the test fails if
// it does not shut down within 30 s). It returns the listening address.
func serveInProcess(t *testing.T, env *Env, args ...string) (addr string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	env.Ready = ready
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), env) }()
	select {
	case addr = <-ready:
	case code := <-done:
		cancel()
		t.Fatalf("serve exited %d", code)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("serve did not start")
	}
	return addr, func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(30 * time.Second):
			t.Error("no graceful shutdown")
			return -1
		}
	}
}

// serve --demo starts on SQLite, prints a key that authenticates, and shuts
// down cleanly when its context ends.
func TestServeDemo(t *testing.T) {
	dsn := dbtest.DSN(t, db.SQLite)
	var out bytes.Buffer
	env := &Env{Getenv: func(string) string { return "" }, Stdin: strings.NewReader(""), Stdout: &out, Stderr: io.Discard, Clock: clock.System{}}
	addr, stop := serveInProcess(t, env, "--demo", "--db", dsn)
	if !strings.Contains(out.String(), "pk_demo_frontdesk") || !strings.Contains(out.String(), "curl") {
		t.Errorf("banner: %s", out.String())
	}
	get := func(key string) int {
		req, _ := http.NewRequest("GET", "http://"+addr+"/api/v2/public/leadflow/pipelines", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get("pk_demo_frontdesk"); s != 200 {
		t.Errorf("demo key: %d", s)
	}
	if s := get(""); s != 401 {
		t.Errorf("no key: %d", s)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}
