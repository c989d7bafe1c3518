package jobs

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// Who owns a job: the worker whose instance id is in claimed_by while the
// job is running. A worker runs one round at a time, so a job it claimed in
// a round can only be claimed again, by itself or another instance, once
// it is free (its lease ran out, or its claimer's heartbeat went stale);
// and whoever claims it writes their own id. "Still running and claimed by
// me" is therefore the whole ownership test: a worker that finds a job no
// longer its own leaves it to the one that took it over.

// claim selects up to Batch due jobs in tx (FOR UPDATE SKIP LOCKED on
// PostgreSQL, so concurrent workers take disjoint batches), counts their
// attempt, names this worker their claimer and leases them until until: the
// fallback that frees them should this worker stop without its instance row
// saying so (the jobs completed in the same transaction drop the lease
// there). Due are, in this order: the
// running jobs of instances known dead (worker_instances.go), running jobs
// whose lease ran out (a worker died before instances beat, or its beats
// stopped reaching the database), and pending jobs whose time has come.
func (w *Worker) claim(ctx context.Context, tx *db.Tx, now, until time.Time) ([]Job, error) {
	batch := w.Batch
	if batch <= 0 {
		batch = 1000
	}
	type query struct {
		where, order string
		args         []any
	}
	var queries []query
	dead, err := w.deadInstances(ctx, tx, now)
	if err != nil {
		return nil, err
	}
	if len(dead) > 0 {
		in, args := db.In(dead)
		queries = append(queries, query{"status = 'running' AND claimed_by IN " + in, "id", args})
	}
	// Two queries rather than one with OR: each walks the (status, run_at)
	// index in order and stops at the limit, where the OR form sorted every
	// due job first (half a second per claim with 200,000 jobs queued, so
	// the worker fell further behind the more it had to do).
	queries = append(queries,
		query{"status = 'running' AND locked_until < ?", "id", []any{db.Micros(now)}},
		query{"status = 'pending' AND run_at <= ?", "run_at, id", []any{db.Micros(now)}})
	var claimable []string // the conditions the claim re-checks, with their arguments
	var due []any
	for _, q := range queries {
		claimable = append(claimable, "("+q.where+")")
		due = append(due, q.args...)
	}
	var out []Job
	seen := map[int64]bool{}
	for _, q := range queries {
		if len(out) >= batch {
			break
		}
		rows, err := tx.Query(ctx, `SELECT id, account_id, kind, payload, attempts, max_attempts, source_type, source_id FROM jobs
			WHERE `+q.where+` ORDER BY `+q.order+` LIMIT ?`+tx.Dialect().SkipLocked(), append(q.args, batch-len(out))...)
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
			if seen[j.ID] { // a dead instance's job whose lease ran out too
				continue
			}
			seen[j.ID] = true
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
	// Every claimed job counts an attempt; those completed in this same
	// transaction never show as running to anyone. Where the selection
	// locked the rows (PostgreSQL's FOR UPDATE, SQLite's single writer),
	// the jobs without a Call are completed in this transaction and need
	// no mark: their completion writes the attempt (complete, fail), one
	// row version per job instead of two. The others are marked running,
	// by this worker, with their lease; the update re-checks that each job
	// is still free when it locks it: where the selection could not lock
	// (Citus), every job is marked, and a job another worker claimed
	// meanwhile is left out of the answer and so out of this round.
	mark, here := out, map[int64]bool{}
	if !tx.Dialect().Citus {
		mark = nil
		for _, j := range out {
			if _, call := w.Calls[j.Kind]; call {
				mark = append(mark, j)
			} else {
				here[j.ID] = true
			}
		}
	}
	won := map[int64]int{}
	if len(mark) > 0 {
		in, args := inJobs(mark)
		rows, err := tx.Query(ctx, `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_until = ?, claimed_by = ?
			WHERE `+in+` AND (`+strings.Join(claimable, " OR ")+`) RETURNING id, attempts`,
			append(append([]any{db.Micros(until), w.instance()}, args...), due...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var attempts int
			if err := rows.Scan(&id, &attempts); err != nil {
				rows.Close()
				return nil, err
			}
			won[id] = attempts
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	claimed := out[:0]
	for _, j := range out {
		if n, ok := won[j.ID]; ok {
			j.Attempts = n
			claimed = append(claimed, j)
		} else if here[j.ID] {
			claimed = append(claimed, j) // the attempt counted in Go, written by its completion
		}
	}
	return claimed, nil
}

// inJobs is the condition naming jobs by account and id, with its
// arguments: the account keys the table's primary key, and on Citus it
// keeps the statement on those accounts' shards.
func inJobs(jobs []Job) (string, []any) {
	var accts []int64
	seen := map[int64]bool{}
	for _, j := range jobs {
		if !seen[j.AccountID] {
			seen[j.AccountID] = true
			accts = append(accts, j.AccountID)
		}
	}
	a, aargs := db.In(accts)
	in, args := db.In(jobIDs(jobs))
	return "account_id IN " + a + " AND id IN " + in, append(aargs, args...)
}

// claimedHere is the guard of a statement about jobs this worker holds; its
// one argument is the worker's instance. It is written as IS TRUE so that
// the planner never takes it for an index condition: with statistics read
// while few jobs ran, it otherwise chose jobs_due (status, run_at) for a
// third of the marks statements of a measured drain and read every running
// job of every worker there (1,000 rows for 45 starts: 0.7 of the
// statement's 3 ms); the jobs are found by their ids in the primary key.
const claimedHere = "(status = 'running' AND claimed_by = ?) IS TRUE"

func jobIDs(jobs []Job) []int64 {
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// renew extends the lease of those of jobs that are still this worker's and
// returns them: a job missing from the answer was taken over by another
// worker (its lease ran out, or this instance's heartbeat looked stale).
func (w *Worker) renew(ctx context.Context, jobs []Job, until time.Time) (map[int64]bool, error) {
	ours := map[int64]bool{}
	err := w.DB.Transact(ctx, func(tx *db.Tx) error {
		clear(ours)
		in, args := inJobs(jobs)
		rows, err := tx.Query(ctx, `UPDATE jobs SET locked_until = ? WHERE `+in+` AND `+claimedHere+` RETURNING id`,
			append(append([]any{db.Micros(until)}, args...), w.instance())...)
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

// stillOurs returns which of jobs are still this worker's, locking them on
// PostgreSQL until tx ends (a claim by another worker skips them meanwhile).
// Citus locks rows only in a statement that reaches one shard, so there the
// jobs are read account by account.
func (w *Worker) stillOurs(ctx context.Context, tx *db.Tx, jobs []Job) (map[int64]bool, error) {
	mine := map[int64]bool{}
	groups := [][]Job{jobs}
	if tx.Dialect().Citus {
		groups = byAccount(jobs)
	}
	for _, group := range groups {
		if len(group) == 0 {
			continue
		}
		in, args := inJobs(group)
		rows, err := tx.Query(ctx, `SELECT id FROM jobs WHERE `+in+` AND `+claimedHere+` ORDER BY id`+tx.Dialect().ForUpdate(),
			append(args, w.instance())...)
		if err != nil {
			return nil, err
		}
		ours, err := db.Int64s(rows)
		if err != nil {
			return nil, err
		}
		for _, id := range ours {
			mine[id] = true
		}
	}
	return mine, nil
}

// byAccount splits jobs by account, accounts in the order they first come.
func byAccount(jobs []Job) [][]Job {
	var out [][]Job
	at := map[int64]int{}
	for _, j := range jobs {
		i, ok := at[j.AccountID]
		if !ok {
			i = len(out)
			at[j.AccountID] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], j)
	}
	return out
}
