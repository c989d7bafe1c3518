package jobs

import (
	"context"
	"errors"
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
//
// What must be in the database before the effect starts (that a message is
// being handed to its provider) the Call writes with commit, which shares
// the same group-commit transactions and returns once the write is durable.
type Call func(ctx context.Context, store *db.DB, commit Commit, acct account.Account, job Job) (record Record, err error)

// Record is a write a Call asks for (RecordFunc for any write). The
// recorder commits it in a group-commit transaction; the marks of a
// message's send attempt are written together with the others of their
// kind in one statement per account (worker_marks.go).
type Record interface {
	Write(ctx context.Context, tx *db.Tx) error
}

// RecordFunc is a Record written by a function.
type RecordFunc func(ctx context.Context, q db.Querier) error

// Write implements Record.
func (f RecordFunc) Write(ctx context.Context, tx *db.Tx) error { return f(ctx, tx) }

// Commit commits rec in the worker's next group-commit transaction, only
// while the Call's job is still this worker's (ErrNotOurs otherwise: another
// instance took it over), and returns when it is committed or failed.
type Commit func(ctx context.Context, rec Record) error

// ErrNotOurs is Commit's answer when the job is no longer this worker's, or
// a Record's when what it was to change has moved on (the message is no
// longer pending): the Call must stop without its effect.
var ErrNotOurs = errors.New("jobs: the job is no longer this worker's")

// Worker claims and runs due jobs.
type Worker struct {
	DB       *db.DB
	Clock    clock.Clock
	Log      *slog.Logger
	Handlers map[string]Handler
	// BatchHandlers are the set-based form of some Handlers (optional).
	BatchHandlers map[string]BatchHandler
	Calls         map[string]Call
	// Concurrency is how many Calls run at once (default
	// DefaultConcurrency); the Calls bound themselves per receiver with
	// Slots (Effects.WebhookSlots, the Sender's).
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
	// Instance names this worker in worker_instances and on the jobs it
	// claims (default: random, fixed at first use). Run beats every
	// Heartbeat (default 3 s); the jobs of an instance whose beat is older
	// than Stale (default 15 s) are taken over at once, without waiting for
	// their lease (worker_instances.go).
	Instance  string
	Heartbeat time.Duration
	Stale     time.Duration

	instanceOnce sync.Once
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

// Run polls until ctx ends; a job under way finishes first. While it runs,
// the worker's instance beats in worker_instances; when it returns, the
// instance retires.
func (w *Worker) Run(ctx context.Context) error {
	poll := w.Poll
	if poll <= 0 {
		poll = time.Second
	}
	stopBeating := w.startHeartbeat(context.WithoutCancel(ctx))
	defer stopBeating()
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
// One Worker runs one round at a time (a job it claimed is its own until
// the round ends: worker_claim.go).
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
		leased = now.Add(w.lease())
		jobs, err := w.claim(ctx, tx, now, leased)
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
