// Package jobs runs Frontdesk's internal effects — on-arrival automations,
// outbound messages, webhooks, booking notifications — as durable jobs.
//
// A job is a row of the jobs table, inserted in the same transaction as the
// write that causes it: a rolled-back or dry-run write leaves no job, and a
// committed one never loses its job. Workers claim due jobs (FOR UPDATE SKIP
// LOCKED on PostgreSQL, so several server instances never run one job at the
// same time; SQLite's write transactions are serialised already), run them
// at least once with exponential backoff, and a job whose worker died is
// reclaimed once its lease expires, so a job interrupted by a crash runs
// again after a restart.
//
// Why not River: River (riverqueue/river) is excellent on PostgreSQL, but
// its SQLite driver is in early testing, wants a pool of one connection and
// completes jobs one row at a time; it brings its own schema and migration
// runner next to ours; enqueueing in our transaction would need the raw
// *sql.Tx beside db.Tx; and its one-transaction-per-job model is what made
// our worker fall behind on SQLite. A small outbox on our own schema keeps
// one code path for both engines, enqueues through the same *db.Tx every
// area already uses, and completes a claimed batch with set-based
// statements (README, "Why not River").
package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Job kinds.
const (
	KindStageArrival    = "stage_arrival"
	KindDeliverMessage  = "deliver_message"
	KindWebhookDelivery = "webhook_delivery"
)

// Job is a claimed job.
type Job struct {
	ID          int64
	AccountID   int64
	Kind        string
	Payload     json.RawMessage
	Attempts    int
	MaxAttempts int
	SourceType  string
	SourceID    int64
}

// New describes a job to enqueue.
type New struct {
	Kind       string
	Payload    any
	RunAt      time.Time
	SourceType string // ingest, add, booking, waitlist
	SourceID   int64
	OutboxID   int64 // the outbox message a delivery job sends
}

// Enqueue adds jobs in tx with one statement; they become visible to workers
// when tx commits.
func Enqueue(ctx context.Context, tx *db.Tx, acct account.Account, now time.Time, jobs ...New) error {
	rows := make([][]any, 0, len(jobs))
	for _, j := range jobs {
		b, err := json.Marshal(j.Payload)
		if err != nil {
			return err
		}
		runAt := j.RunAt
		if runAt.IsZero() {
			runAt = now
		}
		rows = append(rows, []any{acct.ID, j.Kind, string(b), db.Micros(runAt), j.SourceType, j.SourceID, db.Null(j.OutboxID), db.Micros(now)})
	}
	if err := db.InsertMany(ctx, tx, `INSERT INTO jobs (account_id, kind, payload, run_at, source_type, source_id, outbox_id, created_at)`, rows, ""); err != nil {
		return fmt.Errorf("enqueue: %w", err)
	}
	return nil
}
