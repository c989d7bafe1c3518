package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Idempotency-Key (beyond the contract, optional for callers): the first
// response to a (key, account, route) is kept for IdempotencyTTL and
// replayed byte for byte to a repeat with the same body; another body is
// IDEMPOTENCY_KEY_REUSED, a repeat while the first still runs is
// IDEMPOTENCY_IN_PROGRESS, and 5xx answers are never kept, so a 500 stays
// retryable and a retried booking can never make two appointments.
const (
	IdempotencyTTL = 24 * time.Hour
	// idempotencyLease is how long a running request owns its key; a
	// request that crashed frees the key after it.
	idempotencyLease  = 2 * time.Minute
	maxIdempotencyKey = 255
)

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
			w.Header().Set("Content-Type", stored.contentType)
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(stored.status)
			w.Write(stored.body)
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

type storedResponse struct {
	status      int
	contentType string
	body        []byte
}

// claimIdempotencyKey takes the key for this request, or returns the stored
// response to replay, or an error for a reused or busy key.
func (s *Server) claimIdempotencyKey(ctx context.Context, acct account.Account, key, route, hash string) (*storedResponse, error) {
	now := s.clock.Now()
	var out *storedResponse
	err := s.db.Transact(ctx, func(tx *db.Tx) error {
		var (
			state, storedHash, ctype string
			status                   *int
			body                     *string
			created, lockedUntil     int64
		)
		err := tx.QueryRow(ctx, `SELECT state, request_hash, response_status, response_type, response_body, created_at, locked_until
			FROM idempotency_keys WHERE account_id = ? AND idem_key = ? AND route = ?`+tx.Dialect().ForUpdate(), acct.ID, key, route).
			Scan(&state, &storedHash, &status, &ctypeOrNil{&ctype}, &body, &created, &lockedUntil)
		expired := err == nil && db.Time(created).Add(IdempotencyTTL).Before(now)
		abandoned := err == nil && state == "running" && db.Time(lockedUntil).Before(now)
		switch {
		case db.IsNoRows(err), expired, abandoned:
			_, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (account_id, idem_key, route, request_hash, state, created_at, locked_until)
				VALUES (?, ?, ?, ?, 'running', ?, ?) ON CONFLICT (account_id, idem_key, route) DO UPDATE SET
				request_hash = excluded.request_hash, state = 'running', response_status = NULL, response_type = NULL, response_body = NULL,
				created_at = excluded.created_at, locked_until = excluded.locked_until`,
				acct.ID, key, route, hash, db.Micros(now), db.Micros(now.Add(idempotencyLease)))
			return err
		case err != nil:
			return err
		case storedHash != hash:
			return errs.WithDetails(errs.IdempotencyReused, map[string]any{"idempotency_key": key},
				"This Idempotency-Key was already used with a different request body.")
		case state == "running":
			return errs.WithDetails(errs.IdempotencyBusy, map[string]any{"idempotency_key": key},
				"A request with this Idempotency-Key is still running; retry later.")
		default:
			out = &storedResponse{status: derefInt(status), contentType: ctype, body: []byte(derefStr(body))}
			return nil
		}
	})
	return out, err
}

type ctypeOrNil struct{ s *string }

func (c *ctypeOrNil) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*c.s = ""
	case string:
		*c.s = x
	case []byte:
		*c.s = string(x)
	default:
		return errors.New("unexpected content type value")
	}
	return nil
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func derefStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (s *Server) storeIdempotentResponse(ctx context.Context, acct account.Account, key, route string, rec *recorder) {
	_, err := s.db.Exec(context.WithoutCancel(ctx), `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_type = ?, response_body = ?
		WHERE account_id = ? AND idem_key = ? AND route = ?`, rec.status, rec.header.Get("Content-Type"), rec.buf.String(), acct.ID, key, route)
	if err != nil {
		s.log.Error("idempotency: store response", "err", err)
	}
}

func (s *Server) releaseIdempotencyKey(acct account.Account, key, route string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.db.Exec(ctx, `DELETE FROM idempotency_keys WHERE account_id = ? AND idem_key = ? AND route = ? AND state = 'running'`, acct.ID, key, route)
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
