package waitlist

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Hold is a slot an outstanding seat offer holds.
type Hold struct {
	EntryID   int64
	ClientID  int64
	ExpiresAt time.Time
}

// ReleaseHolds gives back the seat-offer holds of professional pro that
// overlap [start, end): a booking is taking that time (the API never
// refuses a booking: docs/contract.md, Booking). The entries return to waiting, so a
// "yes" that arrives later is answered "no longer available". The entry
// keepEntry (the offer being booked) is left alone, and so is a hold of
// client clientID for the same time (their own booking resolves it).
// Returns the holds released. The UPDATE takes the entries' row locks, so a
// concurrent acceptance of the same hold either commits first or finds it
// gone.
func ReleaseHolds(ctx context.Context, tx *db.Tx, acct account.Account, pro int64, start, end time.Time, clientID, keepEntry int64, now time.Time) ([]Hold, error) {
	rows, err := tx.Query(ctx, `SELECT id, client_id, seat_expires_at FROM waitlist_entries
		WHERE account_id = ? AND status = 'queued' AND offer_professional_id = ? AND offer_start_at < ? AND offer_end_at > ?
			AND seat_expires_at > ? AND id <> ? AND client_id <> ? ORDER BY id`+tx.Dialect().ForUpdate(),
		acct.ID, pro, db.Micros(end), db.Micros(start), db.Micros(now), keepEntry, clientID)
	if err != nil {
		return nil, fmt.Errorf("find held slots: %w", err)
	}
	var out []Hold
	for rows.Next() {
		var (
			h   Hold
			exp int64
		)
		if err := rows.Scan(&h.EntryID, &h.ClientID, &exp); err != nil {
			rows.Close()
			return nil, err
		}
		h.ExpiresAt = db.Time(exp)
		out = append(out, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return nil, err
	}
	ids := make([]int64, len(out))
	for i, h := range out {
		ids[i] = h.EntryID
	}
	in, args := db.In(ids)
	if _, err := tx.Exec(ctx, `UPDATE waitlist_entries SET status = 'waiting', seat_expires_at = NULL, queued_at = NULL, offer_resource_id = NULL, updated_at = ?
		WHERE account_id = ? AND id IN `+in, append([]any{db.Micros(now), acct.ID}, args...)...); err != nil {
		return nil, fmt.Errorf("release held slots: %w", err)
	}
	return out, nil
}
