// Package idempotency keeps the answers of requests sent with an
// Idempotency-Key (beyond the contract, optional for callers): the first
// response to a (key, account, route) is kept for TTL and replayed to a
// repeat with the same body; another body is IDEMPOTENCY_KEY_REUSED, a
// repeat while the first still runs is IDEMPOTENCY_IN_PROGRESS. The HTTP
// layer decides what to keep (never a 5xx, so a 500 stays retryable); this
// package owns the table.
package idempotency

import (
	"context"
	"errors"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

const (
	// TTL is how long an answer is kept.
	TTL = 24 * time.Hour
	// Lease is how long a running request owns its key; a request that
	// crashed frees the key after it.
	Lease = 2 * time.Minute
)

// Response is a kept answer.
type Response struct {
	Status      int
	ContentType string
	Body        []byte
}

// Claim takes key for a request whose body hashes to hash, or returns the
// kept response to replay, or an error for a reused or busy key.
func Claim(ctx context.Context, store *db.DB, acct account.Account, key, route, hash string, now time.Time) (*Response, error) {
	var out *Response
	err := store.Transact(ctx, func(tx *db.Tx) error {
		var (
			state, storedHash, ctype string
			status                   *int
			body                     *string
			created, lockedUntil     int64
		)
		err := tx.QueryRow(ctx, `SELECT state, request_hash, response_status, response_type, response_body, created_at, locked_until
			FROM idempotency_keys WHERE account_id = ? AND idem_key = ? AND route = ?`+tx.Dialect().ForUpdate(), acct.ID, key, route).
			Scan(&state, &storedHash, &status, &textOrNil{&ctype}, &body, &created, &lockedUntil)
		expired := err == nil && db.Time(created).Add(TTL).Before(now)
		abandoned := err == nil && state == "running" && db.Time(lockedUntil).Before(now)
		switch {
		case db.IsNoRows(err):
			// Two first requests can both find no row (FOR UPDATE locks
			// nothing yet): the one whose insert lands owns the key, the
			// other is a repeat while the first still runs.
			res, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (account_id, idem_key, route, request_hash, state, created_at, locked_until)
				VALUES (?, ?, ?, ?, 'running', ?, ?) ON CONFLICT (account_id, idem_key, route) DO NOTHING`,
				acct.ID, key, route, hash, db.Micros(now), db.Micros(now.Add(Lease)))
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return errs.WithDetails(errs.IdempotencyBusy, map[string]any{"idempotency_key": key},
					"A request with this Idempotency-Key is still running; retry later.")
			}
			return nil
		case expired, abandoned:
			_, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (account_id, idem_key, route, request_hash, state, created_at, locked_until)
				VALUES (?, ?, ?, ?, 'running', ?, ?) ON CONFLICT (account_id, idem_key, route) DO UPDATE SET
				request_hash = excluded.request_hash, state = 'running', response_status = NULL, response_type = NULL, response_body = NULL,
				created_at = excluded.created_at, locked_until = excluded.locked_until`,
				acct.ID, key, route, hash, db.Micros(now), db.Micros(now.Add(Lease)))
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
			out = &Response{Status: deref(status), ContentType: ctype, Body: []byte(deref(body))}
			return nil
		}
	})
	return out, err
}

// Keep stores the answer of the request that claimed key.
func Keep(ctx context.Context, store *db.DB, acct account.Account, key, route string, resp Response) error {
	_, err := store.Exec(ctx, `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_type = ?, response_body = ?
		WHERE account_id = ? AND idem_key = ? AND route = ?`, resp.Status, resp.ContentType, string(resp.Body), acct.ID, key, route)
	return err
}

// Release frees a key whose request kept nothing (a 5xx, a panic), so it
// can be retried.
func Release(ctx context.Context, store *db.DB, acct account.Account, key, route string) error {
	_, err := store.Exec(ctx, `DELETE FROM idempotency_keys WHERE account_id = ? AND idem_key = ? AND route = ? AND state = 'running'`, acct.ID, key, route)
	return err
}

// textOrNil scans a nullable text column into a string ("" for NULL) on
// both engines (SQLite may answer bytes).
type textOrNil struct{ s *string }

func (c *textOrNil) Scan(v any) error {
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

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
