package httpapi_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
)

// TestContractSweepKeyless sends every keyless operation of the document
// (the patient API, manage links, calendar files) the answers each can give
// whatever the area's rules: success on a live link or page (reads only),
// 404 for an unknown token or slug, 405 for a wrong method, and, where it
// takes a body, 422 for malformed JSON and 413 for a body over 5 MiB; then,
// from an address whose bucket is spent, 429. Every answer goes through
// h.send, which validates it against the document, so each operation's
// answers are checked, not only the ones the area tests reach.
func TestContractSweepKeyless(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h, token, _ := manageHarness(t, store, httpapi.RateLimit{})
		h.apply("testdata/booking_page.yaml")
		live := map[string]string{"token": token, "account_slug": "acme", "feed_token": h.makeFeed("acme", h.acme().Professionals["lopez"])}
		unknown := map[string]string{"token": strings.Repeat("A", 32), "account_slug": "nowhere", "feed_token": strings.Repeat("B", 43)}
		fill := func(template string, values map[string]string) string {
			return regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllStringFunc(template, func(p string) string { return values[strings.Trim(p, "{}")] })
		}
		huge := `{"x":"` + strings.Repeat("a", httpapi.MaxBodyBytes) + `"}`
		// Each operation from its own address, so the sweep stays within
		// the per-address bucket.
		addr := 0
		send := func(t *testing.T, method, path, body string, status int, code string) {
			t.Helper()
			var req *http.Request
			if body == "" {
				req = httptest.NewRequest(method, path, nil)
			} else {
				req = httptest.NewRequest(method, path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
			}
			req.RemoteAddr = fmt.Sprintf("203.0.113.%d:4000", addr)
			res := h.send(req)
			if res.Status != status || (code != "" && res.errorCode() != code) {
				t.Errorf("%s %s: %d %s, want %d %s: %s", method, path, res.Status, res.errorCode(), status, code, truncate(res.Raw, 300))
			}
		}
		ops := keylessOperations(mustContract(t))
		if len(ops) < 12 {
			t.Fatalf("found only %d keyless operations in the document", len(ops))
		}
		for _, o := range ops {
			t.Run(o.method+" "+o.template, func(t *testing.T) {
				h.t = t
				addr++
				if o.method == http.MethodGet {
					send(t, o.method, fill(o.template, live)+fmt.Sprintf("?service_id=%d", h.acme().Services["cleaning"]), "", http.StatusOK, "")
				}
				// A body the operation would take, so the unknown token or
				// slug is what refuses it.
				send(t, o.method, fill(o.template, unknown), `{"start_at": "2026-11-24T12:00:00"}`, http.StatusNotFound, "NOT_FOUND")
				if !strings.HasPrefix(o.template, "/m/") { // other methods under /m/ are the manage page's
					send(t, http.MethodPut, fill(o.template, live), "", http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
				}
				if o.body {
					send(t, o.method, fill(o.template, live), `{"client`, http.StatusUnprocessableEntity, "")
					send(t, o.method, fill(o.template, live), huge, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
				}
			})
		}

		// A window of days past 9999-12-31 is a refusal, not a 422, here.
		h.t = t
		addr++
		send(t, http.MethodGet, "/api/v2/manage/"+token+"/slots?start_date=9999-12-30", "", http.StatusBadRequest, "VALIDATION_ERROR")

		// A spent bucket: the second request of an address is refused.
		spent := ratelimit.Limit{PerSecond: 1, Burst: 1}
		h.srv = httpapi.NewServer(httpapi.Config{DB: store, Clock: h.clock, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			RateLimit: httpapi.RateLimit{Patients: spent, Feeds: spent}})
		for _, o := range ops {
			t.Run("spent "+o.method+" "+o.template, func(t *testing.T) {
				h.t = t
				addr++
				send(t, o.method, fill(o.template, unknown), `{"start_at": "2026-11-24T12:00:00"}`, http.StatusNotFound, "NOT_FOUND")
				send(t, o.method, fill(o.template, live), "", http.StatusTooManyRequests, "RATE_LIMITED")
			})
		}
	})
}

// keylessOperation is one operation of the document that needs no key,
// outside /api/v2/public.
type keylessOperation struct {
	method, template string
	body             bool
}

func keylessOperations(c *contract) []keylessOperation {
	var out []keylessOperation
	for _, r := range c.routes {
		if strings.HasPrefix(r.template, publicPrefix+"/") {
			continue
		}
		for method, o := range r.item {
			op := o.(map[string]any)
			if sec, ok := op["security"].([]any); ok && len(sec) == 0 {
				out = append(out, keylessOperation{strings.ToUpper(method), r.template, op["requestBody"] != nil})
			}
		}
	}
	return out
}
