package clientserver_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const (
	acmeKey  = "pk_test_acme_main"
	otherKey = "pk_test_other_main"
	webNode  = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01"
)

var testNow = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// env is a real server (httpapi on a migrated store, provisioned from the
// workspace fixtures) behind an httptest.Server, and the acme ids.
type env struct {
	srv  *httptest.Server
	ids  workspace.IDs
	db   *db.DB
	hits *hits
}

// hits counts the requests that reached the server, and makes chosen
// routes fail before the API sees them.
type hits struct {
	mu    sync.Mutex
	count map[string]int
	// fail500 answers the next N requests of a route ("METHOD /path") with
	// the API's 500 envelope; drop closes the connection instead.
	fail500, drop map[string]int
}

func (h *hits) of(route string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count[route]
}

func (h *hits) set(m map[string]int, route string, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m[route] = n
}

func (h *hits) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := r.Method + " " + r.URL.Path
		h.mu.Lock()
		h.count[route]++
		fail, drop := h.fail500[route] > 0, h.drop[route] > 0
		if fail {
			h.fail500[route]--
		}
		if drop {
			h.drop[route]--
		}
		h.mu.Unlock()
		switch {
		case drop:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case fail:
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Request-Id", r.Header.Get("X-Request-Id"))
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"status":"error","error_code":"INTERNAL_ERROR","message":"Internal server error. The request may be retried.","details":null}`)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func newEnv(t *testing.T, store *db.DB) *env {
	t.Helper()
	applier := &workspace.Applier{DB: store, Now: func() time.Time { return testNow }}
	var ids workspace.IDs
	for _, f := range []string{"../workspace/testdata/acme.yaml", "../httpapi/testdata/other.yaml", "../httpapi/testdata/pipeline.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := applier.Apply(context.Background(), data)
		if err != nil {
			t.Fatalf("apply %s: %v", f, err)
		}
		if res.Account.Slug == "acme" && ids.Pipelines == nil {
			ids = res.IDs
		} else if res.Account.Slug == "acme" {
			for k, v := range res.IDs.Clients {
				ids.Clients[k] = v
			}
			for k, v := range res.IDs.Stages {
				ids.Stages[k] = v
			}
		}
	}
	h := &hits{count: map[string]int{}, fail500: map[string]int{}, drop: map[string]int{}}
	api := httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.NewFake(testNow), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h.wrap(api))
	t.Cleanup(srv.Close)
	return &env{srv: srv, ids: ids, db: store, hits: h}
}

// client returns a client of the acme account with fast retries.
func (e *env) client(opts ...client.Option) *client.Client {
	opts = append([]client.Option{client.WithRetry(client.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})}, opts...)
	return client.New(e.srv.URL, acmeKey, opts...)
}

// apiError asserts err is an *client.Error with the status and code.
func apiError(t *testing.T, err error, status int, code string) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want *client.Error %d %s", err, err, status, code)
	}
	if e.StatusCode != status || e.ErrorCode != code {
		t.Fatalf("error %d %s (%s), want %d %s", e.StatusCode, e.ErrorCode, e.Message, status, code)
	}
	if e.RequestID == "" {
		t.Error("error without RequestID")
	}
	return e
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
