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
