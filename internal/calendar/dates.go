package calendar

import (
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// The calendar's days are written YYYY-MM-DD (docs/contract.md, Conventions): every day a
// query names or an answer lists lies between FirstDate and LastDate. A
// window of days (availability, free slots, the dashboard's grid) that would
// run past LastDate is refused rather than cut short, so an answer always
// covers the days asked for (docs/api-notes.md "Dates and durations").
const (
	FirstDate = "0001-01-01"
	LastDate  = "9999-12-31"
)

var lastDay = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// ParseDate reads a YYYY-MM-DD day between FirstDate and LastDate as its
// midnight in loc.
func ParseDate(s string, loc *time.Location) (time.Time, bool) {
	if len(s) != len(time.DateOnly) {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(time.DateOnly, s, loc)
	if err != nil || t.Year() < 1 {
		return time.Time{}, false
	}
	return t, true
}

// DaysWithin returns how many of the days days from the day start
// (YYYY-MM-DD, or a time read on its own calendar) fall on or before
// LastDate.
func DaysWithin(start time.Time, days int) int {
	y, m, d := start.Date()
	first := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	left := int(lastDay.Sub(first)/(24*time.Hour)) + 1
	return max(0, min(days, left))
}

// LatestStart is the last first day of a window of days that ends by
// LastDate.
func LatestStart(days int) string {
	return lastDay.AddDate(0, 0, 1-max(days, 1)).Format(time.DateOnly)
}

// CheckWindow records on rep, at loc (the door's location of start_date),
// a window of days from start (a valid YYYY-MM-DD; "" is today) that would
// end after LastDate, in the contract's 422 item shape: less_than_equal
// with the latest start that fits. It reports whether the window fits.
func CheckWindow(rep *valid.Report, start string, days int, at ...any) bool {
	if start == "" {
		return true
	}
	t, ok := ParseDate(start, time.UTC)
	if !ok || DaysWithin(t, days) == days {
		return true
	}
	rep.Add(at, "less_than_equal", "Input should be less than or equal to "+LatestStart(days)+
		" (a window of days must end by "+LastDate+")")
	return false
}

// instantsFit reports whether each instant can be answered (clock.Representable).
func instantsFit(ts ...time.Time) bool {
	for _, t := range ts {
		if !clock.Representable(t) {
			return false
		}
	}
	return true
}
