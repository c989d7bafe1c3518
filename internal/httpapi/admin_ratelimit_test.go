package httpapi_test

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// adminPut sends "PUT /api/v2/admin/workspaces/acme" from a client address
// with token as bearer.
func (h *harness) adminPut(addr, token string) response {
	h.t.Helper()
	req := httptest.NewRequest("PUT", "/api/v2/admin/workspaces/acme",
		strings.NewReader(`{"account": {"slug": "acme"}, "services": [{"key": "cleaning", "name": "Limpieza"}]}`))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = addr
	req.Header.Set("Authorization", "Bearer "+token)
	return h.send(req)
}

// Failed admin-token attempts count against the per-address limit on failed
// API authentication (README.md, Security): one bucket per address, whichever
// door the wrong credential knocked on, and the right token is never
// refused by it.
func TestRateLimitFailedAdminToken(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		t.Run("101 wrong tokens", func(t *testing.T) {
			h := newHarness(t, store)
			const addr = "198.51.100.20:4000"
			for i := 1; i <= 100; i++ {
				res := h.adminPut(addr, "wrong-admin-token-"+strconv.Itoa(i)).must(t, 401)
				if limit, remaining, _ := res.rl(t); limit != 100 || remaining != 100-i {
					t.Fatalf("failure %d: RateLimit %d/%d", i, limit, remaining)
				}
			}
			h.adminPut(addr, "wrong-admin-token").mustRateLimited(t, 1)
			// The right token from the throttled address still works.
			h.adminPut(addr, adminKey).must(t, 200)
			// Another address is not affected.
			h.adminPut("198.51.100.21:4000", "wrong-admin-token").must(t, 401)
		})
		t.Run("one bucket for API keys and the admin token", func(t *testing.T) {
			h := newHarness(t, store)
			const addr = "198.51.100.30:4000"
			for i := 0; i < 50; i++ {
				h.from(addr, servicesPath, "pk_wrong_"+strconv.Itoa(i)).must(t, 401)
				h.adminPut(addr, "wrong-admin-token").must(t, 401)
			}
			h.from(addr, servicesPath, "pk_wrong").mustRateLimited(t, 1)
			h.adminPut(addr, "wrong-admin-token").mustRateLimited(t, 1)
			h.adminPut(addr, adminKey).must(t, 200)
			h.from(addr, servicesPath, acmeKey).must(t, 200)
		})
	})
}
