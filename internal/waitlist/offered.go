package waitlist

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
)

// OfferedSlot is the concrete slot a queued entry's seat offer names
// (docs/contract.md, Seat offers): the offer holds it while the entry
// is queued and ExpiresAt has not passed.
type OfferedSlot struct {
	EntryID          int64
	WaitlistID       int64
	ClientID         int64
	ClientName       string
	ServiceName      string
	ProfessionalID   int64
	ProfessionalName string
	Start, End       time.Time
	ExpiresAt        time.Time // seat_expires_at
}

// HeldAt reports whether the offer still holds its slot at now; after
// ExpiresAt the next run of the list returns the entry to the queue.
func (o OfferedSlot) HeldAt(now time.Time) bool { return o.ExpiresAt.After(now) }

// OfferFilter narrows OfferedSlots. Zero fields do not narrow.
type OfferFilter struct {
	// From and To keep the slots overlapping [From, To) (both must be set).
	From, To       time.Time
	ProfessionalID int64
	// HeldAt keeps the offers still holding their slot at that time, as the
	// slot engine counts them busy (calendar.FreeSlots).
	HeldAt time.Time
}

// OfferedSlots lists the slots the account's queued entries are offered,
// by start then entry: what the dashboard shows on the waiting lists (every
// queued offer, expired or not) and on the calendar (the live holds).
func OfferedSlots(ctx context.Context, q db.Querier, acct account.Account, f OfferFilter) ([]OfferedSlot, error) {
	where := `e.account_id = ? AND e.status = 'queued' AND e.offer_professional_id IS NOT NULL
		AND e.offer_start_at IS NOT NULL AND e.offer_end_at IS NOT NULL AND e.seat_expires_at IS NOT NULL`
	args := []any{acct.ID}
	if !f.From.IsZero() && !f.To.IsZero() {
		where += ` AND e.offer_start_at < ? AND e.offer_end_at > ?`
		args = append(args, db.Micros(f.To), db.Micros(f.From))
	}
	if f.ProfessionalID != 0 {
		where += ` AND e.offer_professional_id = ?`
		args = append(args, f.ProfessionalID)
	}
	if !f.HeldAt.IsZero() {
		where += ` AND e.seat_expires_at > ?`
		args = append(args, db.Micros(f.HeldAt))
	}
	rows, err := q.Query(ctx, `SELECT e.id, e.waitlist_id, c.id, c.first_name, c.last_name, s.name, p.id, p.name,
			e.offer_start_at, e.offer_end_at, e.seat_expires_at
		FROM waitlist_entries e
		JOIN clients c ON c.account_id = e.account_id AND c.id = e.client_id
		JOIN services s ON s.account_id = e.account_id AND s.id = e.service_id
		JOIN professionals p ON p.account_id = e.account_id AND p.id = e.offer_professional_id
		WHERE `+where+` ORDER BY e.offer_start_at, e.id LIMIT 2000`, args...)
	if err != nil {
		return nil, fmt.Errorf("list offered slots: %w", err)
	}
	defer rows.Close()
	var out []OfferedSlot
	for rows.Next() {
		var (
			o                 OfferedSlot
			first, last       string
			start, end, until int64
		)
		if err := rows.Scan(&o.EntryID, &o.WaitlistID, &o.ClientID, &first, &last, &o.ServiceName, &o.ProfessionalID, &o.ProfessionalName,
			&start, &end, &until); err != nil {
			return nil, err
		}
		o.ClientName = contact.DisplayName(first, last)
		o.Start, o.End, o.ExpiresAt = db.Time(start), db.Time(end), db.Time(until)
		out = append(out, o)
	}
	return out, rows.Err()
}
