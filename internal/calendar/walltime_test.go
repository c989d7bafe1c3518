package calendar_test

import (
	"github.com/frontdesk/frontdesk/internal/clock"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
)

func TestWallTime(t *testing.T) {
	madrid, _ := time.LoadLocation("Europe/Madrid")
	newYork, _ := time.LoadLocation("America/New_York")
	for _, tc := range []struct {
		in   string
		loc  *time.Location
		want string // "" when the reading does not exist in loc; "parse" when unreadable
	}{
		{"2026-12-01T10:00:00", madrid, "2026-12-01T09:00:00Z"},
		{"2026-12-01T10:00", madrid, "2026-12-01T09:00:00Z"},
		{"2026-12-01 10:00:00", madrid, "2026-12-01T09:00:00Z"},
		{"2026-07-01T10:00:00", madrid, "2026-07-01T08:00:00Z"},
		{"2026-12-01T10:00:00.123456789", madrid, "2026-12-01T09:00:00.123456Z"},
		{"2026-12-01T10:00:00Z", newYork, "2026-12-01T10:00:00Z"},
		{"2026-12-01T10:00:00+05:30", madrid, "2026-12-01T04:30:00Z"},
		{"2026-12-01T10:00:00-0300", madrid, "2026-12-01T13:00:00Z"},
		// DST gaps do not exist; overlaps take the earlier instant.
		{"2026-03-29T02:30:00", madrid, ""},
		{"2026-03-29T02:00:00", madrid, ""},
		{"2026-03-29T03:00:00", madrid, "2026-03-29T01:00:00Z"},
		{"2026-03-29T01:59:59", madrid, "2026-03-29T00:59:59Z"},
		{"2026-10-25T02:30:00", madrid, "2026-10-25T00:30:00Z"},
		{"2026-10-25T02:00:00", madrid, "2026-10-25T00:00:00Z"},
		{"2026-10-25T03:00:00", madrid, "2026-10-25T02:00:00Z"},
		{"2026-03-08T02:30:00", newYork, ""},
		{"2026-11-01T01:30:00", newYork, "2026-11-01T05:30:00Z"},
		// An explicit offset is never in a gap.
		{"2026-03-29T02:30:00+01:00", madrid, "2026-03-29T01:30:00Z"},
		{"2026-02-30T10:00:00", madrid, "parse"},
		{"2026-12-01T24:00:00", madrid, "parse"},
		{"2026-12-01", madrid, "parse"},
		{"2026-12-01T10:00:00+25:00", madrid, "parse"},
		{"tomorrow", madrid, "parse"},
		{"", madrid, "parse"},
	} {
		w, ok := calendar.ParseWallTime(tc.in)
		if !ok {
			if tc.want != "parse" {
				t.Errorf("%q: unreadable", tc.in)
			}
			continue
		}
		if tc.want == "parse" {
			t.Errorf("%q: read, want unreadable", tc.in)
			continue
		}
		got, ok := w.In(tc.loc)
		switch {
		case tc.want == "" && ok:
			t.Errorf("%q in %s = %s, want a DST gap", tc.in, tc.loc, got)
		case tc.want != "" && !ok:
			t.Errorf("%q in %s: gap, want %s", tc.in, tc.loc, tc.want)
		case ok && clock.Format(got) != tc.want:
			t.Errorf("%q in %s = %s, want %s", tc.in, tc.loc, clock.Format(got), tc.want)
		}
	}
}

func TestLoadZone(t *testing.T) {
	for name, want := range map[string]bool{"Europe/Madrid": true, "UTC": true, "America/Argentina/Buenos_Aires": true,
		"": false, "Local": false, "Mars/Base": false, "../../etc/passwd": false} {
		if _, ok := calendar.LoadZone(name); ok != want {
			t.Errorf("LoadZone(%q) = %v, want %v", name, ok, want)
		}
	}
}
