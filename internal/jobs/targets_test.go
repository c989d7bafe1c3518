package jobs_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// Webhook deliveries check their target when they connect and follow no
// redirect (docs/api-notes.md, "Outbound targets"): a URL saved under a
// server that allowed private targets, delivered by one that does not, is
// refused with "target not allowed" and never reached; a 3xx is a failed
// attempt whose new location is never called.
func TestWebhookTargetsWhenConnecting(t *testing.T) {
	var reached atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	defer target.Close()
	redirect := httptest.NewServer(http.RedirectHandler(target.URL+"/moved", http.StatusTemporaryRedirect))
	defer redirect.Close()
	for _, test := range []struct {
		name      string
		url       string
		policy    outbound.Policy
		status    string // of the webhook's outbox rows after the first run
		lastError string
	}{
		{"default policy refuses loopback", target.URL, outbound.Policy{}, "failed", "target not allowed"},
		{"localhost resolves to loopback", strings.Replace(target.URL, "127.0.0.1", "localhost", 1), outbound.Policy{}, "failed", "target not allowed"},
		{"redirects are not followed", redirect.URL, outbound.Policy{AllowPrivate: true}, "pending", "answered HTTP 307 (redirects are not followed)"},
	} {
		t.Run(test.name, func(t *testing.T) {
			dbtest.Engines(t, func(t *testing.T, store *db.DB) {
				reached.Store(0)
				e := setupTarget(t, store, test.url, test.policy)
				e.ingest(t, []string{"+34611000001"}, nil)
				if _, err := e.worker.RunOnce(context.Background()); err != nil {
					t.Fatal(err)
				}
				if _, err := e.worker.RunOnce(context.Background()); err != nil {
					t.Fatal(err)
				}
				var status, lastError string
				if err := store.QueryRow(context.Background(), `SELECT o.status, j.last_error FROM outbox o JOIN jobs j ON j.account_id = o.account_id AND j.outbox_id = o.id
					WHERE o.kind = 'webhook' ORDER BY o.id LIMIT 1`).Scan(&status, &lastError); err != nil {
					t.Fatal(err)
				}
				if status != test.status || lastError != test.lastError {
					t.Fatalf("outbox %q, last error %q; want %q, %q", status, lastError, test.status, test.lastError)
				}
				if n := reached.Load(); n != 0 {
					t.Fatalf("the target was reached %d times", n)
				}
			})
		})
	}
}

// setupTarget provisions acme with its stage webhook automation at url and
// a worker whose deliveries dial through policy.
func setupTarget(t *testing.T, store *db.DB, url string, policy outbound.Policy) *env {
	e := &env{store: store, clock: clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))}
	data, _ := os.ReadFile("../workspace/testdata/acme.yaml")
	data = []byte(strings.ReplaceAll(string(data), "https://example.test/new-lead", url))
	if _, err := (&workspace.Applier{DB: store, Now: e.clock.Now, Targets: outbound.Policy{AllowPrivate: true}}).Apply(context.Background(), data); err != nil {
		t.Fatal(err)
	}
	e.acct, _ = account.BySlug(context.Background(), store, "acme")
	fx := &jobs.Effects{Targets: policy, Clock: e.clock}
	e.worker = &jobs.Worker{DB: store, Clock: e.clock, Handlers: fx.Handlers(), BatchHandlers: fx.BatchHandlers(), Calls: fx.Calls(),
		Backoff: func(int) time.Duration { return time.Hour }}
	return e
}
