package waitlist

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// reasonOrDefault is the resolution_reason of a removal.
func reasonOrDefault(reason string) string {
	if r := strings.TrimSpace(reason); r != "" {
		return r
	}
	return DefaultRemovalReason
}

// removeSQL resolves open entries as removed; resolved ones are left as
// they are (removing twice changes nothing).
const removeSQL = `UPDATE waitlist_entries SET status = 'removed', resolved_at = ?, resolution_reason = ?, offer_resource_id = NULL, updated_at = ?
	WHERE account_id = ? AND status IN ` + openStatuses + ` AND id IN `

// Remove resolves one entry as removed and returns it. An entry already
// resolved is returned unchanged; an unknown one (or another account's) is
// NOT_FOUND.
func Remove(ctx context.Context, store *db.DB, acct account.Account, id int64, reason string, now time.Time) (Entry, error) {
	var e Entry
	err := store.Transact(ctx, func(tx *db.Tx) error {
		if _, err := resolveEntries(ctx, tx, acct, removeSQL+`(?)`, []any{db.Micros(now), reasonOrDefault(reason), db.Micros(now), acct.ID, id}, now); err != nil {
			return fmt.Errorf("remove entry: %w", err)
		}
		var err error
		e, err = Get(ctx, tx, acct, id, now)
		return err
	})
	return e, err
}

// RemoveClientEntries resolves every open entry of a client as removed
// with reason, in tx, each with its waitlist.entry_resolved (the erasure of
// docs/data-rights.md); it reports how many.
func RemoveClientEntries(ctx context.Context, tx db.Querier, acct account.Account, clientID int64, reason string, now time.Time) (int, error) {
	return resolveEntries(ctx, tx, acct, `UPDATE waitlist_entries SET status = 'removed', resolved_at = ?, resolution_reason = ?, updated_at = ?
		WHERE account_id = ? AND client_id = ? AND status IN `+openStatuses,
		[]any{db.Micros(now), reasonOrDefault(reason), db.Micros(now), acct.ID, clientID}, now)
}

// RemoveResult is the body of remove many.
type RemoveResult struct {
	Status       string `json:"status"`
	Message      string `json:"message"`
	SuccessCount int    `json:"success_count"`
	SkippedCount int    `json:"skipped_count"`
}

// RemoveMany resolves open entries as removed in one statement. Ids that are
// unknown, another account's, already resolved or repeated are skipped:
// success_count + skipped_count is the number of ids sent.
func RemoveMany(ctx context.Context, store *db.DB, acct account.Account, ids []int64, reason string, now time.Time) (RemoveResult, error) {
	in, args := db.In(uniq(ids))
	var n int
	err := store.Transact(ctx, func(tx *db.Tx) error {
		var err error
		n, err = resolveEntries(ctx, tx, acct, removeSQL+in, append([]any{db.Micros(now), reasonOrDefault(reason), db.Micros(now), acct.ID}, args...), now)
		return err
	})
	if err != nil {
		return RemoveResult{}, fmt.Errorf("remove entries: %w", err)
	}
	res := RemoveResult{Status: "success", SuccessCount: int(n), SkippedCount: len(ids) - int(n)}
	res.Message = fmt.Sprintf("Removed %d of %d waiting-list entries.", res.SuccessCount, len(ids))
	if res.SkippedCount > 0 {
		res.Message += fmt.Sprintf(" %d skipped (unknown, already resolved or repeated).", res.SkippedCount)
	}
	return res, nil
}

// ReasonBooked is the resolution_reason of an entry resolved by a booking.
const ReasonBooked = "booked"

// ResolveBooked resolves the client's open entry for the service, if any,
// as booked: the rule "a booking for the same client and service resolves
// the open entry". Call it in the booking's transaction so both commit
// together. It reports the entry resolved (0 when there was none).
func ResolveBooked(ctx context.Context, q db.Querier, acct account.Account, clientID, serviceID int64, now time.Time) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT id FROM waitlist_entries WHERE account_id = ? AND client_id = ? AND service_id = ? AND status IN `+openStatuses,
		acct.ID, clientID, serviceID).Scan(&id)
	if db.IsNoRows(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("resolve booked entry: %w", err)
	}
	if _, err := resolveEntries(ctx, q, acct, `UPDATE waitlist_entries SET status = 'booked', resolved_at = ?, resolution_reason = ?, offer_resource_id = NULL, updated_at = ?
		WHERE account_id = ? AND status IN `+openStatuses+` AND id = ?`, []any{db.Micros(now), ReasonBooked, db.Micros(now), acct.ID, id}, now); err != nil {
		return 0, fmt.Errorf("resolve booked entry: %w", err)
	}
	return id, nil
}

// resolveEntries runs an UPDATE that resolves entries (its RETURNING list is
// added here) and emits waitlist.entry_resolved for each resolved entry.
func resolveEntries(ctx context.Context, tx db.Querier, acct account.Account, update string, args []any, now time.Time) (int, error) {
	rows, err := tx.Query(ctx, update+` RETURNING id, waitlist_id, client_id, service_id, status, resolution_reason`, args...)
	if err != nil {
		return 0, err
	}
	var events []jobs.Event
	for rows.Next() {
		var id, list, client, service int64
		var status, reason string
		if err := rows.Scan(&id, &list, &client, &service, &status, &reason); err != nil {
			rows.Close()
			return 0, err
		}
		events = append(events, jobs.Event{Type: jobs.EventWaitlistEntryResolved, SourceID: id, Data: map[string]any{
			"entry_id": id, "waitlist_id": list, "client_id": client, "service_id": service, "status": status, "resolution_reason": reason}})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	return len(events), jobs.Emit(ctx, tx, acct, now, events...)
}
