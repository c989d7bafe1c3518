package reports

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// Waitlist is the waiting list's section (docs/reports.md, Waiting list).
type Waitlist struct {
	// Sent is the seat offers sent in the period (seat_offer messages not
	// withdrawn); Accepted the seats booked from the list in the period
	// (appointments of source waitlist created in it); Held the offers of
	// the period still holding their slot now; NotTaken the rest: offers
	// that expired or were declined (an offer's expiry is not recorded on
	// its own, so they are counted together).
	Sent, Accepted, Held, NotTaken int
	// MedianToFill is the median time from a slot being freed (the latest
	// cancellation, before the booking, of an appointment of the same
	// professional overlapping the seat) to its seat being booked from the
	// list, over the Filled seats that freed a cancelled slot.
	MedianToFill time.Duration
	Filled       int
}

// FreedSlotReach bounds how long before a seat a cancelled appointment
// overlapping it may start (one day): the lookup of the slot a seat filled
// reads the professional's appointments of that day, not every earlier one.
const FreedSlotReach = 24 * time.Hour

// ReadWaitlist reads the waiting list's section: the offers counted from
// the outbox, the holds from the entries, and the accepted seats with the
// cancellations they filled from the appointments.
func ReadWaitlist(ctx context.Context, q db.Querier, acct account.Account, f Filter, now time.Time) (Waitlist, error) {
	var w Waitlist
	from, to := db.Micros(f.From), db.Micros(f.To)
	err := q.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE account_id = ? AND created_at >= ? AND created_at < ? AND kind = ? AND status <> 'cancelled'`,
		acct.ID, from, to, jobs.MsgSeatOffer).Scan(&w.Sent)
	if err != nil {
		return w, fmt.Errorf("count seat offers: %w", err)
	}
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM waitlist_entries WHERE account_id = ? AND status = 'queued'
		AND offered_at >= ? AND offered_at < ? AND seat_expires_at > ?`, acct.ID, from, to, db.Micros(now)).Scan(&w.Held)
	if err != nil {
		return w, fmt.Errorf("count holds: %w", err)
	}
	where, args := f.where(acct, "s.", "created_at")
	args = append([]any{int64(FreedSlotReach / time.Microsecond)}, args...)
	rows, err := q.Query(ctx, `SELECT s.created_at, MAX(c.updated_at) FROM appointments s
		LEFT JOIN appointments c ON c.account_id = s.account_id AND c.professional_id = s.professional_id AND c.status = 'cancelled'
			AND c.start_at < s.end_at AND c.start_at > s.start_at - ? AND c.end_at > s.start_at AND c.updated_at <= s.created_at AND c.id <> s.id
		WHERE `+where+` AND s.source = 'waitlist' GROUP BY s.id, s.created_at`, args...)
	if err != nil {
		return w, fmt.Errorf("read filled seats: %w", err)
	}
	defer rows.Close()
	var fill []time.Duration
	for rows.Next() {
		var (
			booked int64
			freed  *int64
		)
		if err := rows.Scan(&booked, &freed); err != nil {
			return w, err
		}
		w.Accepted++
		if freed != nil {
			fill = append(fill, db.Time(booked).Sub(db.Time(*freed)))
		}
	}
	if err := rows.Err(); err != nil {
		return w, err
	}
	w.Filled, w.MedianToFill = len(fill), median(fill)
	w.NotTaken = max(0, w.Sent-w.Accepted-w.Held)
	return w, nil
}
