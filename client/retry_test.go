package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/client"
)

// These tests run against httptest fakes and the standard library only, so
// the client module tests alone (cd client && go test ./...). The tests
// against the real server live in the server module: internal/clientserver.

const (
	acmeKey = "pk_test_acme_main"
	webNode = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01"
)

// TestErrorParsing covers answers outside the API's envelopes.
func TestErrorParsing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-1")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>bad gateway</html>")
	}))
	defer srv.Close()
	_, err := client.New(srv.URL, acmeKey, client.WithRetry(client.RetryPolicy{MaxAttempts: 1})).ListServices(context.Background())
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 502 || e.ErrorCode != client.CodeUnexpectedResponse || e.RequestID != "req-1" || e.Attempts != 1 {
		t.Fatalf("err = %#v", err)
	}
	var raw map[string]any
	if json.Unmarshal(e.Body, &raw) == nil {
		t.Fatal("body should be kept raw")
	}
}

// TestRetryStatuses proves which answers are sent again for which calls: a
// 429 always (nothing was applied), a 500 for GETs, booking, keyed and
// repeat-safe calls, a proxy's 502/503/504 only where a repeat cannot apply
// twice (not booking), and never a 4xx; OnRetry hears every retry with its
// reason and the Retry-After wait.
func TestRetryStatuses(t *testing.T) {
	type call func(c *client.Client) error
	list := func(c *client.Client) error { _, err := c.ListServices(context.Background()); return err }
	ingest := func(opts ...client.CallOption) call {
		return func(c *client.Client) error {
			_, err := c.IngestBatchJSON(context.Background(), webNode, json.RawMessage(`{"clients":[{"phone_number":"+34600000001"}]}`), opts...)
			return err
		}
	}
	book := func(c *client.Client) error {
		_, err := c.Book(context.Background(), client.BookingRequest{})
		return err
	}
	for _, test := range []struct {
		name   string
		call   call
		status int
		want   int // attempts
	}{
		{"GET 429", list, 429, 2},
		{"GET 502", list, 502, 2},
		{"GET 504", list, 504, 2},
		{"GET 404", list, 404, 1},
		{"ingest 429", ingest(), 429, 2},
		{"ingest 500", ingest(), 500, 1},
		{"ingest 503", ingest(), 503, 1},
		{"repeat-safe ingest 500", ingest(client.WithRepeatSafe()), 500, 2},
		{"repeat-safe ingest 503", ingest(client.WithRepeatSafe()), 503, 2},
		{"repeat-safe ingest 409", ingest(client.WithRepeatSafe()), 409, 1},
		{"keyed ingest 502", ingest(client.WithIdempotencyKey("k")), 502, 2},
		{"booking 500", book, 500, 2},
		{"booking 504", book, 504, 1},
		{"booking 429", book, 429, 2},
	} {
		t.Run(test.name, func(t *testing.T) {
			var calls int
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				b, _ := io.ReadAll(r.Body)
				bodies = append(bodies, string(b))
				if calls == 1 {
					w.Header().Set("Retry-After", "0")
					w.WriteHeader(test.status)
					io.WriteString(w, `{"status":"error","error_code":"X","message":"m","details":null}`)
					return
				}
				if r.Method == http.MethodGet {
					io.WriteString(w, `{"status":"success","data":[]}`)
					return
				}
				io.WriteString(w, `{"status":"success","results":[]}`)
			}))
			defer srv.Close()
			var heard []string
			c := client.New(srv.URL, acmeKey, client.WithRetry(client.RetryPolicy{BaseDelay: time.Hour, MaxDelay: time.Hour,
				OnRetry: func(n int, err error, wait time.Duration) {
					heard = append(heard, fmt.Sprintf("%d %v %v", n, wait, err))
				}}))
			err := test.call(c)
			if calls != test.want || len(heard) != test.want-1 {
				t.Fatalf("attempts %d (heard %q), want %d; err %v", calls, heard, test.want, err)
			}
			if test.want == 1 {
				if e := new(client.Error); !errors.As(err, &e) || e.StatusCode != test.status {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil || !strings.HasPrefix(heard[0], fmt.Sprintf("1 0s frontdesk: HTTP %d X: m", test.status)) {
				t.Fatalf("err %v, heard %q", err, heard)
			}
			if len(bodies) == 2 && bodies[0] != bodies[1] {
				t.Fatalf("bodies differ: %s / %s", bodies[0], bodies[1])
			}
		})
	}
}
