package calendar

import (
	"context"
	"fmt"
	"github.com/frontdesk/frontdesk/internal/clock"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Booking warning codes. Availability never refuses a booking (booking rule
// 2); these tell the caller what a dashboard user would have seen on the
// calendar, so an integration can flag the appointment for a human.
const (
	WarnInThePast           = "in_the_past"
	WarnOutsideWorkingHours = "outside_working_hours"
	WarnTimeOff             = "professional_on_time_off"
	WarnOverlap             = "overlaps_existing_appointment"
	// WarnHeldSlot: the slot was held for a waiting-list seat offer; the
	// booking takes it and the hold is released.
	WarnHeldSlot = "slot_held_for_waitlist_offer"
)

// Warning is one entry of a booked appointment's additive `warnings` array:
// always a code and an English message (branch on the code, never on the
// message), plus keys that depend on the code:
//
//   - overlaps_existing_appointment: appointment_id, start_at, end_at (the
//     other appointment; one warning per overlapping appointment);
//   - professional_on_time_off: from, to (the time-off period; one warning
//     per overlapping period);
//   - slot_held_for_waitlist_offer: entry_id, seat_expires_at (the
//     waiting-list entry whose offered slot this booking takes);
//   - breaks_booking_rule: rule (min_notice, max_advance, buffer or
//     max_future_per_client; one warning per rule broken,
//     docs/booking-rules.md);
//   - outside_working_hours, in_the_past: no extra keys.
type Warning struct {
	Code          string `json:"code"`
	Message       string `json:"message"`
	AppointmentID int64  `json:"appointment_id,omitzero"`
	StartAt       string `json:"start_at,omitzero"`
	EndAt         string `json:"end_at,omitzero"`
	From          string `json:"from,omitzero"`
	To            string `json:"to,omitzero"`
	EntryID       int64  `json:"entry_id,omitzero"`
	SeatExpiresAt string `json:"seat_expires_at,omitzero"`
	Rule          string `json:"rule,omitzero"`
	// Text is Message as a catalogue key and its arguments, for a door
	// that says it in its reader's language (set for breaks_booking_rule).
	Text errs.Text `json:"-"`
}

// bookingWarnings says what is unusual about booking pro for [start, end):
// in the order in_the_past, outside_working_hours, professional_on_time_off
// (by start), overlaps_existing_appointment (by start, then id). The
// schedule comes from the catalog already loaded by the booking, so the
// only query is the professional's booked appointments that intersect the
// span (the appointments_busy index). It runs in the booking's transaction
// before the insert, after the account's booking lock: on both engines no
// concurrent booking of the account can slip between the check and the
// insert, so an overlap is never missed. Never nil.
func bookingWarnings(ctx context.Context, q db.Querier, acct account.Account, pro *professional, start, end, now time.Time) ([]Warning, error) {
	out := []Warning{}
	if start.Before(now) {
		out = append(out, Warning{Code: WarnInThePast,
			Message: fmt.Sprintf("The appointment starts at %s, before now (%s).", clock.Format(start), clock.Format(now))})
	}

	lo, hi := db.Micros(start), db.Micros(end)
	loc := acct.Location()
	if !covers(normalize(workIntervals(&pro.Hours, loc, start, end)), lo, hi) {
		out = append(out, Warning{Code: WarnOutsideWorkingHours,
			Message: fmt.Sprintf("The appointment is not entirely within %s's working hours (%s).", pro.Name, loc.String())})
	}

	for _, off := range normalize(append([]interval(nil), pro.TimeOff...)) {
		if off.start < hi && off.end > lo {
			from, to := clock.Format(db.Time(off.start)), clock.Format(db.Time(off.end))
			out = append(out, Warning{Code: WarnTimeOff, From: from, To: to,
				Message: fmt.Sprintf("%s is on time off from %s to %s.", pro.Name, from, to)})
		}
	}

	rows, err := q.Query(ctx, `SELECT id, start_at, end_at FROM appointments
		WHERE account_id = ? AND professional_id = ? AND status IN ('booked', 'arrived') AND end_at > ? AND start_at < ?
		ORDER BY start_at, id`, acct.ID, pro.ID, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("load overlapping appointments: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id     int64
			s, e   int64
			sa, ea string
		)
		if err := rows.Scan(&id, &s, &e); err != nil {
			return nil, err
		}
		sa, ea = clock.Format(db.Time(s)), clock.Format(db.Time(e))
		out = append(out, Warning{Code: WarnOverlap, AppointmentID: id, StartAt: sa, EndAt: ea,
			Message: fmt.Sprintf("Overlaps appointment %d of %s (%s to %s).", id, pro.Name, sa, ea)})
	}
	return out, rows.Err()
}

// covers reports whether the normalized intervals contain [lo, hi) whole.
// normalize merges touching ranges, so working hours split across a
// midnight ("18:00-24:00" then "00:00-02:00") or back to back still cover a
// span that runs across the seam.
func covers(iv []interval, lo, hi int64) bool {
	for _, x := range iv {
		if x.start <= lo && x.end >= hi {
			return true
		}
	}
	return false
}
