package waitlist

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
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
const removeSQL = `UPDATE waitlist_entries SET status = 'removed', resolved_at = ?, resolution_reason = ?, updated_at = ?
	WHERE account_id = ? AND status IN ` + openStatuses + ` AND id IN `

// Remove resolves one entry as removed and returns it. An entry already
// resolved is returned unchanged; an unknown one (or another account's) is
// NOT_FOUND.
func Remove(ctx context.Context, store *db.DB, acct account.Account, id int64, reason string, now time.Time) (Entry, error) {
	var e Entry
	err := store.Transact(ctx, func(tx *db.Tx) error {
		if _, err := tx.Exec(ctx, removeSQL+`(?)`, db.Micros(now), reasonOrDefault(reason), db.Micros(now), acct.ID, id); err != nil {
			return fmt.Errorf("remove entry: %w", err)
		}
		var err error
		e, err = Get(ctx, tx, acct, id, now)
		return err
	})
	return e, err
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
	r, err := store.Exec(ctx, removeSQL+in, append([]any{db.Micros(now), reasonOrDefault(reason), db.Micros(now), acct.ID}, args...)...)
	if err != nil {
		return RemoveResult{}, fmt.Errorf("remove entries: %w", err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		return RemoveResult{}, err
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
	err := q.QueryRow(ctx, `UPDATE waitlist_entries SET status = 'booked', resolved_at = ?, resolution_reason = ?, updated_at = ?
		WHERE account_id = ? AND client_id = ? AND service_id = ? AND status IN `+openStatuses+` RETURNING id`,
		db.Micros(now), ReasonBooked, db.Micros(now), acct.ID, clientID, serviceID).Scan(&id)
	if db.IsNoRows(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("resolve booked entry: %w", err)
	}
	return id, nil
}
