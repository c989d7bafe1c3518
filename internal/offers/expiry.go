package offers

import (
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
)

// Timing is when a seat offer's message goes out and until when its hold
// lasts.
type Timing struct {
	SendAt, ExpiresAt time.Time
}

// maxQuietSteps bounds OfferTiming's walk: a hold of at most 7 days crosses
// at most 8 quiet windows (channels.QuietWindow leaves an hour a day).
const maxQuietSteps = 64

// OfferTiming is the one rule for a seat offer made at now with time to
// live ttl, under the account's quiet hours in loc (docs/contract.md,
// quiet_hours; docs/waiting-list-by-hand.md): the message goes out at
// now, or when the quiet window now falls in ends; the hold starts when
// the message goes out, and its time to live runs only outside quiet hours
// — a hold that would run out inside a window runs out after it, by the
// part of the time to live that fell inside. So an offer made at 04:12
// under 21:00-09:00 with a 2-hour hold goes out at 09:00 and expires at
// 11:00; one made at 20:00 expires at 10:00 the next day.
func OfferTiming(now time.Time, ttl time.Duration, quiet channels.QuietHours, loc *time.Location) Timing {
	send := now
	if end, in := quiet.Until(now, loc); in {
		send = end
	}
	t, left := send, ttl
	for range maxQuietSteps {
		next, ok := nextQuietStart(t, quiet, loc)
		if !ok || t.Add(left).Before(next) {
			break
		}
		end, in := quiet.Until(next, loc)
		if !in { // a window start a clock change skipped
			break
		}
		left -= next.Sub(t)
		t = end
	}
	return Timing{SendAt: send, ExpiresAt: t.Add(left)}
}

// nextQuietStart is the first instant at or after t (outside quiet hours)
// at which a quiet window starts, in loc.
func nextQuietStart(t time.Time, quiet channels.QuietHours, loc *time.Location) (time.Time, bool) {
	if !quiet.Set {
		return time.Time{}, false
	}
	lt := t.In(loc)
	for day := 0; day < 3; day++ {
		d := lt.AddDate(0, 0, day)
		h, m := int(quiet.From/time.Hour), int(quiet.From%time.Hour/time.Minute)
		at := time.Date(d.Year(), d.Month(), d.Day(), h, m, 0, 0, loc)
		if !at.Before(t) {
			return at, true
		}
	}
	return time.Time{}, false
}
