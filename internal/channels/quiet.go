package channels

import "time"

// Kinds that quiet hours hold back: marketing-like messages and seat
// offers (whose hold is timed around quiet hours, docs/waiting-list-by-hand.md,
// so a retried offer never reaches a patient at night either). Booking
// confirmations and reminders are time-critical and go at once.
var quietKinds = map[string]bool{"automation_message": true, "sequence_message": true, "seat_offer": true}

// QuietUntil reports whether the account's quiet hours hold a message of
// this kind at t (in the account's zone loc), and until when. The sender
// asks it before every attempt; the queue asks it when it queues a message
// due now, so a message written inside quiet hours is not tried until they
// end (docs/performance.md, "Messages queued inside quiet hours").
func (s Settings) QuietUntil(kind string, t time.Time, loc *time.Location) (time.Time, bool) {
	if !quietKinds[kind] {
		return time.Time{}, false
	}
	qh, _ := ParseQuietHours(s.QuietHours)
	until, inside := qh.Until(t, loc)
	return until.UTC(), inside
}

// HeldKind reports whether quiet hours hold messages of this kind.
func HeldKind(kind string) bool { return quietKinds[kind] }
