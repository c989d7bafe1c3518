package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Handler runs one job inside tx; the job is marked done in the same
// transaction, so its writes and its completion commit together. Effects
// outside the database (an HTTP call) happen at least once.
type Handler func(ctx context.Context, tx *db.Tx, acct account.Account, job Job) error

// BatchHandler runs the database part of several claimed jobs of one kind
// and one account at once, inside tx, with a few set-based statements
// instead of a few statements per job. It is all or nothing: when it fails,
// the worker rolls its writes back and runs the same jobs one by one with
// the kind's Handler, so a failing job still fails alone.
type BatchHandler func(ctx context.Context, tx *db.Tx, acct account.Account, jobs []Job) error

// Call is a job's effect outside the database (an HTTP request, a message
// channel). It runs before the job's transaction and outside any, so a slow
// receiver never holds a database lock (on SQLite, the whole database's
// write lock); several Calls run at once. What the effect's outcome must
// leave in the database at once (a provider accepted the message: never
// ask it again) the Call returns as record, and the worker commits it as
// soon as it can, together with the records of other Calls that finished
// meanwhile, before the Handler of the same kind completes the job in a
// transaction. record may be nil; it is committed even when err is not.
type Call func(ctx context.Context, store *db.DB, acct account.Account, job Job) (record Record, err error)

// Record is a write a Call asks for; it runs in a transaction of its own
// savepoint.
type Record func(ctx context.Context, q db.Querier) error

// Worker claims and runs due jobs.
type Worker struct {
	DB       *db.DB
	Clock    clock.Clock
	Log      *slog.Logger
	Handlers map[string]Handler
	// BatchHandlers are the set-based form of some Handlers (optional).
	BatchHandlers map[string]BatchHandler
	Calls         map[string]Call
	// Concurrency is how many Calls run at once (default 8).
	Concurrency int
	// Poll is the pause between empty polls (default 1 s).
	Poll time.Duration
	// Lease is how long a claimed job is owned before another worker may
	// take it over (default 5 min).
	Lease time.Duration
	// Backoff is the delay before attempt n+1 (default 2^n seconds, ≤ 1 h).
	Backoff func(attempt int) time.Duration
	// Batch is how many jobs one poll claims (default 1000). Larger batches
	// spread the fixed cost of a round (on SQLite, three turns for the write
	// lock) over more jobs; in the mixed load run 200 left 40 % of the jobs
	// behind, 1000 under 1 %.
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

// PollEvery bounds the pause between empty polls (--poll): from 10 ms to
// a minute (a job due meanwhile waits that long).
var PollEvery = clock.Range{Min: 10 * time.Millisecond, Max: time.Minute}

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

// RunOnce claims due jobs and runs them; it returns how many it claimed.
//
// One write transaction claims the batch and, in it, runs and completes the
// jobs that are only database work (on-arrival automations): they are never
// seen running, and on SQLite, where every write transaction waits its turn
// behind the ingest batches, the whole batch costs one turn. The jobs with
// an external effect are leased in the same transaction; their Calls run
// concurrently afterwards (Concurrency at a time), and one more transaction
// completes them.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	for _, task := range w.Periodic {
		if err := task(ctx, w.Clock.Now()); err != nil && w.Log != nil {
			w.Log.Error("jobs: periodic task failed", "err", err)
		}
	}
	var (
		claimed int
		calls   []Job
		leased  time.Time
	)
	accounts := accountCache{}
	err := w.DB.Transact(ctx, func(tx *db.Tx) error {
		clear(accounts)
		now := w.Clock.Now()
		jobs, err := w.claim(ctx, tx, now)
		if err != nil {
			return err
		}
		claimed, calls = len(jobs), calls[:0]
		var local []Job
		for _, j := range jobs {
			if _, ok := w.Calls[j.Kind]; ok {
				calls = append(calls, j)
			} else {
				local = append(local, j)
			}
		}
		leased = now.Add(w.lease())
		if err := w.lease_(ctx, tx, calls, leased); err != nil {
			return err
		}
		// The Calls run without a transaction: their accounts are loaded
		// here, once each.
		for _, j := range calls {
			if _, err := accounts.get(ctx, tx, j.AccountID); err != nil && !db.IsNoRows(err) {
				return err
			}
		}
		return w.complete(ctx, tx, accounts, local, nil)
	})
	if err != nil {
		return 0, err
	}
	if len(calls) > 0 {
		w.runCalls(ctx, accounts, calls, leased)
	}
	return claimed, nil
}

// claim selects up to Batch due jobs in tx (FOR UPDATE SKIP LOCKED on
// PostgreSQL, so concurrent workers take disjoint batches) and counts their
// attempt.
func (w *Worker) claim(ctx context.Context, tx *db.Tx, now time.Time) ([]Job, error) {
	batch := w.Batch
	if batch <= 0 {
		batch = 1000
	}
	var out []Job
	// Two queries rather than one with OR: each walks the (status, run_at)
	// index in order and stops at the limit, where the OR form sorted every
	// due job first (half a second per claim with 200,000 jobs queued, so
	// the worker fell further behind the more it had to do).
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
			return nil, err
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
				return nil, err
			}
			j.Payload, j.SourceType, j.SourceID = []byte(payload), src.String, sourceID.Int64
			j.Attempts++
			out = append(out, j)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(out))
	for i, j := range out {
		ids[i] = j.ID
	}
	in, args := db.In(ids)
	// Every claimed job counts an attempt; those completed in this same
	// transaction never show as running to anyone.
	_, err := tx.Exec(ctx, `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_until = NULL WHERE id IN `+in, args...)
	return out, err
}

// lease_ leases jobs until until. The lease doubles as the claim's token:
// a worker that takes over a job whose lease ran out writes a later one.
func (w *Worker) lease_(ctx context.Context, tx *db.Tx, jobs []Job, until time.Time) error {
	if len(jobs) == 0 {
		return nil
	}
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	in, args := db.In(ids)
	_, err := tx.Exec(ctx, `UPDATE jobs SET locked_until = ? WHERE id IN `+in, append([]any{db.Micros(until)}, args...)...)
	return err
}

// renew extends the lease of jobs still leased until `was` by this worker
// and returns those it renewed: a job missing from the answer is no longer
// this worker's (its lease ran out and another worker claimed it).
func (w *Worker) renew(ctx context.Context, jobs []Job, was, until time.Time) (map[int64]bool, error) {
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	ours := map[int64]bool{}
	err := w.DB.Transact(ctx, func(tx *db.Tx) error {
		clear(ours)
		in, args := db.In(ids)
		rows, err := tx.Query(ctx, `UPDATE jobs SET locked_until = ? WHERE id IN `+in+` AND status = 'running' AND locked_until = ? RETURNING id`,
			append(append([]any{db.Micros(until)}, args...), db.Micros(was))...)
		if err != nil {
			return err
		}
		renewed, err := db.Int64s(rows)
		for _, id := range renewed {
			ours[id] = true
		}
		return err
	})
	return ours, err
}

// stillLeased returns which of jobs are still leased by this worker until
// until, locking them on PostgreSQL.
func stillLeased(ctx context.Context, tx *db.Tx, jobs []Job, until time.Time) (map[int64]bool, error) {
	mine := map[int64]bool{}
	if len(jobs) == 0 {
		return mine, nil
	}
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	in, args := db.In(ids)
	rows, err := tx.Query(ctx, `SELECT id FROM jobs WHERE id IN `+in+` AND status = 'running' AND locked_until = ?`+tx.Dialect().ForUpdate(),
		append(args, db.Micros(until))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		mine[id] = true
	}
	return mine, rows.Err()
}

// callOutcome is what became of one job's Call.
type callOutcome struct {
	ran      bool // false: the job was another worker's by then
	err      error
	deferred *Deferred
}

// runCalls runs the Calls of leased jobs, Concurrency at a time, then
// completes them in one transaction. Before each Call starts, the job's
// lease must still be this worker's with at least half of it left; when
// less is left, the leases of the jobs not started yet are renewed first
// and a job another worker took over meanwhile is left to it (it would
// otherwise be sent twice).
func (w *Worker) runCalls(ctx context.Context, accounts accountCache, jobs []Job, leased time.Time) {
	conc := w.Concurrency
	if conc <= 0 {
		conc = 8
	}
	records := newRecorder(ctx, w.DB)
	outcomes := make([]callOutcome, len(jobs))
	ours := map[int64]bool{}
	for _, j := range jobs {
		ours[j.ID] = true
	}
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	for i, j := range jobs {
		sem <- struct{}{}
		if now := w.Clock.Now(); now.After(leased.Add(-w.lease() / 2)) {
			until := now.Add(w.lease())
			renewed, err := w.renew(ctx, jobs[i:], leased, until)
			if err != nil {
				// Nothing known about the rest: leave them to their lease
				// (this worker's, or the next worker's once it runs out).
				if w.Log != nil {
					w.Log.Error("jobs: renewing leases failed", "err", err)
				}
				<-sem
				break
			}
			ours, leased = renewed, until
		}
		if !ours[j.ID] {
			<-sem
			continue
		}
		acct, ok := accounts[j.AccountID]
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out := &outcomes[i]
			out.ran = true
			if !ok {
				out.err = fmt.Errorf("account %d: %w", j.AccountID, sql.ErrNoRows)
				return
			}
			rec, err := w.Calls[j.Kind](ctx, w.DB, acct, j)
			if rec != nil {
				records.add(j.ID, rec)
			}
			if !errors.As(err, &out.deferred) {
				out.err = err
			}
		}()
	}
	wg.Wait()
	recordErrs := records.close()

	var local []Job
	var failed []failure
	var deferred []Job
	var until []time.Time
	for i, j := range jobs {
		o := outcomes[i]
		var perm *permanentError
		switch {
		case !o.ran:
		case o.err != nil:
			failed = append(failed, failure{j, o.err, errors.As(o.err, &perm)})
		case recordErrs[j.ID] != nil:
			failed = append(failed, failure{j, recordErrs[j.ID], false})
		case o.deferred != nil:
			deferred, until = append(deferred, j), append(until, o.deferred.Until)
		default:
			local = append(local, j)
		}
	}
	if len(local)+len(failed)+len(deferred) == 0 {
		return
	}
	err := w.DB.Transact(ctx, func(tx *db.Tx) error {
		// A Call that outlasted its lease may find its job taken over and
		// completed by another worker: that worker completes it, once.
		all := append(append([]Job{}, local...), deferred...)
		for _, f := range failed {
			all = append(all, f.job)
		}
		mine, err := stillLeased(ctx, tx, all, leased)
		if err != nil {
			return err
		}
		var ours []Job
		for _, j := range local {
			if mine[j.ID] {
				ours = append(ours, j)
			}
		}
		var oursFailed []failure
		for _, f := range failed {
			if mine[f.job.ID] {
				oursFailed = append(oursFailed, f)
			}
		}
		for i, j := range deferred {
			if !mine[j.ID] {
				continue
			}
			if err := w.defer_(ctx, tx, j, until[i]); err != nil {
				return err
			}
		}
		return w.complete(ctx, tx, accounts, ours, oursFailed)
	})
	if err == nil {
		return
	}
	// Nothing of the completion was written: every job is retried (a sent
	// message's record was committed before, so it is not sent again).
	w.DB.Transact(ctx, func(tx *db.Tx) error {
		all := append(append([]Job{}, local...), deferred...)
		for _, f := range failed {
			all = append(all, f.job)
		}
		mine, lerr := stillLeased(ctx, tx, all, leased)
		if lerr != nil {
			return lerr // the leases run out and the jobs are retried
		}
		for _, j := range local {
			if mine[j.ID] {
				w.fail(ctx, tx, j, err, false)
			}
		}
		for _, f := range failed {
			if mine[f.job.ID] {
				w.fail(ctx, tx, f.job, f.err, f.permanent)
			}
		}
		for i, j := range deferred {
			if mine[j.ID] {
				w.defer_(ctx, tx, j, until[i])
			}
		}
		return nil
	})
}

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
		ids := make([]int64, len(done))
		attempts := make([][]any, len(done))
		for i, j := range done {
			ids[i] = j.ID
			attempts[i] = []any{j.ID, j.Attempts, now, true}
		}
		in, args := db.In(ids)
		if _, err := tx.Exec(ctx, `UPDATE jobs SET status = 'done', finished_at = ?, locked_until = NULL, last_error = NULL WHERE id IN `+in,
			append([]any{now}, args...)...); err != nil {
			return err
		}
		if err := db.InsertMany(ctx, tx, `INSERT INTO job_attempts (job_id, attempt, at, ok)`, attempts, ""); err != nil {
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
	if _, err := q.Exec(ctx, `UPDATE jobs SET status = ?, run_at = ?, locked_until = NULL, last_error = ?, finished_at = ? WHERE id = ?`,
		status, db.Micros(runAt), msg, finishedAt(status, now), j.ID); err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `INSERT INTO job_attempts (job_id, attempt, at, ok, error) VALUES (?, ?, ?, FALSE, ?)`, j.ID, j.Attempts, db.Micros(now), msg); err != nil {
		return err
	}
	if status == "failed" {
		// A message whose delivery gave up is failed, with the last error.
		if _, err := q.Exec(ctx, `UPDATE outbox SET status = 'failed', error = COALESCE(error, ?)
			WHERE id = (SELECT outbox_id FROM jobs WHERE id = ?) AND status = 'pending'`, msg, j.ID); err != nil {
			return err
		}
	}
	return nil
}

// defer_ puts a job back to run at until without counting the attempt
// (quiet hours): nothing was tried.
func (w *Worker) defer_(ctx context.Context, q db.Querier, j Job, until time.Time) error {
	_, err := q.Exec(ctx, `UPDATE jobs SET status = 'pending', run_at = ?, locked_until = NULL, attempts = attempts - 1 WHERE id = ?`,
		db.Micros(until), j.ID)
	return err
}

func finishedAt(status string, now time.Time) any {
	if status == "failed" {
		return db.Micros(now)
	}
	return nil
}

// recorder commits the Records of concurrent Calls: one transaction at a
// time takes every Record queued so far (group commit), so on SQLite a batch
// of sends costs a few write turns rather than one each, and each Record is
// committed as soon as a turn comes. A Record that fails fails alone.
type recorder struct {
	mu      sync.Mutex
	queue   []queuedRecord
	errs    map[int64]error
	wake    chan struct{}
	stopped chan struct{}
	closing bool
}

type queuedRecord struct {
	job int64
	rec Record
}

func newRecorder(ctx context.Context, store *db.DB) *recorder {
	r := &recorder{errs: map[int64]error{}, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	go r.loop(ctx, store)
	return r
}

func (r *recorder) add(job int64, rec Record) {
	r.mu.Lock()
	r.queue = append(r.queue, queuedRecord{job, rec})
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// close waits until every Record added is committed (or failed) and
// returns the failures by job.
func (r *recorder) close() map[int64]error {
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	<-r.stopped
	return r.errs
}

func (r *recorder) loop(ctx context.Context, store *db.DB) {
	defer close(r.stopped)
	for {
		r.mu.Lock()
		batch, closing := r.queue, r.closing
		r.queue = nil
		r.mu.Unlock()
		if len(batch) == 0 {
			if closing {
				return
			}
			<-r.wake
			continue
		}
		// All together first; only when one fails, again with a savepoint
		// each, so that it fails alone.
		failed := map[int64]error{}
		err := store.Transact(ctx, func(tx *db.Tx) error {
			for _, q := range batch {
				if err := q.rec(ctx, tx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			err = store.Transact(ctx, func(tx *db.Tx) error {
				clear(failed)
				for _, q := range batch {
					err := savepoint(ctx, tx, func() error { return q.rec(ctx, tx) })
					if isTxBroken(err) {
						return err
					}
					if err != nil {
						failed[q.job] = err
					}
				}
				return nil
			})
		}
		for _, q := range batch {
			if err != nil {
				r.errs[q.job] = err
			} else if failed[q.job] != nil {
				r.errs[q.job] = failed[q.job]
			}
		}
	}
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
