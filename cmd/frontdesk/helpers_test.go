// Helpers shared by the tests that run `frontdesk serve` as child processes
// and send it batches: the child server, phone sets, batch bodies, the jobs'
// states for failure messages.

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

var faultTrials = flag.Int("fault-trials", 1, "rounds of the concurrency and several-instance fault tests (the long version uses 50)")

const (
	acmeNode   = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01"
	ingestPath = "/api/v2/public/leadflow/ingest/" + acmeNode + "/batch"
)

// startServe starts `frontdesk serve` in a child process with extra flags
// (the job worker runs unless they say --worker=false) and stops it when the
// test ends.
func startServe(t *testing.T, dsn, addr string, extra ...string) *exec.Cmd {
	t.Helper()
	return startServeEnv(t, dsn, addr, nil, extra...)
}

// startServeEnv is startServe with variables ("NAME=value") added to the
// child's environment, which is otherwise the test process's with private
// targets allowed (the tests' receivers listen on loopback).
func startServeEnv(t *testing.T, dsn, addr string, env []string, extra ...string) *exec.Cmd {
	t.Helper()
	args := append([]string{"serve", "--db", dsn, "--addr", addr}, extra...)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(append(os.Environ(), outbound.EnvAllowPrivate+"=true"), env...), "FRONTDESK_CHILD_ARGS="+strings.Join(args, "\x1f"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	for i := 0; i < 400; i++ {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return cmd
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatal("child server did not start")
	return nil
}

// sent is one batch request and its answer.
type sent struct {
	kind       string // "waitlist" or "ingest"
	server     int
	phones     []string
	status     int
	body       map[string]any
	start, end time.Time
}

// phoneSet returns the E.164 phones [from, to) of a set: Spanish mobile
// numbers 6<set, 3 digits><i, 5 digits>, so sets never share a number. Sets
// start at 100: the fixture's clients are 600...
func phoneSet(set, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("+346%03d%05d", set, i))
	}
	return out
}

// setPrefix is the LIKE pattern of a set's national numbers.
func setPrefix(set int) string { return fmt.Sprintf("6%03d%%", set) }

func waitlistBody(listID, serviceID int64, phones []string) []byte {
	rows := make([]map[string]any, len(phones))
	for i, p := range phones {
		rows[i] = map[string]any{"phone": p, "first_name": "Overlap", "service_ids": []int64{serviceID}}
	}
	b, _ := json.Marshal(map[string]any{"waitlist_id": listID, "entries": rows})
	return b
}

func ingestBody(phones []string) []byte {
	rows := make([]map[string]any, len(phones))
	for i, p := range phones {
		rows[i] = map[string]any{"phone_number": p, "first_name": "Overlap", "external_id": p}
	}
	b, _ := json.Marshal(map[string]any{"clients": rows})
	return b
}

// jobStates counts jobs by kind and status, for failure messages.
func jobStates(store *db.DB) string {
	rows, err := store.Query(context.Background(), `SELECT kind, status, COUNT(*), MAX(attempts) FROM jobs GROUP BY kind, status ORDER BY kind, status`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var kind, status string
		var n, attempts int
		rows.Scan(&kind, &status, &n, &attempts)
		fmt.Fprintf(&b, "%s/%s=%d (max attempts %d) ", kind, status, n, attempts)
	}
	return b.String()
}
