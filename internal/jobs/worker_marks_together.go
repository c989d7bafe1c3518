package jobs

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
)

// On one PostgreSQL server, the marks of one account in a group commit are
// written with one statement: the ownership of the starts' jobs
// (stillOurs), the opt-outs (channels.OptedOutOf), the start marks and the
// sent marks, which are otherwise four statements. Each statement is a
// round trip that every send under way waits for (docs/performance.md,
// "Sending a round of messages"), and under load the four were the largest
// share of the database's statement time.

// marksTogether reports whether q writes an account's marks with one
// statement (writeMarks). Citus runs a statement that locks rows only when
// it stays on one shard, and SQLite has no data-modifying WITH queries: there
// the marks keep their own statements.
func marksTogether(q db.Querier) bool {
	d := q.Dialect()
	return d.Engine == db.Postgres && !d.Citus
}

// marksAlone is a group commit that is nothing but marks of one account,
// one start at least, and no sent mark whose Call waits: writeMarks's
// statement is then all of it, and runs on its own, outside a transaction
// (a statement is atomic), which saves the round trips of BEGIN and COMMIT
// that every send under way would wait for. ok is false for any other
// batch.
func (w *Worker) marksAlone(ctx context.Context, batch []queuedRecord) (failed map[int64]error, ok bool, err error) {
	if len(batch) == 0 || !marksTogether(w.DB) {
		return nil, false, nil
	}
	acct := batch[0].acct
	var starts []startMark
	var sents []sentMark
	var jobIDs []int64
	for _, q := range batch {
		if q.acct != acct {
			return nil, false, nil
		}
		switch m := q.rec.(type) {
		case startMark:
			starts, jobIDs = append(starts, m), append(jobIDs, q.job)
		case sentMark:
			if q.done != nil {
				return nil, false, nil
			}
			sents = append(sents, m)
		default:
			return nil, false, nil
		}
	}
	if len(starts) == 0 {
		return nil, false, nil
	}
	errs, err := w.writeMarks(ctx, w.DB, acct, starts, jobIDs, sents)
	if err != nil {
		return nil, true, err
	}
	failed = map[int64]error{}
	for i, e := range errs {
		if e != nil {
			failed[jobIDs[i]] = e
		}
	}
	return failed, true, nil
}

// writeMarks writes the start and sent marks of one account with one
// statement. It checks what the starts' own statements check: it locks the
// starts' jobs that are still this worker's until its transaction ends (as
// stillOurs does), and leaves out a start whose job is not (ErrNotOurs),
// whose client opted out of the channel (ErrOptedOut) or whose message is
// no longer pending (ErrNotOurs). jobIDs holds each start's job; failed
// holds each start's own failure, by position.
func (w *Worker) writeMarks(ctx context.Context, q db.Querier, acctID int64, starts []startMark, jobIDs []int64, sents []sentMark) (failed []error, err error) {
	ids := make([]int64, len(starts))
	clients := make([]int64, len(starts))
	chans := make([]int64, len(starts))
	rows := make([][]any, len(starts))
	for i, m := range starts {
		ids[i], clients[i], chans[i] = m.id, m.client, m.channel
		rows[i] = []any{m.id, db.Micros(m.at), db.Null(m.channel), jobIDs[i]}
	}
	startSQL, startArgs, err := db.UpdateManyStatement(acctID, "outbox", []string{"id", "at", "ch", "job"}, []string{"BIGINT", "BIGINT", "BIGINT", "BIGINT"},
		startSet, nil, pendingOnly+" AND v.job IN (SELECT id FROM mine) AND v.id NOT IN (SELECT id FROM opted)", rows)
	if err != nil {
		return nil, err
	}
	// A client or channel of 0 is none: no opt-out applies.
	stmt := `WITH mine AS (SELECT id FROM jobs WHERE account_id = ? AND id = ANY(CAST(? AS bigint[])) AND ` + claimedHere + ` ORDER BY id FOR UPDATE),
		opted AS (SELECT p.id FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[])) AS p(id, client, ch)
			WHERE p.client <> 0 AND ` + channels.OptedOutSQL("?", "p.client", "p.ch") + `),
		started AS (` + startSQL + ` RETURNING outbox.id)`
	args := append([]any{acctID, jobIDs, w.instance(), ids, clients, chans, acctID}, startArgs...)
	if len(sents) > 0 {
		sentSQL, sentArgs, err := db.UpdateManyStatement(acctID, "outbox", sentColumns, sentTypes, sentSet, nil, pendingOnly, sentRows(sents))
		if err != nil {
			return nil, err
		}
		stmt += `, sent AS (` + sentSQL + `)`
		args = append(args, sentArgs...)
	}
	// Data-modifying WITH queries run to their end whether or not they are
	// read, so the sent marks need not be.
	stmt += ` SELECT 1, id FROM mine UNION ALL SELECT 2, id FROM opted UNION ALL SELECT 3, id FROM started`
	res, err := q.Query(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	mine, opted, started := map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	for res.Next() {
		var set int
		var id int64
		if err := res.Scan(&set, &id); err != nil {
			return nil, err
		}
		switch set {
		case 1:
			mine[id] = true
		case 2:
			opted[id] = true
		default:
			started[id] = true
		}
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	failed = make([]error, len(starts))
	for i, m := range starts {
		switch {
		case !mine[jobIDs[i]]:
			failed[i] = ErrNotOurs
		case opted[m.id]:
			failed[i] = ErrOptedOut
		case !started[m.id]:
			failed[i] = ErrNotOurs
		}
	}
	return failed, nil
}
