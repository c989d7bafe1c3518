package offers

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// OfferFreedTime offers time an appointment of professionalID gave back (a
// patient's cancellation or move through the manage link,
// docs/manage-links.md) to the waiting lists at once, in tx: every active
// list with a service that professional offers runs its offer step now,
// exactly as after a "no" to a seat offer, instead of waiting for its next
// scheduled run.
func OfferFreedTime(ctx context.Context, tx *db.Tx, acct account.Account, professionalID int64, now time.Time) error {
	var lang string
	if err := tx.QueryRow(ctx, `SELECT language FROM accounts WHERE id = ?`, acct.ID).Scan(&lang); err != nil {
		return err
	}
	ids, err := db.QueryInt64s(ctx, tx, `SELECT DISTINCT ws.waitlist_id FROM waitlist_services ws
		JOIN waitlists w ON w.account_id = ws.account_id AND w.id = ws.waitlist_id
		JOIN service_professionals sp ON sp.account_id = ws.account_id AND sp.service_id = ws.service_id
		WHERE ws.account_id = ? AND w.active AND w.deleted_at IS NULL AND sp.professional_id = ?
		ORDER BY ws.waitlist_id`, acct.ID, professionalID)
	if err != nil {
		return err
	}
	for _, id := range ids {
		l, err := loadList(ctx, tx, acct, id, lang)
		if err != nil {
			return err
		}
		if err := offer(ctx, tx, acct, l.list, now, 0); err != nil {
			return err
		}
	}
	return nil
}
