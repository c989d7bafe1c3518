package retention

// The daily run through the job worker: at every check (Scheduler.Tick,
// one of the worker's periodic tasks) each account with a policy whose
// next run is due is claimed by moving retention_next_run_at a day forward
// where it still holds the value read, so with several workers on one
// database one of them wins and the others skip it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Every is the time between an account's runs.
const Every = 24 * time.Hour

// State is an account's policy and what its runs did.
type State struct {
	Policy Policy
	// LastRun is the last real run (nil: none yet).
	LastRun *Report
	// NextRunAt is when the worker runs it next (zero: at its next check).
	NextRunAt time.Time
}

// Load reads the account's retention state.
func Load(ctx context.Context, q db.Querier, acct account.Account) (State, error) {
	var doc, last *string
	var next *int64
	if err := q.QueryRow(ctx, `SELECT retention, retention_last_run, retention_next_run_at FROM accounts WHERE id = ?`, acct.ID).
		Scan(&doc, &last, &next); err != nil {
		return State{}, fmt.Errorf("retention: %w", err)
	}
	p, err := parseDocument(doc)
	if err != nil {
		return State{}, err
	}
	st := State{Policy: p}
	if last != nil && *last != "" {
		var rep Report
		if json.Unmarshal([]byte(*last), &rep) == nil {
			st.LastRun = &rep
		}
	}
	if next != nil {
		st.NextRunAt = db.Time(*next)
	}
	return st, nil
}

// RunDue runs every account whose run is due at now and that this caller
// claims; it returns how many it ran. An account that fails does not stop
// the others.
func RunDue(ctx context.Context, store *db.DB, now time.Time) (int, error) {
	rows, err := store.Query(ctx, `SELECT id, COALESCE(retention_next_run_at, 0) FROM accounts
		WHERE retention IS NOT NULL AND COALESCE(retention_next_run_at, 0) <= ? ORDER BY id`, db.Micros(now))
	if err != nil {
		return 0, fmt.Errorf("retention: due accounts: %w", err)
	}
	type due struct{ id, next int64 }
	var list []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.id, &d.next); err != nil {
			rows.Close()
			return 0, err
		}
		list = append(list, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	ran := 0
	var errs []error
	for _, d := range list {
		res, err := store.Exec(ctx, `UPDATE accounts SET retention_next_run_at = ? WHERE id = ? AND COALESCE(retention_next_run_at, 0) = ?`,
			db.Micros(now.Add(Every)), d.id, d.next)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue // another worker took this run
		}
		acct, err := account.ByID(ctx, store, d.id)
		if err == nil {
			_, err = Run(ctx, store, acct, now, false)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("account %d: %w", d.id, err))
			continue
		}
		ran++
	}
	return ran, errors.Join(errs...)
}

// Scheduler is the job worker's periodic task: it looks for due accounts
// at most once per Check (default a minute), not at every poll, and runs
// them in a goroutine of their own, one round at a time per process, so a
// long first run (a backlog of years) never holds up the jobs the worker
// polls for meanwhile. Stop ends a round between two batches: the rest of
// that account's day is left undone; the batches it committed stay.
type Scheduler struct {
	DB    *db.DB
	Check time.Duration
	// Log receives a round's failures (nil: dropped).
	Log *slog.Logger

	mu      sync.Mutex
	next    time.Time
	running bool
	stopped bool
	cancel  context.CancelFunc
	rounds  sync.WaitGroup
}

// Tick starts a round when a check is due at now and no round is running.
func (s *Scheduler) Tick(ctx context.Context, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Before(s.next) || s.running || s.stopped {
		return nil
	}
	check := s.Check
	if check <= 0 {
		check = time.Minute
	}
	s.next, s.running = now.Add(check), true
	round, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.rounds.Add(1)
	go func() {
		defer s.rounds.Done()
		defer cancel()
		_, err := RunDue(round, s.DB, now)
		if err != nil && round.Err() == nil && s.Log != nil {
			s.Log.Error("retention: run failed", "err", err)
		}
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}()
	return nil
}

// Wait returns when the round under way, if any, has ended.
func (s *Scheduler) Wait() { s.rounds.Wait() }

// Stop ends the round under way, if any, at its next batch, waits for it,
// and starts no other (the worker is shutting down).
func (s *Scheduler) Stop() {
	s.mu.Lock()
	s.stopped = true
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	s.rounds.Wait()
}
