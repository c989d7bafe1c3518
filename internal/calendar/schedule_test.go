package calendar

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestSubtract(t *testing.T) {
	for _, tc := range []struct {
		work, busy, want []interval
	}{
		{[]interval{{0, 100}}, nil, []interval{{0, 100}}},
		{[]interval{{0, 100}}, []interval{{0, 100}}, nil},
		{[]interval{{0, 100}}, []interval{{-50, 10}, {20, 30}, {90, 200}}, []interval{{10, 20}, {30, 90}}},
		{[]interval{{0, 10}, {20, 30}}, []interval{{5, 25}}, []interval{{0, 5}, {25, 30}}},
		{[]interval{{0, 10}, {20, 30}}, []interval{{10, 20}}, []interval{{0, 10}, {20, 30}}},
		{[]interval{{0, 10}, {20, 30}, {40, 50}}, []interval{{-10, -5}, {60, 70}}, []interval{{0, 10}, {20, 30}, {40, 50}}},
	} {
		got := subtract(normalize(tc.work), normalize(tc.busy))
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%v - %v = %v, want %v", tc.work, tc.busy, got, tc.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	got := normalize([]interval{{30, 40}, {0, 10}, {10, 20}, {5, 8}, {50, 50}, {35, 60}})
	if fmt.Sprint(got) != fmt.Sprint([]interval{{0, 20}, {30, 60}}) {
		t.Errorf("normalize = %v", got)
	}
}

func TestCountByDay(t *testing.T) {
	bounds := []int64{0, 100, 200, 300}
	per := make([]int, 3)
	// 30-long slots: [0,95) holds 3; [150,260) is split at 200 into 50 (1) and 60 (2).
	countByDay([]interval{{0, 95}, {150, 260}, {290, 300}}, slotRule{dur: 30, latest: math.MaxInt64}, bounds, per)
	if fmt.Sprint(per) != "[3 1 2]" {
		t.Errorf("per day = %v, want [3 1 2]", per)
	}
}

func TestWorkIntervalsFollowDST(t *testing.T) {
	madrid, _ := time.LoadLocation("Europe/Madrid")
	w := parseWeekHours(`{"sat":["09:00-10:00"],"sun":["09:00-10:00","23:00-24:00"],"xyz":["09:00-10:00"],"mon":["bad"]}`)
	// Saturday 28 March 2026 is CET, Sunday 29 March is CEST (clocks skip 02:00-03:00).
	from := time.Date(2026, 3, 28, 0, 0, 0, 0, madrid)
	to := time.Date(2026, 3, 31, 0, 0, 0, 0, madrid)
	got := workIntervals(&w, madrid, from, to)
	var s []string
	for _, iv := range got {
		s = append(s, time.UnixMicro(iv.start).UTC().Format("02 15:04")+"-"+time.UnixMicro(iv.end).UTC().Format("02 15:04"))
	}
	want := "[28 08:00-28 09:00 29 07:00-29 08:00 29 21:00-29 22:00]"
	if fmt.Sprint(s) != want {
		t.Errorf("work = %v, want %s", s, want)
	}
}

func TestParseWeekHoursAndTimeOff(t *testing.T) {
	w := parseWeekHours(`{"tue":["15:00-19:00","09:00-13:00"]}`)
	if fmt.Sprint(w[time.Tuesday]) != "[{540 780} {900 1140}]" {
		t.Errorf("tue = %v", w[time.Tuesday])
	}
	if len(parseWeekHours(`not json`)[time.Monday]) != 0 {
		t.Error("bad document should mean no hours")
	}
	off := parseTimeOff(`[{"from":"2026-12-24T00:00:00Z","to":"2026-12-27T00:00:00Z"},{"from":"x","to":"y"},{"from":"2026-12-24T00:00:00Z","to":"2026-12-23T00:00:00Z"}]`)
	if len(off) != 1 || off[0].end-off[0].start != int64(72*time.Hour/time.Microsecond) {
		t.Errorf("time off = %v", off)
	}
}
