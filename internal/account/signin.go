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

// SignInLimits are the throttle's limits (README.md, Security): PerEmail
// attempts per Window for one e-mail from one address, and PerAddress
// attempts that did not succeed per Window from one address, across
// e-mails.
type SignInLimits struct {
	PerEmail, PerAddress int
	Window               time.Duration
}

// SignInVerdict is AdmitSignIn's answer for one attempt.
type SignInVerdict struct {
	// Wait is how long the client must wait: 0 admits the attempt (check
	// the password now).
	Wait time.Duration
	// PerAddress says the address's limit refused it (else the e-mail's).
	PerAddress bool
	// AddressWindow is the window start (Unix µs) of the address counter
	// the attempt was counted in, for RefundSignInAttempt after a success.
	AddressWindow int64
}

// AdmitSignIn counts one attempt under addrKey and emailKey, before any
// password is checked, and says whether it may go on. The e-mail counter
// counts attempts; the address counter counts attempts that did not
// succeed, so an attempt the e-mail limit refuses takes its address count
// back (and a success does too, through RefundSignInAttempt).
//
// Both counts and the give-back are one transaction whose first statement
// locks the address's row (PostgreSQL's row lock, held to the commit;
// SQLite's write lock): attempts from one address are decided one at a
// time, so no attempt reads an address count that a refused attempt has
// not yet given back, and the count stays exact however many arrive at
// once. Only the counting is serialised, never the password check.
func AdmitSignIn(ctx context.Context, store *db.DB, addrKey, emailKey string, lim SignInLimits, now time.Time) (SignInVerdict, error) {
	var v SignInVerdict
	err := store.Transact(ctx, func(tx *db.Tx) error {
		v = SignInVerdict{}
		n, start, err := countSignInAttempt(ctx, tx, addrKey, now, lim.Window)
		if err != nil {
			return err
		}
		v.AddressWindow = start
		if n > lim.PerAddress {
			v.Wait, v.PerAddress = signInWait(start, now, lim.Window), true
			return nil
		}
		n, start, err = countSignInAttempt(ctx, tx, emailKey, now, lim.Window)
		if err != nil {
			return err
		}
		if n > lim.PerEmail {
			v.Wait = signInWait(start, now, lim.Window)
			return RefundSignInAttempt(ctx, tx, addrKey, v.AddressWindow)
		}
		return nil
	})
	if err != nil {
		return SignInVerdict{}, fmt.Errorf("admit sign-in: %w", err)
	}
	return v, nil
}

// signInWait is how long until the window that started at start ends (at
// least a second).
func signInWait(start int64, now time.Time, window time.Duration) time.Duration {
	if wait := db.Time(start).Add(window).Sub(now); wait > 0 {
		return wait
	}
	return time.Second
}

// countSignInAttempt records one attempt under key and returns the count in
// the current window and the window's start (Unix µs). One INSERT … ON
// CONFLICT DO UPDATE … RETURNING: the row lock (PostgreSQL) or the write
// lock (SQLite) covers the whole read-modify-write, so parallel attempts
// never read the same old count. A window that ended restarts at now.
func countSignInAttempt(ctx context.Context, q db.Querier, key string, now time.Time, window time.Duration) (n int, start int64, err error) {
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
