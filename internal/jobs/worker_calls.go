package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// callOutcome is what became of one job's Call.
type callOutcome struct {
	ran      bool // false: the job was another worker's by then
	err      error
	deferred *Deferred
}

// runCalls runs the Calls of leased jobs, Concurrency at a time, then
// completes them in one transaction. Before each Call starts, at least half
// of the lease must be left; when less is left, the leases of the batch's
// jobs still this worker's are renewed first, and a job another worker
// took over meanwhile is left to it (it would otherwise be sent twice).
// A Call's Commit checks ownership again right before its effect starts.
func (w *Worker) runCalls(ctx context.Context, accounts accountCache, jobs []Job, leased time.Time) {
	conc := w.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	records := w.newRecorder(ctx)
	callCtx := w.startRound(ctx, jobs)
	outcomes := make([]callOutcome, len(jobs))
	ours := map[int64]bool{}
	for _, j := range jobs {
		ours[j.ID] = true
	}
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	// The Calls run on at most conc goroutines that live for the round, not
	// on one goroutine per job: a Call's stack grows to what a send needs
	// (the provider's client, the log line), and a new goroutine for every
	// job grew it anew, a twelfth of the server's CPU while draining a
	// backlog.
	calls := make(chan func())
	runners := 0
	for i, j := range jobs {
		sem <- struct{}{}
		if now := w.Clock.Now(); now.After(leased.Add(-w.lease() / 2)) {
			until := now.Add(w.lease())
			renewed, err := w.renew(ctx, jobs, until)
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
		if runners < conc {
			runners++
			go func() {
				for call := range calls {
					call()
				}
			}()
		}
		calls <- func() {
			defer wg.Done()
			defer func() { <-sem }()
			out := &outcomes[i]
			out.ran = true
			if !ok {
				out.err = fmt.Errorf("account %d: %w", j.AccountID, sql.ErrNoRows)
				return
			}
			rec, err := w.Calls[j.Kind](callCtx, w.DB, records.commit(j), acct, j)
			if rec != nil {
				records.add(j, rec)
			}
			switch {
			case errors.Is(err, ErrNotOurs):
				out.ran = false // another worker took the job over: it completes it
			case !errors.As(err, &out.deferred):
				out.err = err
			}
		}
	}
	close(calls)
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
		mine, err := w.stillOurs(ctx, tx, all)
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
		var later []Job
		var laterUntil []time.Time
		for i, j := range deferred {
			if mine[j.ID] {
				later, laterUntil = append(later, j), append(laterUntil, until[i])
			}
		}
		if err := w.postponeMany(ctx, tx, later, laterUntil); err != nil {
			return err
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
		mine, lerr := w.stillOurs(ctx, tx, all)
		if lerr != nil {
			return lerr // the jobs are taken over (lease, heartbeat) and retried
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
				w.postpone(ctx, tx, j, until[i])
			}
		}
		return nil
	})
}
