package calendar

import (
	"regexp"
	"strconv"
	"time"
)

// WallTime is a booking timestamp as sent: a calendar date and clock time,
// plus the UTC offset when the caller wrote one. It stays unresolved until
// the request's timezone is known, because the same wall clock is a
// different instant in every zone (and no instant at all in a DST gap).
type WallTime struct {
	Year                      int
	Month                     time.Month
	Day, Hour, Minute, Second int
	Nanosecond                int
	HasOffset                 bool
	Offset                    int // seconds east of UTC, when HasOffset
}

var wallRE = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$`)

// ParseWallTime reads ISO 8601 date-times: "2026-12-01T10:00:00",
// "2026-12-01T10:00", fractional seconds, and an optional offset ("Z",
// "+01:00", "+0100"). It reports false for anything else, including
// impossible dates such as February 30.
func ParseWallTime(s string) (WallTime, bool) {
	m := wallRE.FindStringSubmatch(s)
	if m == nil {
		return WallTime{}, false
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	w := WallTime{Year: n(1), Month: time.Month(n(2)), Day: n(3), Hour: n(4), Minute: n(5)}
	if m[6] != "" {
		w.Second = n(6)
	}
	if frac := m[7]; frac != "" {
		for len(frac) < 9 {
			frac += "0"
		}
		w.Nanosecond, _ = strconv.Atoi(frac)
	}
	if w.Month < 1 || w.Month > 12 || w.Day < 1 || w.Hour > 23 || w.Minute > 59 || w.Second > 59 {
		return WallTime{}, false
	}
	if time.Date(w.Year, w.Month, w.Day, 0, 0, 0, 0, time.UTC).Day() != w.Day { // 2026-02-30 rolls over
		return WallTime{}, false
	}
	switch {
	case m[8] != "":
		w.HasOffset = true
	case m[9] != "":
		oh, om := n(10), n(11)
		if oh > 23 || om > 59 {
			return WallTime{}, false
		}
		w.HasOffset, w.Offset = true, (oh*60+om)*60
		if m[9] == "-" {
			w.Offset = -w.Offset
		}
	}
	return w, true
}

// In resolves the wall time to an instant (truncated to microseconds, the
// stored precision). An explicit offset wins over loc. Without one, the
// clock reading is taken in loc: a reading that does not exist there (a DST
// gap) reports false; one that exists twice (a DST overlap) is the earlier
// instant.
func (w WallTime) In(loc *time.Location) (time.Time, bool) {
	if w.HasOffset {
		t := time.Date(w.Year, w.Month, w.Day, w.Hour, w.Minute, w.Second, w.Nanosecond, time.FixedZone("", w.Offset))
		return t.UTC().Truncate(time.Microsecond), true
	}
	// Go's time.Date leaves the choice unspecified in gaps and overlaps, so
	// try each offset in force around the reading and keep those that give
	// the reading back.
	naive := time.Date(w.Year, w.Month, w.Day, w.Hour, w.Minute, w.Second, w.Nanosecond, time.UTC)
	var (
		best  time.Time
		found bool
	)
	for _, probe := range []time.Time{naive.Add(-24 * time.Hour), naive, naive.Add(24 * time.Hour)} {
		_, off := probe.In(loc).Zone()
		t := naive.Add(-time.Duration(off) * time.Second)
		if !w.reads(t.In(loc)) {
			continue
		}
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	if !found {
		return time.Time{}, false
	}
	return best.UTC().Truncate(time.Microsecond), true
}

// reads reports whether t shows exactly this wall clock.
func (w WallTime) reads(t time.Time) bool {
	y, m, d := t.Date()
	return y == w.Year && m == w.Month && d == w.Day && t.Hour() == w.Hour && t.Minute() == w.Minute &&
		t.Second() == w.Second && t.Nanosecond() == w.Nanosecond
}
