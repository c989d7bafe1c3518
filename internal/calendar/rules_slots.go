package calendar

// How the booking rules shape the slot engine (docs/booking-rules.md, "How
// slots are computed"): an appointment of service S takes
// [start − S.buffer_before, end + S.buffer_after) of its professional; a
// slot of service T at s is listed when [s − T.buffer_before,
// s + d + T.buffer_after) lies inside one free interval,
// s ≥ now + min_notice and s < now + max_advance. Starts step by
// buffer_before + d + buffer_after from the start of each free interval
// plus buffer_before. With every rule at its default this is back-to-back
// slots of d from the start of each free interval.

import (
	"math"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// microsPerMinute converts the rules' minutes to the engine's microseconds.
const microsPerMinute = int64(time.Minute / time.Microsecond)

// slotRule is how one service's slots are laid, in microseconds.
type slotRule struct {
	before, dur, after int64
	earliest, latest   int64 // a start s is kept when earliest <= s < latest
}

// slotRuleOf lays slots of minutes for a service under r at now.
func slotRuleOf(minutes int, r Rules, now time.Time) slotRule {
	at := db.Micros(now)
	sr := slotRule{before: int64(r.BufferBefore) * microsPerMinute, dur: int64(minutes) * microsPerMinute,
		after: int64(r.BufferAfter) * microsPerMinute, earliest: at + r.MinNotice.Microseconds(), latest: math.MaxInt64}
	if r.MaxAdvance != nil {
		sr.latest = at + r.MaxAdvance.Microseconds()
	}
	return sr
}

// step is the distance between two starts laid in one free interval.
func (r slotRule) step() int64 { return r.before + r.dur + r.after }

// starts returns the first start laid in f and how many there are; the
// k-th is first + k·step. Arithmetic, not a walk: capacity counts with it
// and the slot lists name the same starts.
func (r slotRule) starts(f interval) (first int64, n int) {
	s0 := f.start + r.before
	room := f.end - r.after - r.dur - s0 // the last start may be s0 + room
	if room < 0 {
		return 0, 0
	}
	step := r.step()
	total := room/step + 1
	lo := int64(0)
	if r.earliest > s0 {
		lo = ceilDiv(r.earliest-s0, step)
	}
	hi := total
	if r.latest != math.MaxInt64 {
		hi = min(hi, max(0, ceilDiv(r.latest-s0, step)))
	}
	if hi <= lo {
		return 0, 0
	}
	return s0 + lo*step, int(hi - lo)
}

// each calls fn with every start laid in f, in order.
func (r slotRule) each(f interval, fn func(start int64)) {
	first, n := r.starts(f)
	step := r.step()
	for k := range n {
		fn(first + int64(k)*step)
	}
}

// ceilDiv is ⌈a / b⌉ for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}
