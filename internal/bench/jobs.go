package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// JobStats is what the server's job queue did during a load run: the jobs
// ingest and the other writes created, the jobs the worker completed, and
// what was left to do at the end.
type JobStats struct {
	Created, Completed                   int64
	CreatedPerSecond, CompletedPerSecond float64
	// Backlog is the jobs due at the end of the run and not done (pending or
	// running); BacklogBefore the same at its start. Jobs scheduled for
	// later (reminders, sequence steps) are not backlog.
	Backlog, BacklogBefore int64
}

// BacklogShare is the backlog at the end as a share of the jobs created.
func (j *JobStats) BacklogShare() float64 {
	if j.Created == 0 {
		return 0
	}
	return float64(j.Backlog) / float64(j.Created)
}

// jobSnapshot is the job queue at one moment.
type jobSnapshot struct {
	at      time.Time
	maxID   int64 // ids grow: jobs above it were created later
	done    int64
	backlog int64
}

// snapshotJobs reads the queue of the server's database.
func snapshotJobs(ctx context.Context, dsn string, now time.Time) (jobSnapshot, error) {
	store, err := db.Open(ctx, dsn, db.Options{})
	if err != nil {
		return jobSnapshot{}, fmt.Errorf("the server's database (--db): %w", err)
	}
	defer store.Close()
	s := jobSnapshot{at: now}
	err = store.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0), COALESCE(SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status IN ('pending', 'running') AND run_at <= ? THEN 1 ELSE 0 END), 0) FROM jobs`,
		db.Micros(now)).Scan(&s.maxID, &s.done, &s.backlog)
	return s, err
}

// during compares the snapshot at the start of a run with the one at its
// end; the jobs completed are those done in between, whenever created.
func (s jobSnapshot) during(end jobSnapshot, elapsed time.Duration) *JobStats {
	j := &JobStats{BacklogBefore: s.backlog, Backlog: end.backlog, Created: end.maxID - s.maxID, Completed: end.done - s.done}
	if secs := elapsed.Seconds(); secs > 0 {
		j.CreatedPerSecond, j.CompletedPerSecond = float64(j.Created)/secs, float64(j.Completed)/secs
	}
	return j
}
