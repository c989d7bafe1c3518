package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
)

// Keys are cached for at most a second per instance: a key revoked through
// one instance (or the CLI) is refused by every instance within 1 s.
func TestRevocationReachesEveryInstanceWithinASecond(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		instances := []*httpapi.Server{h.srv,
			httpapi.NewServer(httpapi.Config{DB: store, Clock: h.clock, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})}
		status := func(srv *httpapi.Server) int {
			req := httptest.NewRequest("GET", "/api/v2/public/calendar/services", nil)
			req.Header.Set("Authorization", "Bearer "+acmeKey)
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			return rec.Code
		}
		for i, srv := range instances {
			if got := status(srv); got != 200 {
				t.Fatalf("instance %d before revocation: %d", i, got)
			}
		}
		acct := accountOf(t, h, "acme")
		// acme.yaml's key "main" is pk_test_acme_main (acmeKey).
		name := "main"
		if n, err := account.RevokeKey(context.Background(), store, acct, name, h.clock.Now()); err != nil || n != 1 {
			t.Fatalf("revoked %d keys: %v", n, err)
		}
		h.clock.Advance(time.Second)
		for i, srv := range instances {
			if got := status(srv); got != 401 {
				t.Errorf("instance %d 1 s after revocation: %d, want 401", i, got)
			}
		}
	})
}
