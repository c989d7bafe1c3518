package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/reqid"
)

type ctxKey int

const (
	keyAccount ctxKey = iota
	keyInfo
)

// requestInfo is filled in as the request travels, for the access log, the
// request's logger and its account. It is one context value (and one copy
// of the request) for all three.
type requestInfo struct {
	id    string
	route string
	// acct is the key's account once RequireKey admitted the request.
	acct      account.Account
	accountID int64
	// log is the server's logger; logFrom adds the request id and account.
	log *slog.Logger
	// clientGone: the client abandoned the request (see writeError).
	clientGone bool
}

// statusClientGone is what the access log and the metrics record for a
// request the client abandoned (nginx's 499); it is never sent.
const statusClientGone = 499

func accountFrom(ctx context.Context) account.Account {
	if a, ok := ctx.Value(keyAccount).(account.Account); ok {
		return a
	}
	if info, ok := ctx.Value(keyInfo).(*requestInfo); ok {
		return info.acct
	}
	return account.Account{}
}

// logFrom is the request's logger: the server's, with the request id and,
// once the key is checked, the account id. It is made when something is
// logged, not for every request.
func logFrom(r *http.Request) *slog.Logger {
	info, ok := r.Context().Value(keyInfo).(*requestInfo)
	if !ok {
		return slog.Default()
	}
	if info.accountID != 0 {
		return info.log.With("request_id", info.id, "account_id", info.accountID)
	}
	return info.log.With("request_id", info.id)
}

func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sanitizeRequestID accepts a caller's id only when it is short and printable.
func sanitizeRequestID(s string) string {
	if s == "" || len(s) > 128 {
		return ""
	}
	for _, c := range s {
		if c < 0x21 || c > 0x7e {
			return ""
		}
	}
	return s
}

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe gives every request an id, recovers panics as 500 envelopes, and
// writes one structured access-log line and the metrics.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &requestInfo{id: sanitizeRequestID(r.Header.Get("X-Request-Id")), log: s.log}
		if info.id == "" {
			info.id = newRequestID()
		}
		w.Header().Set("X-Request-Id", info.id)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if !strings.HasPrefix(r.URL.Path, "/app/") {
			// The dashboard sets its own policy: it returns to the
			// referring page after an action.
			w.Header().Set("Referrer-Policy", "no-referrer")
		}
		timeout := s.timeout
		if timeout <= 0 {
			timeout = 2 * time.Minute
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		r = r.WithContext(reqid.With(context.WithValue(ctx, keyInfo, info), info.id))
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				logFrom(r).Error("panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					writeError(sw, r, fmt.Errorf("panic: %v", p))
				}
			}
			elapsed := time.Since(start)
			route := info.route
			if route == "" {
				route = "unmatched"
			}
			status := sw.status
			if info.clientGone {
				status = statusClientGone
			}
			s.metrics.observe(r.Method, route, status, elapsed)
			// request_id first, as a logger made With it would write it.
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("request_id", info.id),
				slog.String("method", r.Method), slog.String("route", route), slog.String("path", loggedPath(r.URL.Path)),
				slog.Int("status", status), slog.Int("bytes", sw.bytes),
				slog.Duration("duration", elapsed), slog.Int64("account_id", info.accountID))
			if info.clientGone && sw.status == 0 {
				// No response was written: close the connection rather
				// than let net/http send an empty 200 to a half-closed one.
				panic(http.ErrAbortHandler)
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

const (
	msgUnauthorized = "Unauthorized"
	msgInvalidKey   = "Invalid or expired API key. Check your credentials."
)

func unauthorized(w http.ResponseWriter, detail string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="frontdesk"`)
	writeJSON(w, http.StatusUnauthorized, map[string]string{"detail": detail})
}

// bearer extracts the key of an "Authorization: Bearer <key>" header; the
// scheme word is case-insensitive.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, key, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	key = strings.TrimSpace(key)
	return key, key != ""
}

// authenticate guards every public path (known or not) before routing, as
// the contract's order of checks asks.
func (s *Server) authenticate(next http.Handler) http.Handler {
	keyed := s.RequireKey(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		openDoc := r.URL.Path == publicPrefix+"/openapi.json" && (r.Method == http.MethodGet || r.Method == http.MethodHead)
		if isPatientPath(r.URL.Path) { // no key: the patient API's own limit
			s.patientGate(w, r, next)
			return
		}
		if !strings.HasPrefix(r.URL.Path, publicPrefix+"/") || openDoc {
			next.ServeHTTP(w, r)
			return
		}
		keyed.ServeHTTP(w, r)
	})
}

// RequireKey admits a request only with a valid API key within its rate
// limit (ratelimit.go) and gives next the key's account. It guards the public
// API; another door on the same keys (/mcp) wraps its handler in it, so every
// door counts against the one bucket of the key.
func (s *Server) RequireKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := bearer(r)
		if !ok {
			s.authFailed(w, r, msgUnauthorized)
			return
		}
		acct, keyID, err := s.auth.AuthenticateKey(r.Context(), key)
		if err == account.ErrInvalidKey {
			s.authFailed(w, r, msgInvalidKey)
			return
		}
		if err != nil {
			s.limits.peekAddress(w, r)
			writeError(w, r, err)
			return
		}
		if info, ok := r.Context().Value(keyInfo).(*requestInfo); ok {
			info.accountID, info.acct = acct.ID, acct
		} else { // outside observe
			r = r.WithContext(context.WithValue(r.Context(), keyAccount, acct))
		}
		if !s.limits.admitKey(w, r, keyID, acct.Limits) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// route dispatches to the mux, answering unknown paths and wrong methods in
// the calendar envelope instead of the mux's plain text.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern == "" {
		probe := &headerOnly{header: http.Header{}}
		h.ServeHTTP(probe, r)
		if probe.status == http.StatusMethodNotAllowed {
			if allow := probe.header.Get("Allow"); allow != "" {
				w.Header().Set("Allow", allow)
			}
			writeError(w, r, errs.New(errs.MethodNotAllowed, "Method %s is not allowed on %s.", r.Method, r.URL.Path))
			return
		}
		writeError(w, r, errs.New(errs.NotFound, "No route matches %s %s.", r.Method, r.URL.Path))
		return
	}
	if info, ok := r.Context().Value(keyInfo).(*requestInfo); ok {
		info.route = pattern
	}
	s.mux.ServeHTTP(w, r)
}

// headerOnly records what the mux's own error handler would answer.
type headerOnly struct {
	header http.Header
	status int
}

func (h *headerOnly) Header() http.Header         { return h.header }
func (h *headerOnly) Write(b []byte) (int, error) { return len(b), nil }
func (h *headerOnly) WriteHeader(code int)        { h.status = code }

// adminOnly guards the admin routes with the admin token. A wrong or
// missing token is a failed authentication like a wrong API key: it takes
// from the same per-address bucket (ratelimit.go), so guessing the token is
// as slow as guessing a key; the right token is never refused by it.
func (s *Server) adminOnly(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		key, ok := bearer(r)
		if !ok || subtle.ConstantTimeCompare([]byte(key), []byte(s.adminToken)) != 1 {
			s.authFailed(w, r, msgUnauthorized)
			return nil
		}
		return next(w, r)
	}
}
