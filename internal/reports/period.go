package reports

import (
	"time"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// Period presets (docs/reports.md, The period).
const (
	ThisMonth  = "this_month"
	LastMonth  = "last_month"
	Last30Days = "last_30_days"
	Custom     = "custom"
)

// Presets lists the presets in the order the page offers them.
var Presets = []string{ThisMonth, LastMonth, Last30Days}

// Period is a run of whole days in the account's zone: FirstDay to
// LastDay inclusive (2006-01-02), the instants [From, To).
type Period struct {
	Preset            string
	FirstDay, LastDay string
	From, To          time.Time
}

// ParsePeriod reads a period: a preset, or the first and last days; with
// neither, last month. Days are in loc; now says what "this month" is.
func ParsePeriod(preset, first, last string, loc *time.Location, now time.Time) (Period, error) {
	today := now.In(loc)
	month := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, loc)
	day := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, loc)
	var from, to time.Time // to: the day after the last
	switch {
	case preset == ThisMonth:
		from, to = month, month.AddDate(0, 1, 0)
	case preset == Last30Days:
		from, to = day.AddDate(0, 0, -29), day.AddDate(0, 0, 1)
	case preset == Custom || (preset == "" && (first != "" || last != "")):
		preset = Custom
		f, err1 := time.ParseInLocation(time.DateOnly, first, loc)
		l, err2 := time.ParseInLocation(time.DateOnly, last, loc)
		if err1 != nil || err2 != nil {
			return Period{}, errs.New(errs.ValidationError, "Dates must read like 2026-03-31.")
		}
		if l.Before(f) {
			return Period{}, errs.New(errs.ValidationError, "The period must end after it starts.")
		}
		from, to = f, l.AddDate(0, 0, 1)
		if to.Sub(from) > MaxDays*24*time.Hour+time.Hour {
			return Period{}, errs.New(errs.ValidationError, "A report covers at most %d days.", MaxDays)
		}
	case preset == "" || preset == LastMonth:
		preset = LastMonth
		from, to = month.AddDate(0, -1, 0), month
	default:
		return Period{}, errs.New(errs.ValidationError, "Unknown period %q.", preset)
	}
	return Period{Preset: preset, FirstDay: from.Format(time.DateOnly), LastDay: to.AddDate(0, 0, -1).Format(time.DateOnly), From: from, To: to}, nil
}
