package db

import (
	"context"
	"log/slog"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
)

// hotTables are the tables that grow by thousands of rows a minute under
// ingest and import, or under the messages their automations send (a
// conversation and a message each), and whose lookups go wrong without
// statistics.
var hotTables = []string{"clients", "cards", "card_events", "client_tags", "jobs", "outbox", "waitlist_entries",
	"conversations", "messages"}

// AnalyzeEvery bounds how often KeepStatistics looks for grown tables.
var AnalyzeEvery = clock.Range{Min: time.Second, Max: time.Hour}

// SlowQuery bounds Options.SlowQuery (--slow-query, FRONTDESK_SLOW_QUERY):
// 0 (never log) to an hour.
var SlowQuery = clock.Range{Min: 0, Max: time.Hour}

// KeepStatistics runs VACUUM (ANALYZE) on PostgreSQL for each hot table that has
// grown by half or more since it was last analyzed (and by at least 1,000
// rows), checking every interval until ctx ends. Autovacuum does the same
// only after its one-minute nap and a 10 % change: a young database that
// takes a 20,000-row import in its first minute is planned as if its tables
// were empty, and a 100-value phone lookup becomes a sequential scan (40-60
// ms instead of under 1; the mixed load ran at a third of its rate until
// the first ANALYZE). Growth by half bounds the work: a table is analyzed
// about log1.5 of its size times over its life. A hot table without any
// statistics is analyzed as soon as this process has committed
// FirstAnalyzeRows rows into it (AnalyzeFirst). SQLite needs nothing: its
// planner never uses statistics here (Frontdesk never runs ANALYZE on it).
//
// AnalyzeEvery bounds interval (serve --analyze-every): from a second to an
// hour.
//
// On Citus the rows live in the workers' shards, which the workers'
// autovacuum analyzes; the coordinator's tables stay empty and there is
// nothing to do here (docs/scale-out.md).
func (db *DB) KeepStatistics(ctx context.Context, interval time.Duration, log *slog.Logger) {
	if db.dialect.Engine != Postgres || db.dialect.Citus {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	warn := func(err error) {
		if err != nil && ctx.Err() == nil && log != nil {
			log.Warn("keeping table statistics", "err", err)
		}
	}
	wake := db.firstStats().wake
	warn(db.AnalyzeFirst(ctx))
	for {
		warn(db.AnalyzeGrown(ctx))
	wait:
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				break wait
			case <-wake:
				warn(db.AnalyzeFirst(ctx))
			}
		}
	}
}

// AnalyzeGrown is one round of KeepStatistics; it returns after vacuuming
// and analyzing the tables that needed it.
func (db *DB) AnalyzeGrown(ctx context.Context) error {
	if db.dialect.Engine != Postgres || db.dialect.Citus {
		return nil
	}
	in, args := In(hotTables)
	rows, err := db.Query(ctx, `SELECT relname FROM pg_stat_user_tables
		WHERE schemaname = current_schema() AND relname IN `+in+`
		  AND n_mod_since_analyze >= 1000 AND n_mod_since_analyze >= n_live_tup / 2`, args...)
	if err != nil {
		return err
	}
	grown, err := Column[string](rows)
	if err != nil {
		return err
	}
	for _, name := range grown {
		// VACUUM too: it marks the new pages all-visible, and only then
		// can a count be an index-only scan. Under the mixed load the stage
		// counts of GET …/stages read 120,000 cards' heap rows (52 ms)
		// before and none (9 ms) after. SKIP_LOCKED: a table autovacuum is
		// working on is left to it.
		if _, err := db.sql.ExecContext(ctx, "VACUUM (ANALYZE, SKIP_LOCKED) "+name); err != nil {
			return err
		}
	}
	return nil
}
