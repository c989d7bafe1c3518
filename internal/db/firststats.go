package db

import (
	"context"
	"slices"
	"sync"
)

// FirstAnalyzeRows is how many rows this process commits into a hot table
// that has no statistics before the statistics keeper analyzes it, right
// away rather than at its next round (docs/performance.md, "A young
// database's first batches").
//
// Without statistics PostgreSQL 15 takes the account's clients for a few
// rows and plans a 500-key lookup as a walk of all of them, comparing each
// with the 500 keys: 3 ms at 500 clients, 13 ms at 3,000, until the table
// is big enough for the planner to prefer the keys. One ANALYZE of a few
// hundred rows fixes the plan for good: the statistics say every e-mail
// and phone is distinct, whatever the table's size later.
const FirstAnalyzeRows = 500

// firstStats is what the keeper and the bulk inserts of one handle share.
type firstStats struct {
	mu      sync.Mutex
	known   map[string]bool  // hot tables seen with statistics
	pending map[string]int64 // rows committed here into the others
	wake    chan struct{}    // the keeper's: a table passed FirstAnalyzeRows
}

type firstStatsKey struct{}

func (db *DB) firstStats() *firstStats {
	return db.Local(firstStatsKey{}, func() any {
		return &firstStats{known: map[string]bool{}, pending: map[string]int64{}, wake: make(chan struct{}, 1)}
	}).(*firstStats)
}

// grew counts n rows inserted into table once q's transaction (if it is
// one) has committed, and wakes the keeper when a hot table without
// statistics has taken FirstAnalyzeRows of them.
func grew(q Querier, table string, n int64) {
	if n <= 0 || !slices.Contains(hotTables, table) {
		return
	}
	store := handleOf(q)
	if store == nil || store.dialect.Engine != Postgres || store.dialect.Citus {
		return
	}
	if tx, ok := q.(*Tx); ok {
		tx.AfterCommit(func() { grew(store, table, n) })
		return
	}
	s := store.firstStats()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known[table] {
		return
	}
	s.pending[table] += n
	if s.pending[table] >= FirstAnalyzeRows {
		select {
		case s.wake <- struct{}{}:
		default: // already woken
		}
	}
}

// AnalyzeFirst runs ANALYZE on each hot table that has no statistics yet
// and into which this process committed FirstAnalyzeRows rows or more. It
// first learns which hot tables have statistics (pg_stats), so a table
// analyzed by another process, autovacuum or the keeper's rounds is never
// analyzed again here.
func (db *DB) AnalyzeFirst(ctx context.Context) error {
	if db.dialect.Engine != Postgres || db.dialect.Citus {
		return nil
	}
	in, args := In(hotTables)
	rows, err := db.Query(ctx, `SELECT DISTINCT tablename FROM pg_stats WHERE schemaname = current_schema() AND tablename IN `+in, args...)
	if err != nil {
		return err
	}
	have, err := Column[string](rows)
	if err != nil {
		return err
	}
	s := db.firstStats()
	s.mu.Lock()
	for _, t := range have {
		s.known[t] = true
		delete(s.pending, t)
	}
	var due []string
	for t, n := range s.pending {
		if n >= FirstAnalyzeRows {
			due = append(due, t)
		}
	}
	s.mu.Unlock()
	slices.Sort(due)
	for _, t := range due {
		// ANALYZE alone: a few hundred rows, a few milliseconds. The
		// keeper's rounds vacuum the table later, as it grows.
		if _, err := db.sql.ExecContext(ctx, "ANALYZE "+t); err != nil {
			return err
		}
		s.mu.Lock()
		s.known[t] = true
		delete(s.pending, t)
		s.mu.Unlock()
	}
	return nil
}
