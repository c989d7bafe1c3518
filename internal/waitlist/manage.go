package waitlist

// Hand edits of waiting lists and their entries: snooze, flag, settings.

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// SnoozeEntry puts an open entry aside until a time: no seat is offered to
// it before then (the worker wakes it).
func SnoozeEntry(ctx context.Context, q db.Querier, acct account.Account, id int64, until, now time.Time) error {
	if !until.After(now) {
		return errs.New(errs.ValidationError, "Snooze until a time in the future.")
	}
	return entryWrite(ctx, q, acct, id, `status = 'snoozed', snooze_until = ?, queued_at = NULL, seat_expires_at = NULL, offer_resource_id = NULL`, db.Micros(until), now)
}

// SetEntryFlag flags an open entry for review, or clears the flag.
func SetEntryFlag(ctx context.Context, q db.Querier, acct account.Account, id int64, flagged bool, now time.Time) error {
	return entryWrite(ctx, q, acct, id, `flagged_for_review = ?`, flagged, now)
}

func entryWrite(ctx context.Context, q db.Querier, acct account.Account, id int64, set string, arg any, now time.Time) error {
	res, err := q.Exec(ctx, `UPDATE waitlist_entries SET `+set+`, updated_at = ?
		WHERE account_id = ? AND id = ? AND status IN ('waiting', 'queued', 'snoozed')`, arg, db.Micros(now), acct.ID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var status string
		if err := q.QueryRow(ctx, `SELECT status FROM waitlist_entries WHERE account_id = ? AND id = ?`, acct.ID, id).Scan(&status); db.IsNoRows(err) {
			return errs.New(errs.NotFound, "Waiting-list entry %v not found.", id)
		} else if err != nil {
			return err
		}
		return errs.New(errs.ValidationError, "The entry is already %s; only open entries can change.", status)
	}
	return nil
}
