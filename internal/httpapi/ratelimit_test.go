package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
)

const servicesPath = "/api/v2/public/calendar/services"

// setLimits sets an account's rate limit columns (what the workspace file's
// account.limits writes); nil leaves the default.
func (h *harness) setLimits(slug string, perSecond float64, burst int) {
	h.t.Helper()
	if _, err := h.store.Exec(context.Background(), `UPDATE accounts SET rate_per_second = ?, rate_burst = ? WHERE slug = ?`,
		perSecond, burst, slug); err != nil {
		h.t.Fatal(err)
	}
}

// rebuild replaces the harness server with one on cfg's rate limits.
func (h *harness) rebuild(rl httpapi.RateLimit) {
	h.srv = httpapi.NewServer(httpapi.Config{DB: h.store, Clock: h.clock, AdminToken: "admin-secret",
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), RateLimit: rl})
}

// from sends a GET from a client address with key ("" sends none).
func (h *harness) from(addr, path, key string) response {
	h.t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.RemoteAddr = addr
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return h.send(req)
}

// rl reads the RateLimit headers, failing when one is missing or not a
// number.
func (r response) rl(t *testing.T) (limit, remaining, reset int) {
	t.Helper()
	var out [3]int
	for i, name := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
		v := r.Header.Get(name)
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s = %q (status %d)", name, v, r.Status)
		}
		out[i] = n
	}
	return out[0], out[1], out[2]
}

// mustRateLimited checks a 429's envelope and Retry-After.
func (r response) mustRateLimited(t *testing.T, retryAfter int) {
	t.Helper()
	r.must(t, http.StatusTooManyRequests)
	if r.errorCode() != "RATE_LIMITED" || r.str("status") != "error" || r.str("message") == "" {
		t.Fatalf("429 body: %s", r.Raw)
	}
	if got := r.Header.Get("Retry-After"); got != strconv.Itoa(retryAfter) || r.num("details", "retry_after_seconds") != float64(retryAfter) {
		t.Fatalf("Retry-After %q, details %v; want %d", got, r.get("details"), retryAfter)
	}
	if _, remaining, _ := r.rl(t); remaining != 0 {
		t.Fatalf("429 with RateLimit-Remaining %d", remaining)
	}
}

func TestRateLimitPerKey(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		for _, test := range []struct {
			name       string
			perSecond  float64 // -1: the columns stay NULL (defaults)
			burst      int
			wantLimit  int
			retryAfter int
			reset      int // once empty
		}{
			{"defaults 100/s burst 200", -1, 0, 200, 1, 2},
			{"account 5/s burst 10", 5, 10, 10, 1, 2},
			{"account 0.25/s burst 3", 0.25, 3, 3, 4, 12},
		} {
			t.Run(test.name, func(t *testing.T) {
				h := newHarness(t, store)
				if test.perSecond >= 0 {
					h.setLimits("acme", test.perSecond, test.burst)
				}
				for i := 1; i <= test.wantLimit; i++ {
					res := h.do("GET", servicesPath, acmeKey, nil).must(t, 200)
					if limit, remaining, _ := res.rl(t); limit != test.wantLimit || remaining != test.wantLimit-i {
						t.Fatalf("request %d: limit %d remaining %d, want %d and %d", i, limit, remaining, test.wantLimit, test.wantLimit-i)
					}
				}
				res := h.do("GET", servicesPath, acmeKey, nil)
				res.mustRateLimited(t, test.retryAfter)
				if _, _, reset := res.rl(t); reset != test.reset {
					t.Fatalf("RateLimit-Reset %d, want %d", reset, test.reset)
				}
				// Batch endpoints count one like any other request.
				h.do("POST", "/api/v2/public/calendar/waitlist/entries/batch", acmeKey, map[string]any{"entries": []any{}}).mustRateLimited(t, test.retryAfter)
				// The other tenant's key has its own bucket.
				h.do("GET", servicesPath, otherKey, nil).must(t, 200)
				// Waiting Retry-After is enough.
				h.clock.Advance(time.Duration(test.retryAfter) * time.Second)
				h.do("GET", servicesPath, acmeKey, nil).must(t, 200)
				// Waiting Reset fills the bucket again.
				h.clock.Advance(time.Duration(test.reset) * time.Second)
				if _, remaining, reset := h.do("GET", servicesPath, acmeKey, nil).must(t, 200).rl(t); remaining != test.wantLimit-1 {
					t.Fatalf("after Reset: remaining %d (reset %d), want %d", remaining, reset, test.wantLimit-1)
				}
			})
		}
	})
}

func TestRateLimitKeysAndAccounts(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.setLimits("acme", 1, 2)
		second := "pk_test_acme_second_key_for_limits"
		h.applyData([]byte("account: {slug: acme, name: Acme Dental}\napi_keys: [{key: second, value: " + second + "}]\n"))

		t.Run("per key, not per account", func(t *testing.T) {
			h.do("GET", servicesPath, acmeKey, nil).must(t, 200)
			h.do("GET", servicesPath, acmeKey, nil).must(t, 200)
			h.do("GET", servicesPath, acmeKey, nil).must(t, 429)
			if _, remaining, _ := h.do("GET", servicesPath, second, nil).must(t, 200).rl(t); remaining != 1 {
				t.Fatalf("second key: remaining %d, want 1 (its own bucket)", remaining)
			}
		})
		t.Run("a change of limits applies within the key cache's second", func(t *testing.T) {
			h.setLimits("acme", 1000, 500)
			h.clock.Advance(time.Second)
			// The second before the change refilled at the old rate.
			if limit, _, _ := h.do("GET", servicesPath, acmeKey, nil).must(t, 200).rl(t); limit != 500 {
				t.Fatalf("after raising: limit %d, want 500", limit)
			}
			h.clock.Advance(time.Second)
			if _, remaining, _ := h.do("GET", servicesPath, acmeKey, nil).must(t, 200).rl(t); remaining != 499 {
				t.Fatalf("a second after raising: remaining %d, want 499", remaining)
			}
		})
		t.Run("requests_per_second 0 is unlimited", func(t *testing.T) {
			h.setLimits("acme", 0, 50)
			h.clock.Advance(time.Second)
			for i := 0; i < 600; i++ {
				res := h.do("GET", servicesPath, acmeKey, nil).must(t, 200)
				if limit, remaining, reset := res.rl(t); limit != 50 || remaining != 50 || reset != 0 {
					t.Fatalf("unlimited, request %d: %d/%d/%d, want 50/50/0", i+1, limit, remaining, reset)
				}
			}
		})
		t.Run("another door wraps RequireKey and shares the bucket", func(t *testing.T) {
			h.setLimits("acme", 1, 2)
			h.clock.Advance(time.Minute)
			door := h.srv.RequireKey(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
			call := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest("POST", "/mcp", nil)
				req.Header.Set("Authorization", "Bearer "+acmeKey)
				rec := httptest.NewRecorder()
				door.ServeHTTP(rec, req)
				return rec
			}
			if rec := call(); rec.Code != 204 || rec.Header().Get("RateLimit-Remaining") != "1" {
				t.Fatalf("door: %d %v", rec.Code, rec.Header())
			}
			h.do("GET", servicesPath, acmeKey, nil).must(t, 200)
			if rec := call(); rec.Code != 429 || rec.Header().Get("Retry-After") != "1" {
				t.Fatalf("door after the API used the bucket: %d %s", rec.Code, rec.Body)
			}
			req := httptest.NewRequest("POST", "/mcp", nil)
			rec := httptest.NewRecorder()
			door.ServeHTTP(rec, req)
			if rec.Code != 401 {
				t.Fatalf("door without a key: %d", rec.Code)
			}
		})
	})
}

func TestRateLimitFailedAuthPerAddress(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		t.Run("defaults 10/s burst 100", func(t *testing.T) {
			h := newHarness(t, store)
			for i := 1; i <= 100; i++ {
				res := h.from("198.51.100.7:4000", servicesPath, "pk_wrong_"+strconv.Itoa(i)).must(t, 401)
				if limit, remaining, _ := res.rl(t); limit != 100 || remaining != 100-i {
					t.Fatalf("failure %d: %d/%d", i, limit, remaining)
				}
			}
			h.from("198.51.100.7:4001", servicesPath, "pk_wrong").mustRateLimited(t, 1)
			h.from("198.51.100.7:4001", servicesPath, "").mustRateLimited(t, 1)
			// A valid key from the throttled address is never refused.
			h.from("198.51.100.7:4002", servicesPath, acmeKey).must(t, 200)
			// Other addresses are not affected; X-Forwarded-For is ignored.
			h.from("198.51.100.8:4000", servicesPath, "pk_wrong").must(t, 401)
			req := httptest.NewRequest("GET", servicesPath, nil)
			req.RemoteAddr = "198.51.100.7:4003"
			req.Header.Set("X-Forwarded-For", "203.0.113.9")
			h.send(req).mustRateLimited(t, 1)
			h.clock.Advance(100 * time.Millisecond)
			h.from("198.51.100.7:4000", servicesPath, "pk_wrong").must(t, 401)
			h.from("198.51.100.7:4000", servicesPath, "pk_wrong").must(t, 429)
		})
		t.Run("configured 2/s burst 3, IPv6 by /64", func(t *testing.T) {
			h := newHarness(t, store)
			h.rebuild(httpapi.RateLimit{AuthFailures: ratelimit.Limit{PerSecond: 2, Burst: 3}})
			for _, addr := range []string{"[2001:db8::1]:1", "[2001:db8::2]:1", "[2001:db8::3]:1"} {
				h.from(addr, "/api/v2/public/unknown", "").must(t, 401)
			}
			res := h.from("[2001:db8::ffff]:1", servicesPath, "pk_wrong")
			res.mustRateLimited(t, 1)
			if _, _, reset := res.rl(t); reset != 2 {
				t.Fatalf("Reset %d, want 2 (3 tokens at 2/s)", reset)
			}
			h.from("[2001:db8:0:1::1]:1", servicesPath, "pk_wrong").must(t, 401)
			h.from("[2001:db8::1]:1", servicesPath, acmeKey).must(t, 200)
		})
	})
}

// Every answer behind the key check carries the headers, errors included.
func TestRateLimitHeadersEverywhere(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		big := make([]byte, httpapi.MaxBodyBytes+10)
		for _, test := range []struct {
			name   string
			method string
			path   string
			key    string
			body   any
			status int
		}{
			{"200", "GET", servicesPath, acmeKey, nil, 200},
			{"401 no key", "GET", servicesPath, "", nil, 401},
			{"401 bad key", "GET", servicesPath, "pk_nope", nil, 401},
			{"401 unknown path", "GET", "/api/v2/public/nowhere", "", nil, 401},
			{"404", "GET", "/api/v2/public/nowhere", acmeKey, nil, 404},
			{"405", "DELETE", servicesPath, acmeKey, nil, 405},
			{"422", "GET", "/api/v2/public/leadflow/pipelines?limit=x", acmeKey, nil, 422},
			{"400", "POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{"service_id": 999999, "professional_id": 1, "event_type_id": 1,
				"start_at": "2026-12-01T10:00:00", "end_at": "2026-12-01T10:30:00", "timezone": "Europe/Madrid", "client": map[string]any{"phone": "+34600111222", "first_name": "A"}}, 400},
			{"413", "POST", "/api/v2/public/calendar/waitlist/entries/batch", acmeKey, big, 413},
		} {
			t.Run(test.name, func(t *testing.T) {
				res := h.do(test.method, test.path, test.key, test.body).must(t, test.status)
				if limit, remaining, _ := res.rl(t); limit < 1 || remaining < 0 || remaining > limit {
					t.Fatalf("limit %d remaining %d", limit, remaining)
				}
			})
		}
		// The public document is not limited.
		if res := h.do("GET", "/api/v2/public/openapi.json", "", nil).must(t, 200); res.Header.Get("RateLimit-Limit") != "" {
			t.Fatalf("openapi.json carries RateLimit headers")
		}
		// Off drops everything (for measuring the limiter only).
		h.rebuild(httpapi.RateLimit{Off: true})
		req := httptest.NewRequest("GET", servicesPath, nil)
		req.Header.Set("Authorization", "Bearer "+acmeKey)
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		if rec.Code != 200 || rec.Header().Get("RateLimit-Limit") != "" {
			t.Fatalf("off: %d %v", rec.Code, rec.Header())
		}
	})
}
