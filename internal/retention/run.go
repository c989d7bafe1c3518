package retention

// One account's run: what is older than its period goes, kind by kind, in
// batches of BatchSize rows, each batch a transaction of its own (on
// SQLite a short turn of the write lock). Every statement names the
// account. Running twice changes nothing the second time, so two workers
// that both ran (the claim in due.go makes that rare) only waste work.

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// BatchSize is how many rows one statement blanks or deletes.
var BatchSize = 1000

// Result is what a run did (or, dry, would do) to one kind.
type Result struct {
	Kind   Kind      `json:"kind"`
	Period string    `json:"period"`
	Cutoff time.Time `json:"cutoff"`
	Count  int64     `json:"count"`
}

// Report is one run: the kinds the policy limits, in Kinds order.
type Report struct {
	At      time.Time `json:"at"`
	DryRun  bool      `json:"dry_run"`
	Results []Result  `json:"results"`
}

// Run applies the account's policy at now; dry counts what would go and
// changes nothing. A real run is remembered as the account's last run.
func Run(ctx context.Context, store *db.DB, acct account.Account, now time.Time, dry bool) (Report, error) {
	st, err := Load(ctx, store, acct)
	if err != nil {
		return Report{}, err
	}
	rep := Report{At: now, DryRun: dry}
	for _, k := range Kinds {
		per, ok := st.Policy[k]
		if !ok {
			continue
		}
		res := Result{Kind: k, Period: per.String(), Cutoff: per.Cutoff(now, acct.Location()).UTC()}
		if dry {
			res.Count, err = count(ctx, store, acct, k, res.Cutoff)
		} else {
			res.Count, err = sweep(ctx, store, acct, k, res.Cutoff)
		}
		if err != nil {
			return rep, fmt.Errorf("retention %s: %w", k, err)
		}
		rep.Results = append(rep.Results, res)
	}
	if !dry {
		doc, err := db.JSONText(rep)
		if err != nil {
			return rep, err
		}
		if _, err := store.Exec(ctx, `UPDATE accounts SET retention_last_run = ? WHERE id = ?`, doc, acct.ID); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// Messages keep their row, sender, time and counts; what they said goes.
const (
	messageHasContent = `(content <> '' OR media IS NOT NULL OR storage_key IS NOT NULL)`
	blankMessage      = `content = '', media = NULL, storage_key = NULL`
)

// outboxDone selects the account's outbox rows a run may delete: finished
// (never pending, which includes a message being handed to its provider),
// with no job still to run for them, and on SQLite never the table's
// newest row (db.Dialect.BelowNewest).
const outboxDone = `account_id = ? AND %s AND created_at < ?
	AND status IN ('sent', 'delivered', 'read', 'failed', 'suppressed', 'cancelled')
	AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.account_id = outbox.account_id AND jobs.outbox_id = outbox.id
		AND jobs.status IN ('pending', 'running'))`

func outboxKind(k Kind) string {
	if k == WebhookDeliveries {
		return `kind = 'webhook'`
	}
	return `kind <> 'webhook'`
}

// auditOld selects the account's old audit entries (on SQLite never the
// newest of the table, as outboxDone).
const auditOld = `account_id = ? AND created_at < ?`

func count(ctx context.Context, q db.Querier, acct account.Account, k Kind, cutoff time.Time) (int64, error) {
	var n int64
	var err error
	switch k {
	case Messages:
		err = q.QueryRow(ctx, `SELECT COUNT(*) FROM messages WHERE account_id = ? AND sent_at < ? AND `+messageHasContent,
			acct.ID, db.Micros(cutoff)).Scan(&n)
	case Outbox, WebhookDeliveries:
		err = q.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE `+fmt.Sprintf(outboxDone, outboxKind(k))+q.Dialect().BelowNewest("outbox"),
			acct.ID, db.Micros(cutoff)).Scan(&n)
	case Audit:
		err = q.QueryRow(ctx, `SELECT COUNT(*) FROM audit_log WHERE `+auditOld+q.Dialect().BelowNewest("audit_log"), acct.ID, db.Micros(cutoff)).Scan(&n)
	}
	return n, err
}

// sweep runs batches until one finds less than a full batch.
func sweep(ctx context.Context, store *db.DB, acct account.Account, k Kind, cutoff time.Time) (int64, error) {
	var total int64
	cur := cursor{at: math.MinInt64}
	for {
		var seen int
		var n int64
		err := store.Transact(ctx, func(tx *db.Tx) error {
			var err error
			switch k {
			case Messages:
				seen, n, err = blankMessages(ctx, tx, acct, cutoff, &cur)
			case Outbox, WebhookDeliveries:
				seen, n, err = deleteOutbox(ctx, tx, acct, k, cutoff)
			case Audit:
				seen, n, err = deleteAudit(ctx, tx, acct, cutoff)
			}
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		if seen < BatchSize {
			return total, nil
		}
	}
}

// cursor is where the messages' walk stands, in (sent_at, id) order.
type cursor struct{ at, id int64 }

// blankMessages blanks the next batch of old messages after cur. It walks
// the account's messages in index order from where the last batch ended,
// so a batch never reads again what earlier ones blanked; a day whose old
// messages are all blank already costs one pass over the index range and
// no write (BenchmarkRun).
func blankMessages(ctx context.Context, tx *db.Tx, acct account.Account, cutoff time.Time, cur *cursor) (int, int64, error) {
	rows, err := tx.Query(ctx, `SELECT id, sent_at FROM messages WHERE account_id = ? AND sent_at < ? AND (sent_at, id) > (?, ?)
		AND `+messageHasContent+` ORDER BY sent_at, id LIMIT ?`, acct.ID, db.Micros(cutoff), cur.at, cur.id, BatchSize)
	if err != nil {
		return 0, 0, err
	}
	var ids []int64
	for rows.Next() {
		if err := rows.Scan(&cur.id, &cur.at); err != nil {
			rows.Close()
			return 0, 0, err
		}
		ids = append(ids, cur.id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return 0, 0, err
	}
	in, args := db.In(ids)
	res, err := tx.Exec(ctx, `UPDATE messages SET `+blankMessage+` WHERE account_id = ? AND id IN `+in+` AND `+messageHasContent,
		append([]any{acct.ID}, args...)...)
	if err != nil {
		return 0, 0, err
	}
	n, err := res.RowsAffected()
	return len(ids), n, err
}

// deleteOutbox deletes a batch of finished old outbox rows of kind k, the
// jobs that sent them and those jobs' attempts (a webhook delivery's
// history lives in job_attempts). A job whose attempt holds the highest id
// of job_attempts stays (as the table's newest row, see outboxDone).
func deleteOutbox(ctx context.Context, tx *db.Tx, acct account.Account, k Kind, cutoff time.Time) (int, int64, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM outbox WHERE `+fmt.Sprintf(outboxDone, outboxKind(k))+tx.Dialect().BelowNewest("outbox")+` ORDER BY created_at, id LIMIT ?`,
		acct.ID, db.Micros(cutoff), BatchSize)
	if err != nil {
		return 0, 0, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return 0, 0, err
	}
	in, args := db.In(ids)
	if _, err := tx.Exec(ctx, `DELETE FROM job_attempts WHERE account_id = ? AND job_id IN (SELECT id FROM jobs WHERE account_id = ? AND outbox_id IN `+in+`)`+tx.Dialect().BelowNewest("job_attempts"), append([]any{acct.ID, acct.ID}, args...)...); err != nil {
		return 0, 0, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM jobs WHERE account_id = ? AND outbox_id IN `+in+` AND status IN ('done', 'failed')
		AND NOT EXISTS (SELECT 1 FROM job_attempts WHERE job_attempts.account_id = jobs.account_id AND job_attempts.job_id = jobs.id)`+tx.Dialect().BelowNewest("jobs"),
		append([]any{acct.ID}, args...)...); err != nil {
		return 0, 0, err
	}
	res, err := tx.Exec(ctx, `DELETE FROM outbox WHERE account_id = ? AND id IN `+in, append([]any{acct.ID}, args...)...)
	if err != nil {
		return 0, 0, err
	}
	n, err := res.RowsAffected()
	return len(ids), n, err
}

// deleteAudit deletes a batch of old audit entries, oldest first.
func deleteAudit(ctx context.Context, tx *db.Tx, acct account.Account, cutoff time.Time) (int, int64, error) {
	res, err := tx.Exec(ctx, `DELETE FROM audit_log WHERE account_id = ? AND id IN (SELECT id FROM audit_log WHERE `+auditOld+tx.Dialect().BelowNewest("audit_log")+`
		ORDER BY created_at, id LIMIT ?)`, acct.ID, acct.ID, db.Micros(cutoff), BatchSize)
	if err != nil {
		return 0, 0, err
	}
	n, err := res.RowsAffected()
	return int(n), n, err
}
