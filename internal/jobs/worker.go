package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Handler runs one job inside tx; the job is marked done in the same
// transaction, so its writes and its completion commit together. Effects
// outside the database (an HTTP call) happen at least once.
type Handler func(ctx context.Context, tx *db.Tx, acct account.Account, job Job) error

// Call is a job's effect outside the database (an HTTP request, a message
// channel). It runs before the job's transaction, so a slow receiver never
// holds a database lock (on SQLite, the whole database's write lock); the
// Handler of the same kind then records the outcome in a transaction.
type Call func(ctx context.Context, store *db.DB, acct account.Account, job Job) error

// Worker claims and runs due jobs.
type Worker struct {
	DB       *db.DB
	Clock    clock.Clock
	Log      *slog.Logger
	Handlers map[string]Handler
	Calls    map[string]Call
	// Poll is the pause between empty polls (default 1 s).
	Poll time.Duration
	// Lease is how long a claimed job is owned before another worker may
	// take it over (default 5 min).
	Lease time.Duration
	// Backoff is the delay before attempt n+1 (default 2^n seconds, ≤ 1 h).
	Backoff func(attempt int) time.Duration
	// Batch is how many jobs one poll claims (default 20).
	Batch int
	// Periodic tasks run at every poll before jobs are claimed (the waiting
	// lists' schedules); each is responsible for claiming its own work so
	// several instances can run them side by side.
	Periodic []func(ctx context.Context, now time.Time) error
}

func (w *Worker) lease() time.Duration {
	if w.Lease > 0 {
		return w.Lease
	}
	return 5 * time.Minute
}

func (w *Worker) backoff(attempt int) time.Duration {
	if w.Backoff != nil {
		return w.Backoff(attempt)
	}
	return time.Duration(math.Min(math.Pow(2, float64(attempt)), 3600)) * time.Second
}

// Run polls until ctx ends; a job under way finishes first.
func (w *Worker) Run(ctx context.Context) error {
	poll := w.Poll
	if poll <= 0 {
		poll = time.Second
	}
	for {
		// Checked before every round, not only when idle: with a backlog
		// RunOnce always finds work, and shutdown must not wait for the
		// whole queue to drain (claimed jobs still finish; the rest stay
		// queued for the next start).
		if ctx.Err() != nil {
			return nil
		}
		n, err := w.RunOnce(context.WithoutCancel(ctx))
		if err != nil && w.Log != nil {
			w.Log.Error("jobs: poll failed", "err", err)
		}
		if n > 0 && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(poll):
		}
	}
}

// RunOnce claims due jobs and runs them; it returns how many ran.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	for _, task := range w.Periodic {
		if err := task(ctx, w.Clock.Now()); err != nil && w.Log != nil {
			w.Log.Error("jobs: periodic task failed", "err", err)
		}
	}
	claimed, err := w.claim(ctx)
	if err != nil {
		return 0, err
	}
	w.runBatch(ctx, claimed)
	return len(claimed), nil
}

func (w *Worker) claim(ctx context.Context) ([]Job, error) {
	batch := w.Batch
	if batch <= 0 {
		batch = 20
	}
	now := w.Clock.Now()
	var out []Job
	err := w.DB.Transact(ctx, func(tx *db.Tx) error {
		out = out[:0]
		// Two queries rather than one with OR: each walks the (status,
		// run_at) index in order and stops at the limit, where the OR form
		// sorted every due job first (half a second per claim with 200,000
		// jobs queued, so the worker fell further behind the more it had
		// to do).
		for _, q := range []struct{ where, order string }{
			{"status = 'running' AND locked_until < ?", "id"}, // leases that ran out: a worker died
			{"status = 'pending' AND run_at <= ?", "run_at, id"},
		} {
			if len(out) >= batch {
				break
			}
			rows, err := tx.Query(ctx, `SELECT id, account_id, kind, payload, attempts, max_attempts, source_type, source_id FROM jobs
				WHERE `+q.where+` ORDER BY `+q.order+` LIMIT ?`+tx.Dialect().SkipLocked(), db.Micros(now), batch-len(out))
			if err != nil {
				return err
			}
			for rows.Next() {
				var (
					j        Job
					payload  string
					src      sql.NullString
					sourceID sql.NullInt64
				)
				if err := rows.Scan(&j.ID, &j.AccountID, &j.Kind, &payload, &j.Attempts, &j.MaxAttempts, &src, &sourceID); err != nil {
					rows.Close()
					return err
				}
				j.Payload, j.SourceType, j.SourceID = []byte(payload), src.String, sourceID.Int64
				j.Attempts++
				out = append(out, j)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		if len(out) == 0 {
			return nil
		}
		ids := make([]int64, len(out))
		for i, j := range out {
			ids[i] = j.ID
		}
		in, args := db.In(ids)
		_, err := tx.Exec(ctx, `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_until = ? WHERE id IN `+in,
			append([]any{db.Micros(now.Add(w.lease()))}, args...)...)
		return err
	})
	return out, err
}

// runBatch runs claimed jobs. External calls (webhooks, message sends) go
// first, one job at a time and outside any transaction; then the database
// part of every job whose call succeeded runs in one transaction, each job
// inside a savepoint so that a failing job rolls back only its own writes.
// One transaction per batch rather than per job matters on SQLite, where
// every write transaction waits its turn behind ingest batches: per job,
// the worker completed about 125 jobs/s under a sustained ingest load while
// 3,800/s were queued.
func (w *Worker) runBatch(ctx context.Context, claimed []Job) {
	accounts := accountCache{}
	var local []Job
	for _, j := range claimed {
		if _, ok := w.Handlers[j.Kind]; !ok {
			w.fail(ctx, j, fmt.Errorf("no handler for job kind %q", j.Kind), true)
			continue
		}
		if call, ok := w.Calls[j.Kind]; ok {
			// The batch's calls run one after another; renewing this job's
			// lease right before its call keeps a slow batch from letting
			// another worker reclaim jobs it is about to send (which would
			// send them twice). A job another worker already took over is
			// left to it.
			if ok, err := w.renew(ctx, j); err != nil || !ok {
				continue
			}
			acct, err := accounts.get(ctx, w.DB, j.AccountID)
			if err == nil {
				err = call(ctx, w.DB, acct, j)
			}
			var later *Deferred
			var perm *permanentError
			switch {
			case errors.As(err, &later):
				w.defer_(ctx, j, later.Until)
				continue
			case err != nil:
				w.fail(ctx, j, err, errors.As(err, &perm))
				continue
			}
		}
		local = append(local, j)
	}
	if len(local) == 0 {
		return
	}
	failed := map[int64]error{}
	err := w.DB.Transact(ctx, func(tx *db.Tx) error {
		clear(failed)
		for _, j := range local {
			if _, err := tx.Exec(ctx, `SAVEPOINT job`); err != nil {
				return err
			}
			if err := w.runInTx(ctx, tx, accounts, j); err != nil {
				if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT job`); err != nil {
					return err
				}
				failed[j.ID] = err
			}
			if _, err := tx.Exec(ctx, `RELEASE SAVEPOINT job`); err != nil {
				return err
			}
		}
		return nil
	})
	for _, j := range local {
		switch {
		case err != nil:
			w.fail(ctx, j, err, false) // nothing of the batch was written
		case failed[j.ID] != nil:
			w.fail(ctx, j, failed[j.ID], false)
		}
	}
}

// runInTx runs the database part of one job and marks it done.
func (w *Worker) runInTx(ctx context.Context, tx *db.Tx, accounts accountCache, j Job) error {
	acct, err := accounts.get(ctx, tx, j.AccountID)
	if err != nil {
		return err
	}
	if err := w.Handlers[j.Kind](ctx, tx, acct, j); err != nil {
		return err
	}
	now := db.Micros(w.Clock.Now())
	if _, err := tx.Exec(ctx, `UPDATE jobs SET status = 'done', finished_at = ?, last_error = NULL WHERE id = ?`, now, j.ID); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO job_attempts (job_id, attempt, at, ok) VALUES (?, ?, ?, TRUE)`, j.ID, j.Attempts, now)
	return err
}

// fail schedules a retry with backoff, or gives up after max attempts.
func (w *Worker) fail(ctx context.Context, j Job, cause error, permanent bool) {
	now := w.Clock.Now()
	status, runAt := "pending", now.Add(w.backoff(j.Attempts))
	if permanent || j.Attempts >= j.MaxAttempts {
		status = "failed"
	}
	if w.Log != nil {
		w.Log.Warn("jobs: attempt failed", "job_id", j.ID, "kind", j.Kind, "attempt", j.Attempts, "status", status, "err", cause)
	}
	msg := cause.Error()
	if len(msg) > 1000 {
		msg = msg[:1000]
	}
	w.DB.Exec(ctx, `UPDATE jobs SET status = ?, run_at = ?, locked_until = NULL, last_error = ?, finished_at = ? WHERE id = ?`,
		status, db.Micros(runAt), msg, finishedAt(status, now), j.ID)
	w.DB.Exec(ctx, `INSERT INTO job_attempts (job_id, attempt, at, ok, error) VALUES (?, ?, ?, FALSE, ?)`, j.ID, j.Attempts, db.Micros(now), msg)
	if status == "failed" {
		// A message whose delivery gave up is failed, with the last error.
		w.DB.Exec(ctx, `UPDATE outbox SET status = 'failed', error = COALESCE(error, ?)
			WHERE id = (SELECT outbox_id FROM jobs WHERE id = ?) AND status = 'pending'`, msg, j.ID)
	}
}

// renew extends a claimed job's lease; false when the job is no longer
// this worker's (its lease ran out and another worker claimed it).
func (w *Worker) renew(ctx context.Context, j Job) (bool, error) {
	res, err := w.DB.Exec(ctx, `UPDATE jobs SET locked_until = ? WHERE id = ? AND status = 'running' AND attempts = ?`,
		db.Micros(w.Clock.Now().Add(w.lease())), j.ID, j.Attempts)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// defer_ puts a job back to run at until without counting the attempt
// (quiet hours): nothing was tried.
func (w *Worker) defer_(ctx context.Context, j Job, until time.Time) {
	w.DB.Exec(ctx, `UPDATE jobs SET status = 'pending', run_at = ?, locked_until = NULL, attempts = attempts - 1 WHERE id = ?`,
		db.Micros(until), j.ID)
}

func finishedAt(status string, now time.Time) any {
	if status == "failed" {
		return db.Micros(now)
	}
	return nil
}

// accountCache loads each account of a claimed batch once.
type accountCache map[int64]account.Account

func (c accountCache) get(ctx context.Context, q db.Querier, id int64) (account.Account, error) {
	if a, ok := c[id]; ok {
		return a, nil
	}
	a, err := accountByID(ctx, q, id)
	if err == nil {
		c[id] = a
	}
	return a, err
}

func accountByID(ctx context.Context, q db.Querier, id int64) (account.Account, error) {
	var a account.Account
	err := q.QueryRow(ctx, `SELECT id, slug, name, timezone, default_region FROM accounts WHERE id = ?`, id).
		Scan(&a.ID, &a.Slug, &a.Name, &a.Timezone, &a.DefaultRegion)
	return a, err
}

// Depth counts pending jobs (for metrics and readiness).
func Depth(ctx context.Context, q db.Querier) (pending, failed int, err error) {
	err = q.QueryRow(ctx, `SELECT COALESCE(SUM(CASE WHEN status IN ('pending','running') THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0) FROM jobs`).Scan(&pending, &failed)
	return
}
