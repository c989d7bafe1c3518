package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestDurationFlags: every duration flag takes only the range the area
// owning it declares (docs/api-notes.md "Dates and durations"); a value
// outside is a usage error (exit 2) naming the flag and the range, before
// anything starts.
func TestDurationFlags(t *testing.T) {
	dsn := dbtest.DSN(t, db.SQLite)
	for _, test := range []struct {
		args []string
		env  map[string]string
		want string // on stderr
	}{
		{[]string{"serve", "--session-idle", "1ns"}, nil, "-session-idle: 1ns is outside 1m to 30d"},
		{[]string{"serve", "--session-idle", "-1h"}, nil, "-session-idle: -1h is outside 1m to 30d"},
		{[]string{"serve", "--session-max", "0s"}, nil, "-session-max: 0s is outside 1m to 365d"},
		{[]string{"serve", "--session-max", "87600h"}, nil, "-session-max: 87600h is outside 1m to 365d"},
		{[]string{"serve", "--batch-wait", "0s"}, nil, "-batch-wait: 0s is outside 100ms to 1m"},
		{[]string{"serve", "--batch-wait", "10m"}, nil, "-batch-wait: 10m is outside 100ms to 1m"},
		{[]string{"serve", "--rate-sync", "0s"}, nil, "-rate-sync: 0s is outside 10ms to 1m"},
		{[]string{"serve", "--analyze-every", "0s"}, nil, "-analyze-every: 0s is outside 1s to 1h"},
		{[]string{"serve", "--shutdown-timeout", "-1s"}, nil, "-shutdown-timeout: -1s is outside 0s to 10m"},
		{[]string{"serve", "--slow-query", "-1ms"}, nil, "-slow-query: -1ms is outside 0s to 1h"},
		{[]string{"serve", "--session-idle", "soon"}, nil, "-session-idle: not a duration"},
		{[]string{"serve"}, map[string]string{"FRONTDESK_SLOW_QUERY": "2h"}, "FRONTDESK_SLOW_QUERY=\"2h\" is not a duration within 0s to 1h"},
		{[]string{"worker", "--poll", "0s"}, nil, "-poll: 0s is outside 10ms to 1m"},
		{[]string{"worker", "--poll", "1h"}, nil, "-poll: 1h is outside 10ms to 1m"},
		{[]string{"worker"}, map[string]string{"FRONTDESK_SLOW_QUERY": "-5ms"}, "FRONTDESK_SLOW_QUERY=\"-5ms\" is not a duration within 0s to 1h"},
		{[]string{"import", "pipeline", "--timeout", "0s"}, nil, "-timeout: 0s is outside 1s to 1h"},
		// The worker's counts of calls under way are checked the same way.
		{[]string{"worker", "--worker-per-receiver", "0"}, nil, "--worker-concurrency and --worker-per-receiver must be at least 1"},
		{[]string{"serve", "--worker-concurrency", "-1"}, nil, "--worker-concurrency and --worker-per-receiver must be at least 1"},
	} {
		t.Run(strings.Join(test.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			env := &Env{Getenv: func(k string) string {
				if k == "FRONTDESK_DB" {
					return dsn
				}
				return test.env[k]
			}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Clock: clock.System{}}
			if code := run(context.Background(), test.args, env); code != 2 || !strings.Contains(errb.String(), test.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), test.want)
			}
		})
	}
	// The usage states each range.
	_, out, _ := runCmd(t, dsn, "", "serve", "--help")
	for _, s := range []string{"(a duration from 1m to 30d) (default 12h0m0s)", "(a duration from 100ms to 1m) (default 30s)"} {
		if !strings.Contains(out, s) {
			t.Errorf("serve --help lacks %q:\n%s", s, out)
		}
	}
}
