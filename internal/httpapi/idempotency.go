package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/idempotency"
)

// Idempotency-Key (beyond the contract, optional for callers): see package
// idempotency. 5xx answers are never kept, so a 500 stays retryable and a
// retried booking can never make two appointments.
const maxIdempotencyKey = 255

func isMutating(method string) bool {
	return method == http.MethodPost || method == http.MethodPatch || method == http.MethodDelete || method == http.MethodPut
}

// idempotent wraps a public handler; requests without the header pass through.
func (s *Server) idempotent(route string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		acct := accountFrom(r.Context())
		if key == "" || !isMutating(r.Method) || acct.ID == 0 {
			next(w, r)
			return
		}
		if len(key) > maxIdempotencyKey {
			writeError(w, r, errs.WithDetails(errs.ValidationError, map[string]any{"field": "Idempotency-Key"}, "The Idempotency-Key header may have at most %d characters.", maxIdempotencyKey))
			return
		}
		body, err := readRaw(w, r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:])
		r.Body = io.NopCloser(bytes.NewReader(body))

		stored, err := s.claimIdempotencyKey(r.Context(), acct, key, route, hash)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if stored != nil {
			w.Header().Set("Content-Type", stored.ContentType)
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(stored.Status)
			w.Write(stored.Body)
			return
		}
		rec := &recorder{ResponseWriter: w, header: http.Header{}}
		completed := false
		defer func() {
			if !completed {
				s.releaseIdempotencyKey(acct, key, route) // a panic: keep the key retryable
			}
		}()
		next(rec, r)
		completed = true
		if rec.status >= 500 || rec.status == 0 {
			s.releaseIdempotencyKey(acct, key, route)
		} else {
			s.storeIdempotentResponse(r.Context(), acct, key, route, rec)
		}
		if rec.status == 0 && clientLeft(r) {
			return // nothing to send: observe drops the connection
		}
		rec.flush()
	}
}

func (s *Server) claimIdempotencyKey(ctx context.Context, acct account.Account, key, route, hash string) (*idempotency.Response, error) {
	return idempotency.Claim(ctx, s.db, acct, key, route, hash, s.clock.Now())
}

func (s *Server) storeIdempotentResponse(ctx context.Context, acct account.Account, key, route string, rec *recorder) {
	resp := idempotency.Response{Status: rec.status, ContentType: rec.header.Get("Content-Type"), Body: rec.buf.Bytes()}
	if err := idempotency.Keep(context.WithoutCancel(ctx), s.db, acct, key, route, resp); err != nil {
		s.log.Error("idempotency: store response", "err", err)
	}
}

func (s *Server) releaseIdempotencyKey(acct account.Account, key, route string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	idempotency.Release(ctx, s.db, acct, key, route)
}

// recorder buffers a response so it can be stored before it is sent.
type recorder struct {
	http.ResponseWriter
	header http.Header
	status int
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.buf.Write(b)
}

func (r *recorder) flush() {
	for k, v := range r.header {
		r.ResponseWriter.Header()[k] = v
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.ResponseWriter.Header().Set("Content-Length", strconv.Itoa(r.buf.Len()))
	r.ResponseWriter.WriteHeader(r.status)
	r.ResponseWriter.Write(r.buf.Bytes())
}
