package reports

import (
	"cmp"
	"context"
	"fmt"
	"slices"
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
// the outbox, the holds from the entries, the accepted seats, and the
// cancellations they filled (fillTimes).
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
	seats, err := readSeats(ctx, q, acct, f)
	if err != nil {
		return w, err
	}
	w.Accepted = len(seats)
	fill, err := fillTimes(ctx, q, acct, seats)
	if err != nil {
		return w, err
	}
	w.Filled, w.MedianToFill = len(fill), median(fill)
	w.NotTaken = max(0, w.Sent-w.Accepted-w.Held)
	return w, nil
}

// seat is an appointment booked from the waiting list.
type seat struct{ pro, start, end, booked int64 }

// readSeats reads the seats booked from the list in the period.
func readSeats(ctx context.Context, q db.Querier, acct account.Account, f Filter) ([]seat, error) {
	where, args := f.where(acct, "", "created_at")
	rows, err := q.Query(ctx, `SELECT professional_id, start_at, end_at, created_at FROM appointments WHERE `+where+` AND source = 'waitlist'`, args...)
	if err != nil {
		return nil, fmt.Errorf("read seats: %w", err)
	}
	defer rows.Close()
	var out []seat
	for rows.Next() {
		var s seat
		if err := rows.Scan(&s.pro, &s.start, &s.end, &s.booked); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// fillTimes is, for each seat that filled a freed slot, the time from the
// latest cancellation before its booking of an appointment of the same
// professional overlapping it (starting at most FreedSlotReach before it)
// to the booking. The cancellations are read in one query over the seats'
// span of starts (appointments_start) and matched here: a join let
// PostgreSQL hash every cancelled appointment of the account.
func fillTimes(ctx context.Context, q db.Querier, acct account.Account, seats []seat) ([]time.Duration, error) {
	if len(seats) == 0 {
		return nil, nil
	}
	reach := int64(FreedSlotReach / time.Microsecond)
	lo, hi := seats[0].start, seats[0].end
	for _, s := range seats {
		lo, hi = min(lo, s.start), max(hi, s.end)
	}
	rows, err := q.Query(ctx, `SELECT professional_id, start_at, end_at, updated_at FROM appointments
		WHERE account_id = ? AND start_at > ? AND start_at < ? AND status = 'cancelled' ORDER BY professional_id, start_at`, acct.ID, lo-reach, hi)
	if err != nil {
		return nil, fmt.Errorf("read freed slots: %w", err)
	}
	defer rows.Close()
	type cancelled struct{ start, end, at int64 }
	byPro := map[int64][]cancelled{}
	for rows.Next() {
		var (
			pro int64
			c   cancelled
		)
		if err := rows.Scan(&pro, &c.start, &c.end, &c.at); err != nil {
			return nil, err
		}
		byPro[pro] = append(byPro[pro], c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []time.Duration
	for _, s := range seats {
		list := byPro[s.pro]
		i, _ := slices.BinarySearchFunc(list, s.start-reach, func(c cancelled, t int64) int { return cmp.Compare(c.start, t+1) })
		freed := int64(-1)
		for ; i < len(list) && list[i].start < s.end; i++ {
			if c := list[i]; c.end > s.start && c.at <= s.booked && c.at > freed {
				freed = c.at
			}
		}
		if freed >= 0 {
			out = append(out, db.Time(s.booked).Sub(db.Time(freed)))
		}
	}
	return out, nil
}
