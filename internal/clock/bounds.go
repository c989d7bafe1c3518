package clock

import (
	"fmt"
	"strings"
	"time"
)

// Representable reports whether t can be written the way every response
// writes an instant (Format): RFC 3339 has four-digit years, so its UTC
// year lies between 1 and 9999. A date or instant outside cannot be
// answered, so doors refuse it as they read it (docs/api-notes.md "Dates
// and durations").
func Representable(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}

// Range is the span one kind of duration may take: a reminder's lead time,
// a seat hold, a dashboard session's idle timeout. The area that owns the
// duration declares its Range once; every door that reads such a duration
// (the workspace file, the dashboard, a command-line flag) checks it with
// Contains, so a value of 1ns, of 0 or of centuries is refused everywhere
// alike (docs/api-notes.md "Dates and durations").
type Range struct {
	Min, Max time.Duration
}

// Contains reports whether d lies within the range, both ends included.
func (r Range) Contains(d time.Duration) bool { return d >= r.Min && d <= r.Max }

// String states the range in the form values are written in: "1m to 30d".
func (r Range) String() string { return Short(r.Min) + " to " + Short(r.Max) }

// Short writes d the way workspace files and forms do: whole days as "2d",
// else Go's form without zero units ("1h30m", "90s", "0s").
func Short(d time.Duration) string {
	if d != 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ParseIn reads s (ParseDuration's forms) and reports whether it is a
// duration within r.
func ParseIn(s string, r Range) (time.Duration, bool) {
	d, err := ParseDuration(s)
	if err != nil || !r.Contains(d) {
		return d, false
	}
	return d, true
}
