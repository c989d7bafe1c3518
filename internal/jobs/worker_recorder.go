package jobs

import (
	"context"
	"sync"

	"github.com/frontdesk/frontdesk/internal/db"
)

// recorder commits the Records of concurrent Calls: one transaction at a
// time takes every Record queued so far (group commit), so on SQLite a batch
// of sends costs a few write turns rather than one or two each, and each
// Record is committed as soon as a turn comes. A Record that fails fails
// alone. Each job has at most one Record queued or committing at a time (a
// Call's Commit, then its outcome), so transactions running side by side
// never touch the same rows.
//
// Two kinds of Record share the transactions: a Call's outcome (add), and
// what a Call writes before its effect starts (commit), whose Call waits
// for it. The latter run only while their job is still this worker's,
// checked for all of them with one locking read in the same transaction.
type recorder struct {
	w       *Worker
	mu      sync.Mutex
	queue   []queuedRecord
	errs    map[int64]error
	wake    chan struct{}
	stopped chan struct{}
	closing bool
}

type queuedRecord struct {
	job  int64
	acct int64 // the job's account
	rec  Record
	done chan error // a Commit waiting for the outcome; nil for add
}

func (w *Worker) newRecorder(ctx context.Context) *recorder {
	r := &recorder{w: w, errs: map[int64]error{}, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	go r.loop(ctx)
	return r
}

// add queues a Call's outcome; close reports whether it failed.
func (r *recorder) add(j Job, rec Record) {
	r.push(queuedRecord{job: j.ID, acct: j.AccountID, rec: rec})
}

// commit is the Commit of job's Call.
func (r *recorder) commit(j Job) Commit {
	return func(ctx context.Context, rec Record) error {
		done := make(chan error, 1)
		r.push(queuedRecord{job: j.ID, acct: j.AccountID, rec: rec, done: done})
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (r *recorder) push(q queuedRecord) {
	r.mu.Lock()
	r.queue = append(r.queue, q)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// close waits until every Record added is committed (or failed) and
// returns the failures of the added ones by job.
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

// recorderTransactions is how many group-commit transactions run at once.
// On PostgreSQL, where every commit waits for its WAL flush, a Call whose
// Commit comes in while one transaction is under way is taken by the next
// one at once instead of waiting for the first to end: in
// BenchmarkSendThroughWorker (relay) that was 275 rather than 240 messages
// a second through a 20 ms provider with one. Two take as many through
// that provider as four (331-336 against 331-333 with 64 sends under way)
// and group more marks per statement: a backlog drained with 7-9 % less
// CPU a job (docs/performance.md, "Sending a round of messages"). SQLite's
// writes take turns anyway.
var recorderTransactions = map[db.Engine]int{db.SQLite: 1, db.Postgres: 2}

func (r *recorder) loop(ctx context.Context) {
	defer close(r.stopped)
	turns := make(chan struct{}, max(1, recorderTransactions[r.w.DB.Engine()]))
	var running sync.WaitGroup
	for {
		turns <- struct{}{} // a transaction may start: it takes all queued so far
		r.mu.Lock()
		batch, closing := r.queue, r.closing
		r.queue = nil
		r.mu.Unlock()
		if len(batch) == 0 {
			<-turns
			if closing {
				running.Wait()
				return
			}
			<-r.wake
			continue
		}
		running.Add(1)
		go func() {
			defer running.Done()
			defer func() { <-turns }()
			failed := r.run(ctx, batch)
			for _, q := range batch {
				err := failed[q.job]
				if q.done != nil {
					q.done <- err
				} else if err != nil {
					r.mu.Lock()
					r.errs[q.job] = err
					r.mu.Unlock()
				}
			}
		}()
	}
}

// run commits batch: all together first, the marks of message sends in a
// statement per account and kind (worker_marks.go), or per account
// (worker_marks_together.go), when that is all, even without a transaction
// (marksAlone); only when that fails,
// again with a savepoint each, so that a Record that fails fails alone. It
// returns the failures by job (every job's, when the transaction itself
// failed).
func (r *recorder) run(ctx context.Context, batch []queuedRecord) map[int64]error {
	if failed, ok, err := r.w.marksAlone(ctx, batch); ok && err == nil {
		return failed
	}
	failed := map[int64]error{}
	// ours is the part of batch to write: the Records whose Call waits
	// (Commit) only while their job is still this worker's, checked for all
	// of them with one locking read; with together, the start marks' jobs
	// are checked by the marks' own statement (writeMarks).
	ours := func(tx *db.Tx, together bool) ([]queuedRecord, error) {
		clear(failed)
		checked := func(q queuedRecord) bool {
			_, start := q.rec.(startMark)
			return q.done != nil && !(together && start)
		}
		var guarded []Job
		for _, q := range batch {
			if checked(q) {
				guarded = append(guarded, Job{ID: q.job, AccountID: q.acct})
			}
		}
		mine, err := r.w.stillOurs(ctx, tx, guarded)
		if err != nil {
			return nil, err
		}
		todo := make([]queuedRecord, 0, len(batch))
		for _, q := range batch {
			if checked(q) && !mine[q.job] {
				failed[q.job] = ErrNotOurs
				continue
			}
			todo = append(todo, q)
		}
		return todo, nil
	}
	err := r.w.DB.Transact(ctx, func(tx *db.Tx) error {
		together := marksTogether(tx)
		todo, err := ours(tx, together)
		if err != nil {
			return err
		}
		return r.w.writeRecords(ctx, tx, todo, failed, together)
	})
	if err != nil {
		err = r.w.DB.Transact(ctx, func(tx *db.Tx) error {
			todo, err := ours(tx, false)
			if err != nil {
				return err
			}
			for _, q := range todo {
				err := savepoint(ctx, tx, func() error { return q.rec.Write(ctx, tx) })
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
	if err != nil {
		for _, q := range batch {
			failed[q.job] = err
		}
	}
	return failed
}
