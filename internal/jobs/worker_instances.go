package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
)

// A worker's instance is its name in worker_instances, where Run beats
// every Heartbeat. Another worker that finds an instance's beat older than
// Stale takes over the jobs it claimed (claim), so a crash parks its batch
// for seconds, not for the 5-minute lease. A live instance whose beats were
// held up long enough to look dead loses nothing to a double run: a job
// taken over is no longer its own (worker_claim.go), and before a Call's
// effect starts its Commit checks that, under the row's lock
// (worker_recorder.go). Clocks of the instances' hosts must agree to well
// within Stale (NTP does).

// Defaults of Worker.Heartbeat and Worker.Stale (docs/api-notes.md).
const (
	DefaultHeartbeat = 3 * time.Second
	DefaultStale     = 15 * time.Second
)

// Ranges of the worker's liveness settings (--worker-heartbeat,
// --worker-stale): a beat from 100 ms to a minute, a stale window from a
// second to ten minutes (and at least two beats, which serve checks).
var (
	HeartbeatEvery = clock.Range{Min: 100 * time.Millisecond, Max: time.Minute}
	StaleAfter     = clock.Range{Min: time.Second, Max: 10 * time.Minute}
)

// instance returns this worker's instance id, choosing a random one at
// first use when none was given.
func (w *Worker) instance() string {
	w.instanceOnce.Do(func() {
		if w.Instance == "" {
			var b [8]byte
			rand.Read(b[:])
			w.Instance = hex.EncodeToString(b[:])
		}
	})
	return w.Instance
}

func (w *Worker) heartbeat() time.Duration {
	if w.Heartbeat > 0 {
		return w.Heartbeat
	}
	return DefaultHeartbeat
}

func (w *Worker) stale() time.Duration {
	if w.Stale > 0 {
		return w.Stale
	}
	return DefaultStale
}

// Beat records that this worker's instance is alive now (by its Clock), and
// forgets instances dead for an hour that no running job names any more.
// Run beats on its own; tests call it to drive a fake clock.
func (w *Worker) Beat(ctx context.Context) error {
	now := db.Micros(w.Clock.Now())
	host, _ := os.Hostname()
	return w.DB.Transact(ctx, func(tx *db.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO worker_instances (id, host, pid, started_at, beat_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET beat_at = excluded.beat_at`, w.instance(), host, os.Getpid(), now, now); err != nil {
			return err
		}
		busy, err := claimers(ctx, tx)
		if err != nil {
			return err
		}
		in, args := db.In(append(busy, ""))
		_, err = tx.Exec(ctx, `DELETE FROM worker_instances WHERE beat_at < ? AND id NOT IN `+in,
			append([]any{now - time.Hour.Microseconds()}, args...)...)
		return err
	})
}

// claimers lists the instances named by running jobs. It is its own
// statement: on Citus the jobs are spread over the workers while
// worker_instances stays on the coordinator, and one statement cannot
// join the two.
func claimers(ctx context.Context, q db.Querier) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT claimed_by FROM jobs WHERE status = 'running' AND claimed_by IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// startHeartbeat beats now and then every Heartbeat until the returned stop
// is called; stop waits for the last beat and retires the instance.
func (w *Worker) startHeartbeat(ctx context.Context) (stop func()) {
	beat := func() {
		if err := w.Beat(ctx); err != nil && w.Log != nil {
			w.Log.Error("jobs: heartbeat failed", "instance", w.instance(), "err", err)
		}
	}
	beat()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(w.heartbeat())
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				beat()
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		if err := w.retire(ctx); err != nil && w.Log != nil {
			w.Log.Error("jobs: retiring the worker instance failed", "instance", w.instance(), "err", err)
		}
	}
}

// retire removes a stopping instance. Its claimed jobs are all finished by
// then, unless their completion failed: those stay claimed, and the
// instance stays on record as long dead, so other workers take them over at
// once.
func (w *Worker) retire(ctx context.Context) error {
	return w.DB.Transact(ctx, func(tx *db.Tx) error {
		var running int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE status = 'running' AND claimed_by = ?`, w.instance()).Scan(&running); err != nil {
			return err
		}
		if running == 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM worker_instances WHERE id = ?`, w.instance()); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `UPDATE worker_instances SET beat_at = 0 WHERE id = ?`, w.instance())
		return err
	})
}

// deadInstances lists the instances whose beat is older than the stale
// window at now. Instances that never beat (a worker driven by RunOnce
// alone) are not listed: their jobs wait for the lease.
func (w *Worker) deadInstances(ctx context.Context, q db.Querier, now time.Time) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT id FROM worker_instances WHERE beat_at < ?`, db.Micros(now.Add(-w.stale())))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
