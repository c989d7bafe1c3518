package account

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// Sign-in attempt counters (the dashboard's throttle): one row per throttle
// key (an e-mail and address, or an address) holding the attempts counted
// in a fixed window that starts at the first attempt.

// CountSignInAttempt records one attempt under key and returns the count in
// the current window and the window's start (Unix µs). One INSERT … ON
// CONFLICT DO UPDATE … RETURNING: the row lock (PostgreSQL) or the write
// lock (SQLite) covers the whole read-modify-write, so parallel attempts
// never read the same old count. A window that ended restarts at now.
func CountSignInAttempt(ctx context.Context, q db.Querier, key string, now time.Time, window time.Duration) (n int, start int64, err error) {
	expired := db.Micros(now.Add(-window))
	err = q.QueryRow(ctx, `INSERT INTO signin_attempts (throttle_key, n, window_start) VALUES (?, 1, ?)
		ON CONFLICT (throttle_key) DO UPDATE SET
			n = CASE WHEN signin_attempts.window_start <= ? THEN 1 ELSE signin_attempts.n + 1 END,
			window_start = CASE WHEN signin_attempts.window_start <= ? THEN excluded.window_start ELSE signin_attempts.window_start END
		RETURNING n, window_start`, key, db.Micros(now), expired, expired).Scan(&n, &start)
	if err != nil {
		return 0, 0, fmt.Errorf("count sign-in attempt: %w", err)
	}
	return n, start, nil
}

// RefundSignInAttempt takes one attempt back from key, within the window
// that started at windowStart only.
func RefundSignInAttempt(ctx context.Context, q db.Querier, key string, windowStart int64) error {
	_, err := q.Exec(ctx, `UPDATE signin_attempts SET n = n - 1 WHERE throttle_key = ? AND window_start = ? AND n > 0`, key, windowStart)
	return err
}

// ClearSignInAttempts forgets key's attempts (a successful sign-in).
func ClearSignInAttempts(ctx context.Context, q db.Querier, key string) error {
	_, err := q.Exec(ctx, `DELETE FROM signin_attempts WHERE throttle_key = ?`, key)
	return err
}

// SweepSignInAttempts deletes counters whose window started at or before
// before.
func SweepSignInAttempts(ctx context.Context, q db.Querier, before time.Time) error {
	_, err := q.Exec(ctx, `DELETE FROM signin_attempts WHERE window_start <= ?`, db.Micros(before))
	return err
}
