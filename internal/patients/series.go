package patients

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// seriesRefusal turns what calendar.BookSeries refused into the patient
// API's codes (docs/series.md): sessions that are not free slots, or break
// a booking rule other than max_future_per_client, are SLOT_NOT_AVAILABLE
// with their dates (in the account's zone) in details.dates; a course
// refused only because the client would hold more future appointments than
// max_future_per_client allows is BOOKING_LIMIT_REACHED, with the sessions
// past the limit in details.dates. Anything else is answered as a single
// booking's refusal.
func seriesRefusal(err error, loc *time.Location) error {
	var refused *calendar.SeriesRefused
	if !errors.As(err, &refused) {
		return refusal(err)
	}
	var taken, overLimit []string
	for _, o := range refused.Occurrences {
		date := o.StartAt.In(loc).Format(time.DateOnly)
		var broken *calendar.RulesBroken
		if errors.As(o.Err, &broken) && !slices.ContainsFunc(broken.Rules, func(r string) bool { return r != calendar.RuleMaxFuturePerClient }) {
			overLimit = append(overLimit, date)
			continue
		}
		taken = append(taken, date)
	}
	if len(taken) > 0 {
		return errs.WithDetails(errs.SlotNotAvailable, map[string]any{"field": "start_at", "dates": taken},
			"These sessions of the course are not free slots now: %s. Nothing was booked; pick another time.", strings.Join(taken, ", "))
	}
	return errs.WithDetails(errs.BookingLimitReached, map[string]any{"field": "client.phone", "dates": overLimit},
		"The course would give this client more upcoming appointments than the clinic allows online (from %s). Nothing was booked.", overLimit[0])
}
