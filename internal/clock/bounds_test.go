package clock_test

import (
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
)

func TestRange(t *testing.T) {
	r := clock.Range{Min: time.Minute, Max: 30 * 24 * time.Hour}
	for _, test := range []struct {
		in string
		ok bool
	}{
		{"1m", true}, {"30d", true}, {"720h", true}, {"1h30m", true},
		{"1ns", false}, {"59s", false}, {"0", false}, {"-1h", false}, {"31d", false}, {"soon", false},
		{"106752d", false}, {"9999999999999d", false}, // more days than a time.Duration holds
	} {
		if _, ok := clock.ParseIn(test.in, r); ok != test.ok {
			t.Errorf("ParseIn(%q) = %v, want %v", test.in, ok, test.ok)
		}
	}
	if got := r.String(); got != "1m to 30d" {
		t.Errorf("String = %q", got)
	}
	for d, want := range map[time.Duration]string{0: "0s", 10 * time.Millisecond: "10ms", 90 * time.Minute: "1h30m", time.Hour: "1h",
		23 * time.Hour: "23h", 48 * time.Hour: "2d", 90 * time.Second: "1m30s"} {
		if got := clock.Short(d); got != want {
			t.Errorf("Short(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestRepresentable(t *testing.T) {
	for _, test := range []struct {
		t    time.Time
		want bool
	}{
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), true},
		{time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("", -10*3600)), false}, // 10000 in UTC
		{time.Date(1, 1, 1, 0, 30, 0, 0, time.FixedZone("", 3600)), false},          // year 0 in UTC
		{time.Time{}.Add(-time.Hour), false},
	} {
		if got := clock.Representable(test.t); got != test.want {
			t.Errorf("Representable(%v) = %v", test.t, got)
		}
	}
}
