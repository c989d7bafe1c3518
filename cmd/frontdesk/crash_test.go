package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

var crashTrials = flag.Int("crash-trials", 4, "kill -9 trials per engine in TestCrashDuringBatch (the long version uses 50)")

// TestMain lets the test binary act as the server in a child process, so a
// test can kill it with SIGKILL mid-request.
func TestMain(m *testing.M) {
	if args := os.Getenv("FRONTDESK_CHILD_ARGS"); args != "" {
		env := &Env{Getenv: os.Getenv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Clock: clock.System{}}
		os.Exit(run(context.Background(), strings.Split(args, "\x1f"), env))
	}
	os.Exit(m.Run())
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startChild starts `frontdesk serve` in a child process and waits for it.
func startChild(t *testing.T, dsn, addr string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FRONTDESK_CHILD_ARGS="+strings.Join([]string{"serve", "--db", dsn, "--addr", addr, "--worker=false"}, "\x1f"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return cmd
		}
		time.Sleep(25 * time.Millisecond)
	}
	cmd.Process.Kill()
	t.Fatal("child server did not start")
	return nil
}

// The server killed with SIGKILL during a 500-row ingest leaves the whole
// batch or none of it, and re-sending converges.
func TestCrashDuringBatch(t *testing.T) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(e), func(t *testing.T) {
			dsn := dbtest.DSN(t, e)
			if code, _, stderr := runCmd(t, dsn, "", "workspace", "apply", "-f", "../../internal/workspace/testdata/acme.yaml"); code != 0 {
				t.Fatal(stderr)
			}
			store, err := db.Open(context.Background(), dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			addr := freeAddr(t)
			if *crashTrials > 99 {
				t.Fatal("-crash-trials: at most 99 (each trial needs 500 phone numbers of its own)")
			}
			batch := func(set int) []byte {
				rows := make([]map[string]any, 500)
				for i := range rows {
					// Nine national digits whatever the set: 61, the set, the row.
					rows[i] = map[string]any{"phone_number": fmt.Sprintf("+3461%02d%05d", set, i), "first_name": "Crash", "tags": []any{map[string]any{"name": "crash"}}}
				}
				body, _ := json.Marshal(map[string]any{"clients": rows})
				return body
			}
			send := func(body []byte) (*http.Response, error) {
				req, _ := http.NewRequest("POST", "http://"+addr+"/api/v2/public/leadflow/ingest/0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01/batch", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer pk_test_acme_main")
				return http.DefaultClient.Do(req)
			}
			// Calibrate on set 99: kills then land anywhere from before the
			// request is read to after its commit, on either engine.
			child := startChild(t, dsn, addr)
			start := time.Now()
			if resp, err := send(batch(99)); err != nil || resp.StatusCode != 200 {
				t.Fatalf("calibration batch: %v %v", resp, err)
			} else {
				resp.Body.Close()
			}
			span := time.Since(start) * 5 / 4
			child.Process.Signal(syscall.SIGTERM)
			child.Wait()
			for trial := 0; trial < *crashTrials; trial++ {
				body := batch(trial)
				child := startChild(t, dsn, addr)
				go func() {
					if resp, err := send(body); err == nil {
						resp.Body.Close()
					}
				}()
				time.Sleep(time.Duration(rand.Int64N(int64(span) + 1)))
				child.Process.Signal(syscall.SIGKILL)
				child.Wait()

				prefix := fmt.Sprintf("61%02d%%", trial)
				var clients, cards int
				store.QueryRow(context.Background(), `SELECT COUNT(*) FROM clients WHERE phone_national LIKE ?`, prefix).Scan(&clients)
				store.QueryRow(context.Background(), `SELECT COUNT(*) FROM cards k JOIN clients c ON c.account_id = k.account_id AND c.id = k.client_id WHERE c.phone_national LIKE ?`, prefix).Scan(&cards)
				if (clients != 0 && clients != 500) || clients != cards {
					t.Fatalf("trial %d: %d clients and %d cards after the crash: a partial batch", trial, clients, cards)
				}
				// Re-sending converges to exactly one copy.
				child = startChild(t, dsn, addr)
				resp, err := send(body)
				if err != nil || resp.StatusCode != 200 {
					t.Fatalf("re-send: %v %v", err, resp)
				}
				resp.Body.Close()
				child.Process.Signal(syscall.SIGTERM)
				child.Wait()
				store.QueryRow(context.Background(), `SELECT COUNT(*) FROM clients WHERE phone_national LIKE ?`, prefix).Scan(&clients)
				if clients != 500 {
					t.Fatalf("trial %d: %d clients after re-send", trial, clients)
				}
				t.Logf("trial %d: batch was %s at the kill", trial, map[bool]string{true: "committed", false: "absent"}[cards == 500])
			}
		})
	}
}
