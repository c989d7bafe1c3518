package calendar

import (
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/valid"
)

// DecodeRecurrence reads a booking's optional recurrence from o (the API's
// body, MCP's arguments) into a 422's problems (docs/series.md): nil when
// absent. frequency is literal_error; interval and count are
// greater_than_equal / less_than_equal; neither count nor until is missing
// at count, both is value_error at until; until is a date from start's date
// to MaxSeriesDays after it.
func DecodeRecurrence(o *valid.Object, start WallTime) *Recurrence {
	r := o.Sub("recurrence")
	if r == nil {
		return nil
	}
	r.Require("frequency", "interval")
	var rec Recurrence
	rec.Frequency, _ = r.Enum("frequency", "weekly")
	n, _ := r.IntRange("interval", MinSeriesInterval, MaxSeriesInterval)
	rec.Interval = int(n)
	n, _ = r.IntRange("count", MinSeriesCount, MaxSeriesCount)
	rec.Count = int(n)
	rec.Until, _ = r.Date("until")
	_, hasCount := r.Raw("count")
	_, hasUntil := r.Raw("until")
	switch {
	case !r.Valid():
	case !hasCount && !hasUntil:
		r.Report().Add(r.Loc("count"), "missing", "Field required: send count or until")
	case hasCount && hasUntil:
		r.Report().Add(r.Loc("until"), "value_error", "Value error, send count or until, not both")
	case rec.Until != "" && start.Year > 0:
		first := time.Date(start.Year, start.Month, start.Day, 0, 0, 0, 0, time.UTC)
		until, _ := time.Parse(time.DateOnly, rec.Until)
		if until.Before(first) {
			r.Report().Add(r.Loc("until"), "greater_than_equal", "Input should be greater than or equal to "+first.Format(time.DateOnly))
		} else if last := first.AddDate(0, 0, MaxSeriesDays); until.After(last) {
			r.Report().Add(r.Loc("until"), "less_than_equal", fmt.Sprintf("Input should be less than or equal to %s (%d days after start_at)", last.Format(time.DateOnly), MaxSeriesDays))
		}
	}
	if !r.Valid() {
		return nil
	}
	return &rec
}
