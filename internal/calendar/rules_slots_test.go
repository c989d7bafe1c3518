package calendar

import (
	"fmt"
	"math"
	"testing"
)

// TestSlotRuleStarts lays starts in one free interval [100, 400) under the
// rules' shapes: buffers move the first start and widen the step, notice
// and horizon cut the list without moving it.
func TestSlotRuleStarts(t *testing.T) {
	free := interval{100, 400}
	for _, test := range []struct {
		name string
		rule slotRule
		want string
	}{
		{"defaults: back to back", slotRule{dur: 60, latest: math.MaxInt64}, "[100 160 220 280 340]"},
		{"a 30-long tail holds nothing", slotRule{dur: 90, latest: math.MaxInt64}, "[100 190 280]"},
		{"buffer before", slotRule{before: 10, dur: 60, latest: math.MaxInt64}, "[110 180 250 320]"},
		{"buffer after", slotRule{dur: 60, after: 15, latest: math.MaxInt64}, "[100 175 250 325]"},
		{"both buffers: the last must keep its after inside", slotRule{before: 10, dur: 60, after: 20, latest: math.MaxInt64}, "[110 200 290]"},
		{"notice drops the early starts, the grid stays", slotRule{dur: 60, earliest: 161, latest: math.MaxInt64}, "[220 280 340]"},
		{"notice exactly on a start keeps it", slotRule{dur: 60, earliest: 160, latest: math.MaxInt64}, "[160 220 280 340]"},
		{"horizon is exclusive", slotRule{dur: 60, latest: 280}, "[100 160 220]"},
		{"horizon before the interval", slotRule{dur: 60, latest: 50}, "[]"},
		{"notice after the horizon", slotRule{dur: 60, earliest: 300, latest: 250}, "[]"},
		{"too short", slotRule{before: 100, dur: 200, after: 1, latest: math.MaxInt64}, "[]"},
		{"exactly fits", slotRule{before: 100, dur: 100, after: 100, latest: math.MaxInt64}, "[200]"},
	} {
		t.Run(test.name, func(t *testing.T) {
			got := []int64{}
			test.rule.each(free, func(s int64) { got = append(got, s) })
			if fmt.Sprint(got) != test.want {
				t.Errorf("starts = %v, want %s", got, test.want)
			}
			if _, n := test.rule.starts(free); n != len(got) {
				t.Errorf("count %d, listed %d", n, len(got))
			}
		})
	}
}

func TestCeilDiv(t *testing.T) {
	for _, test := range []struct{ a, b, want int64 }{{0, 3, 0}, {1, 3, 1}, {3, 3, 1}, {4, 3, 2}, {-1, 3, 0}, {-3, 3, -1}, {-4, 3, -1}} {
		if got := ceilDiv(test.a, test.b); got != test.want {
			t.Errorf("ceilDiv(%d, %d) = %d, want %d", test.a, test.b, got, test.want)
		}
	}
}
