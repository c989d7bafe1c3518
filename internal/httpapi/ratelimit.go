package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
)

// Rate limits (docs/contract.md, Rate limits).
//
// Every request with a valid key takes one token from its key's bucket (the
// account's limit, default 100 per second with bursts of 200). Every failed
// authentication (401) — a missing or wrong API key, or a missing or wrong
// admin token on the admin routes — takes one from its client address's
// bucket (10 per second, bursts of 100); once that is empty, requests from
// the address without a valid key or token are 429 instead of 401, while a
// valid key or the admin token from it is never refused by this limit. The address is the connection's
// (r.RemoteAddr), never a forwarded header a client could set; IPv6
// addresses count by /64, the block one client usually holds.
// Calendar feed reads (GET /ics/…, no key) take one token each from their
// address's own bucket (10 per second, bursts of 50; feeds.go).
//
// Every answer of the public API behind the key check carries
//
//	RateLimit-Limit      the bucket's size (the burst): requests at once
//	RateLimit-Remaining  requests admitted right now (after this one)
//	RateLimit-Reset      seconds until the bucket is full again (0: full)
//
// of the key's bucket, or of the address's failure bucket for a 401. For an
// unlimited account (requests_per_second 0) they say Limit = Remaining = the
// account's burst and Reset 0: nothing is ever taken. A refused request is a
// 429 RATE_LIMITED with Retry-After and details.retry_after_seconds (whole
// seconds, at least 1). GET /api/v2/public/openapi.json is public and
// unlimited, and carries none of them.

// RateLimit configures the rate limits.
type RateLimit struct {
	// Keys is the per-key limiter; nil builds a local one on the server's
	// clock. cmd/frontdesk passes one it syncs through PostgreSQL
	// (ratelimit.Limiter.Run), so instances share each key's limit.
	Keys *ratelimit.Limiter
	// AuthFailures limits failed authentication per client address
	// (zero: 10 per second, bursts of 100).
	AuthFailures ratelimit.Limit
	// Patients limits the patients' surfaces (the manage link's API) per
	// client address (zero: 10 per second, bursts of 50).
	Patients ratelimit.Limit
	// Feeds limits calendar feed reads per client address (zero: 10 per
	// second, bursts of 50; feeds.go).
	Feeds ratelimit.Limit
	// Off turns both limits and their headers off. Only for measuring what
	// the limiter costs; the contract has them always on.
	Off bool
}

// defaultAuthFailures is the per-address limit on failed authentication
// (docs/contract.md, Rate limits).
var defaultAuthFailures = ratelimit.Limit{PerSecond: 10, Burst: 100}

type limits struct {
	off      bool
	keys     *ratelimit.Limiter
	addrs    *ratelimit.Limiter
	failures ratelimit.Limit
	patients ratelimit.Limit
	feeds    ratelimit.Limit
}

func newLimits(cfg RateLimit, clk clock.Clock) *limits {
	l := &limits{off: cfg.Off, keys: cfg.Keys, failures: cfg.AuthFailures, patients: cfg.Patients, feeds: cfg.Feeds}
	if l.keys == nil {
		l.keys = ratelimit.New(ratelimit.Options{Clock: clk})
	}
	if l.failures == (ratelimit.Limit{}) {
		l.failures = defaultAuthFailures
	}
	if l.patients == (ratelimit.Limit{}) {
		l.patients = defaultPatients
	}
	if l.feeds == (ratelimit.Limit{}) {
		l.feeds = defaultFeedLimit
	}
	// Failures are counted per instance: addresses are not shared.
	l.addrs = ratelimit.New(ratelimit.Options{Clock: clk})
	return l
}

// admitKey takes a token from the key's bucket and writes the headers; a
// refused request is answered here (429) and admitKey reports false.
func (l *limits) admitKey(w http.ResponseWriter, r *http.Request, keyID int64, lim account.Limits) bool {
	if l.off {
		return true
	}
	d := l.keys.Allow(KeyBucket(keyID), ratelimit.Limit{PerSecond: lim.RequestsPerSecond, Burst: lim.Burst})
	setRateHeaders(w.Header(), d)
	if d.Allowed {
		return true
	}
	refuse(w, r, d, "Too many requests for this API key: its limit is %s requests per second with bursts of %d.",
		strconv.FormatFloat(lim.RequestsPerSecond, 'f', -1, 64), lim.Burst)
	return false
}

// authFailed answers a failed authentication: 401, or 429 once the client
// address has failed too often.
func (s *Server) authFailed(w http.ResponseWriter, r *http.Request, detail string) {
	l := s.limits
	if l.off {
		unauthorized(w, detail)
		return
	}
	d := l.addrs.Allow(addressBucket(r), l.failures)
	setRateHeaders(w.Header(), d)
	if !d.Allowed {
		refuse(w, r, d, "Too many failed authentications from this address.")
		return
	}
	unauthorized(w, detail)
}

// peekAddress writes the address bucket's headers without taking a token,
// for an answer that is neither admitted nor a failed authentication (the
// key could not be checked).
func (l *limits) peekAddress(w http.ResponseWriter, r *http.Request) {
	if !l.off {
		setRateHeaders(w.Header(), l.addrs.Peek(addressBucket(r), l.failures))
	}
}

// KeyBucket names an API key's bucket; every door on the keys uses it.
func KeyBucket(keyID int64) string { return "key:" + strconv.FormatInt(keyID, 10) }

// addressBucket names the client address's bucket: the connection's host,
// IPv6 by /64.
func addressBucket(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		if ip.Is6() {
			p, _ := ip.Prefix(64)
			return "addr:" + p.String()
		}
		return "addr:" + ip.String()
	}
	return "addr:" + host
}

// setRateHeaders writes the three headers under the canonical keys
// Header.Set would make of "RateLimit-…" (sent as "Ratelimit-…"; header
// names are case-insensitive), without canonicalising them on every request.
func setRateHeaders(h http.Header, d ratelimit.Decision) {
	h["Ratelimit-Limit"] = []string{strconv.Itoa(d.Limit)}
	h["Ratelimit-Remaining"] = []string{strconv.Itoa(d.Remaining)}
	h["Ratelimit-Reset"] = []string{strconv.FormatInt(wholeSeconds(d.Reset), 10)}
}

// refuse answers 429 RATE_LIMITED with Retry-After.
func refuse(w http.ResponseWriter, r *http.Request, d ratelimit.Decision, format string, args ...any) {
	secs := max(wholeSeconds(d.RetryAfter), 1)
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	e := errs.WithDetails(errs.RateLimited, map[string]any{"retry_after_seconds": secs}, format, args...)
	e.Message += " Retry after " + strconv.FormatInt(secs, 10) + " s."
	writeError(w, r, e)
}

// wholeSeconds rounds up: waiting the header's seconds is always enough.
func wholeSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}
