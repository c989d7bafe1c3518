package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// FRONTDESK_METRICS_TOKEN reaches the server: /metrics then needs it.
func TestServeMetricsToken(t *testing.T) {
	dsn := dbtest.DSN(t, db.SQLite)
	getenv := func(k string) string {
		if k == "FRONTDESK_METRICS_TOKEN" {
			return "metrics-secret-token"
		}
		return ""
	}
	env := &Env{Getenv: getenv, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Clock: clock.System{}}
	addr, stop := serveInProcess(t, env, "--db", dsn)
	defer stop()
	scrape := func(auth string) int {
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := scrape(""); s != 401 {
		t.Errorf("no token: %d, want 401", s)
	}
	if s := scrape("Bearer metrics-secret-token"); s != 200 {
		t.Errorf("token: %d, want 200", s)
	}
}
