package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

type failure struct {
	job       Job
	err       error
	permanent bool
}

// complete runs the database part of jobs in tx and marks them done, and
// records the failures of failed (and of jobs that fail here) for a retry.
// Jobs of a kind with a BatchHandler run together per account in one
// savepoint; the others, and a batch that failed, run one by one, each in a
// savepoint of its own, so a failing job rolls back only its own writes.
func (w *Worker) complete(ctx context.Context, tx *db.Tx, accounts accountCache, jobs []Job, failed []failure) error {
	var done []Job
	type group struct {
		kind    string
		account int64
	}
	groups := map[group][]Job{}
	var order []group
	var single []Job
	for _, j := range jobs {
		if _, ok := w.Handlers[j.Kind]; !ok {
			failed = append(failed, failure{j, fmt.Errorf("no handler for job kind %q", j.Kind), true})
			continue
		}
		if _, ok := w.BatchHandlers[j.Kind]; !ok {
			single = append(single, j)
			continue
		}
		g := group{j.Kind, j.AccountID}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], j)
	}
	for _, g := range order {
		batch := groups[g]
		if len(batch) == 1 {
			single = append(single, batch...)
			continue
		}
		err := savepoint(ctx, tx, func() error {
			acct, err := accounts.get(ctx, tx, g.account)
			if err != nil {
				return err
			}
			return w.BatchHandlers[g.kind](ctx, tx, acct, batch)
		})
		switch {
		case err == nil:
			done = append(done, batch...)
		case isTxBroken(err):
			return err
		default:
			single = append(single, batch...)
		}
	}
	for _, j := range single {
		err := savepoint(ctx, tx, func() error {
			acct, err := accounts.get(ctx, tx, j.AccountID)
			if err != nil {
				return err
			}
			return w.Handlers[j.Kind](ctx, tx, acct, j)
		})
		switch {
		case err == nil:
			done = append(done, j)
		case isTxBroken(err):
			return err
		default:
			failed = append(failed, failure{j, err, false})
		}
	}
	if len(done) > 0 {
		now := db.Micros(w.Clock.Now())
		attempts := make([][]any, len(done))
		for i, j := range done {
			attempts[i] = []any{j.AccountID, j.ID, j.Attempts, now, true}
		}
		// The attempt is written here too: a job completed in the
		// transaction that claimed it was never marked (worker_claim.go).
		// One statement per attempt number (nearly always one: the first).
		byAttempt := map[int][]Job{}
		var numbers []int
		for _, j := range done {
			if _, ok := byAttempt[j.Attempts]; !ok {
				numbers = append(numbers, j.Attempts)
			}
			byAttempt[j.Attempts] = append(byAttempt[j.Attempts], j)
		}
		for _, n := range numbers {
			in, args := inJobs(byAttempt[n])
			if _, err := tx.Exec(ctx, `UPDATE jobs SET status = 'done', attempts = ?, finished_at = ?, locked_until = NULL, last_error = NULL WHERE `+in,
				append([]any{n, now}, args...)...); err != nil {
				return err
			}
		}
		if err := db.InsertMany(ctx, tx, `INSERT INTO job_attempts (account_id, job_id, attempt, at, ok)`, attempts, ""); err != nil {
			return err
		}
	}
	for _, f := range failed {
		if err := w.fail(ctx, tx, f.job, f.err, f.permanent); err != nil {
			return err
		}
	}
	return nil
}

// savepoint runs fn inside a savepoint of tx and rolls its writes back when
// it fails.
func savepoint(ctx context.Context, tx *db.Tx, fn func() error) error {
	if _, err := tx.Exec(ctx, `SAVEPOINT job`); err != nil {
		return txBroken{err}
	}
	ferr := fn()
	if ferr != nil {
		if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT job`); err != nil {
			return txBroken{err}
		}
	}
	if _, err := tx.Exec(ctx, `RELEASE SAVEPOINT job`); err != nil {
		return txBroken{err}
	}
	return ferr
}

// txBroken is a failure of the transaction itself, not of a job.
type txBroken struct{ error }

func (e txBroken) Unwrap() error { return e.error }

func isTxBroken(err error) bool {
	var b txBroken
	return errors.As(err, &b)
}

// fail schedules a retry with backoff, or gives up after max attempts.
func (w *Worker) fail(ctx context.Context, q db.Querier, j Job, cause error, permanent bool) error {
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
	if _, err := q.Exec(ctx, `UPDATE jobs SET status = ?, run_at = ?, attempts = ?, locked_until = NULL, last_error = ?, finished_at = ? WHERE account_id = ? AND id = ?`,
		status, db.Micros(runAt), j.Attempts, msg, finishedAt(status, now), j.AccountID, j.ID); err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `INSERT INTO job_attempts (account_id, job_id, attempt, at, ok, error) VALUES (?, ?, ?, ?, FALSE, ?)`, j.AccountID, j.ID, j.Attempts, db.Micros(now), msg); err != nil {
		return err
	}
	if status == "failed" {
		// A message whose delivery gave up is failed, with the last error.
		if _, err := q.Exec(ctx, `UPDATE outbox SET status = 'failed', error = COALESCE(error, ?)
			WHERE account_id = ? AND id = (SELECT outbox_id FROM jobs WHERE account_id = ? AND id = ?) AND status = 'pending'`, msg, j.AccountID, j.AccountID, j.ID); err != nil {
			return err
		}
	}
	return nil
}

// postpone puts a job back to run at until without counting the attempt
// (quiet hours): nothing was tried.
func (w *Worker) postpone(ctx context.Context, q db.Querier, j Job, until time.Time) error {
	_, err := q.Exec(ctx, `UPDATE jobs SET status = 'pending', run_at = ?, locked_until = NULL, attempts = attempts - 1 WHERE account_id = ? AND id = ?`,
		db.Micros(until), j.AccountID, j.ID)
	return err
}

// postponeMany is postpone for many jobs, one statement per distinct time
// (quiet hours end at the same moment for every message of an account, so
// a round deferred in quiet hours is one statement, not one per job).
func (w *Worker) postponeMany(ctx context.Context, q db.Querier, jobs []Job, until []time.Time) error {
	at := map[time.Time][]Job{}
	var order []time.Time
	for i, j := range jobs {
		if _, ok := at[until[i]]; !ok {
			order = append(order, until[i])
		}
		at[until[i]] = append(at[until[i]], j)
	}
	for _, t := range order {
		in, args := inJobs(at[t])
		if _, err := q.Exec(ctx, `UPDATE jobs SET status = 'pending', run_at = ?, locked_until = NULL, attempts = attempts - 1 WHERE `+in,
			append([]any{db.Micros(t)}, args...)...); err != nil {
			return err
		}
	}
	return nil
}

func finishedAt(status string, now time.Time) any {
	if status == "failed" {
		return db.Micros(now)
	}
	return nil
}
