package calendar

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// interval is a half-open span of instants [start, end) in Unix
// microseconds, the stored form of timestamps: the free-time arithmetic runs
// on plain integers.
type interval struct{ start, end int64 }

// span is a working-hours range in minutes from local midnight; end may be
// 24*60 ("09:00-24:00").
type span struct{ from, to int }

// weekHours holds a professional's working hours indexed by time.Weekday.
type weekHours [7][]span

var dayKeys = map[string]time.Weekday{"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday,
	"wed": time.Wednesday, "thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday}

// parseWeekHours reads the stored {"mon": ["09:00-13:00"]} document. The
// workspace validated it on apply; anything unreadable counts as not working.
func parseWeekHours(doc string) weekHours {
	var raw map[string][]string
	var w weekHours
	if json.Unmarshal([]byte(doc), &raw) != nil {
		return w
	}
	for key, ranges := range raw {
		day, ok := dayKeys[strings.ToLower(key)]
		if !ok {
			continue
		}
		for _, r := range ranges {
			if s, ok := parseSpan(r); ok {
				w[day] = append(w[day], s)
			}
		}
		sort.Slice(w[day], func(i, j int) bool { return w[day][i].from < w[day][j].from })
	}
	return w
}

func parseSpan(r string) (span, bool) {
	a, b, ok := strings.Cut(strings.TrimSpace(r), "-")
	if !ok {
		return span{}, false
	}
	from, ok1 := parseClock(a)
	to, ok2 := parseClock(b)
	if !ok1 || !ok2 || from >= to {
		return span{}, false
	}
	return span{from, to}, true
}

// parseClock reads "HH:MM" (24:00 allowed) as minutes from midnight.
func parseClock(s string) (int, bool) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 || hh*60+mm > 24*60 {
		return 0, false
	}
	return hh*60 + mm, true
}

// parseTimeOff reads the stored [{"from": RFC3339, "to": RFC3339}] list.
func parseTimeOff(doc string) []interval {
	var raw []struct{ From, To string }
	if json.Unmarshal([]byte(doc), &raw) != nil {
		return nil
	}
	out := make([]interval, 0, len(raw))
	for _, r := range raw {
		from, err1 := time.Parse(time.RFC3339Nano, r.From)
		to, err2 := time.Parse(time.RFC3339Nano, r.To)
		if err1 == nil && err2 == nil && to.After(from) {
			out = append(out, interval{db.Micros(from), db.Micros(to)})
		}
	}
	return out
}

// workIntervals lays a professional's weekly hours onto the calendar days of
// the account's zone that touch [from, to), clipped to it. Wall-clock hours
// are resolved per day, so a DST change moves them with the clock.
func workIntervals(w *weekHours, loc *time.Location, from, to time.Time) []interval {
	first := from.In(loc)
	last := to.In(loc)
	y, m, d := first.Date()
	days := int(last.Sub(first).Hours()/24) + 2
	lo, hi := db.Micros(from), db.Micros(to)
	var out []interval
	for i := -1; i <= days; i++ {
		day := time.Date(y, m, d+i, 12, 0, 0, 0, loc) // noon: never in a DST gap
		for _, s := range w[day.Weekday()] {
			dy, dm, dd := day.Date()
			start := db.Micros(time.Date(dy, dm, dd, 0, s.from, 0, 0, loc))
			end := db.Micros(time.Date(dy, dm, dd, 0, s.to, 0, 0, loc))
			start, end = max(start, lo), min(end, hi)
			if start < end {
				out = append(out, interval{start, end})
			}
		}
	}
	return out
}

// normalize sorts intervals and merges the ones that overlap or touch, so
// subtract can walk them once.
func normalize(iv []interval) []interval {
	slices.SortFunc(iv, func(a, b interval) int { return cmp.Compare(a.start, b.start) })
	out := iv[:0]
	for _, x := range iv {
		if x.end <= x.start {
			continue
		}
		if n := len(out); n > 0 && x.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// subtract returns work minus busy; both are normalized. One pass over each.
func subtract(work, busy []interval) []interval {
	var out []interval
	j := 0
	for _, w := range work {
		cur := w.start
		for j < len(busy) && busy[j].end <= cur {
			j++
		}
		for k := j; k < len(busy) && busy[k].start < w.end; k++ {
			if busy[k].start > cur {
				out = append(out, interval{cur, busy[k].start})
			}
			cur = max(cur, busy[k].end)
		}
		if cur < w.end {
			out = append(out, interval{cur, w.end})
		}
	}
	return out
}

// freeTime returns each professional's free working time in [from, to) and
// never before now (rounded up to the minute): working hours minus booked appointments, time off and
// slots held by outstanding seat offers. It is the one slot engine:
// availability's capacity, the free-slot list and seat offers all read it.
// Every professional's appointments come from one query. With rules, each
// appointment also takes its service's buffers (docs/booking-rules.md); nil
// rules take the appointments alone.
func freeTime(ctx context.Context, q db.Querier, acct account.Account, pros []*professional, from, to, now time.Time, rules *ruleBook) (map[int64][]interval, error) {
	return freeTimeExcept(ctx, q, acct, pros, from, to, now, rules, 0)
}

// freeTimeExcept is freeTime with the appointment except (0: none) left
// out of the busy time: a move's own old time does not block it
// (docs/moving-appointments.md).
func freeTimeExcept(ctx context.Context, q db.Querier, acct account.Account, pros []*professional, from, to, now time.Time, rules *ruleBook, except int64) (map[int64][]interval, error) {
	w, ok := scheduleWindow(pros, from, to, now)
	if !ok {
		return map[int64][]interval{}, nil
	}
	busy, err := readBusy(ctx, q, acct, busyQuery{pros: w.ids, lo: w.lo, hi: w.hi, now: db.Micros(now), rules: rules, except: except})
	if err != nil {
		return nil, err
	}
	return w.free(acct, pros, busy.pros), nil
}

// schedWindow is the part of a window professionals' free time is laid
// in: never before now.
type schedWindow struct {
	from, to time.Time
	lo, hi   int64 // the same, in Unix microseconds
	ids      []int64
}

// scheduleWindow clips [from, to) to start no earlier than now (rounded up
// to the minute); false when nothing is left or no professional is asked
// for.
func scheduleWindow(pros []*professional, from, to, now time.Time) (schedWindow, bool) {
	// Slots start on whole minutes: free time opened by the clock starts at
	// the next minute, not at 10:07:31.482 (a start booking takes as is).
	earliest := now.Truncate(time.Minute)
	if earliest.Before(now) {
		earliest = earliest.Add(time.Minute)
	}
	if from.Before(earliest) {
		from = earliest
	}
	if !from.Before(to) || len(pros) == 0 {
		return schedWindow{}, false
	}
	w := schedWindow{from: from, to: to, lo: db.Micros(from), hi: db.Micros(to), ids: make([]int64, len(pros))}
	for i, p := range pros {
		w.ids[i] = p.ID
	}
	return w, true
}

// free is each professional's working time in w minus busy and its time
// off.
func (w schedWindow) free(acct account.Account, pros []*professional, busy map[int64][]interval) map[int64][]interval {
	out := make(map[int64][]interval, len(pros))
	loc := acct.Location()
	for _, p := range pros {
		b := busy[p.ID]
		for _, off := range p.TimeOff {
			if off.end > w.lo && off.start < w.hi {
				b = append(b, off)
			}
		}
		out[p.ID] = subtract(normalize(workIntervals(&p.Hours, loc, w.from, w.to)), normalize(b))
	}
	return out
}

// countByDay adds, for each day [bounds[i], bounds[i+1]), the number of
// slots laid by rule in the free intervals. An interval crossing midnight
// is split there, so the days always sum to the total.
func countByDay(free []interval, rule slotRule, bounds []int64, perDay []int) {
	eachDayPiece(free, bounds, func(k int, p interval) {
		_, n := rule.starts(p)
		perDay[k] += n
	})
}

// eachDayPiece calls fn with the pieces of the free intervals cut at the
// day bounds, in order, with each piece's day index. A piece is where slots
// are laid back to back, by capacity (which counts them) and by the free-slot
// list (which names them) alike: that is why the two always agree.
func eachDayPiece(free []interval, bounds []int64, fn func(day int, p interval)) {
	i := 0
	for _, f := range free {
		for i+1 < len(bounds) && bounds[i+1] <= f.start {
			i++
		}
		for s, k := f.start, i; s < f.end && k+1 < len(bounds); k++ {
			end := min(f.end, bounds[k+1])
			if s >= bounds[k] && end > s {
				fn(k, interval{s, end})
			}
			s = max(s, end)
		}
	}
}
