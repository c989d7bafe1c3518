package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// FRONTDESK_METRICS_TOKEN reaches the server: /metrics then needs it.
func TestServeMetricsToken(t *testing.T) {
	dsn := dbtest.DSN(t, db.SQLite)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	getenv := func(k string) string {
		if k == "FRONTDESK_METRICS_TOKEN" {
			return "metrics-secret-token"
		}
		return ""
	}
	env := &Env{Getenv: getenv, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Clock: clock.System{}, Ready: ready}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--db", dsn}, env) }()
	var addr string
	select {
	case addr = <-ready:
	case code := <-done:
		t.Fatalf("serve exited %d", code)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
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
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("no graceful shutdown")
	}
}
