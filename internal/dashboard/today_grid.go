package dashboard

// The Today and week grids: how appointments, working hours, time off and
// held offers are laid out in rows and columns.

import (
	"fmt"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// grid is a day or a week laid out as a CSS grid: column 1 holds the times,
// then each column (a professional on a day) takes as many grid columns as
// it needs lanes for overlapping items; row 1 holds the headings, then a
// row per gridStep minutes from First.
type grid struct {
	First, Last int // minutes from midnight of the first and last row edge
	Now         *gridNow
	Columns     []*gridColumn
	Times       []gridTime
	Rows        int // time rows
	Cols        int // grid columns after the time column
}

type gridTime struct {
	Row  int
	Text string
}

// gridColumn is one professional on one day, or by room one resource
// (today_rooms.go).
type gridColumn struct {
	Day     time.Time // midnight in the account's zone
	ProID   int64
	ProName string
	Col     int // first grid column line
	Lanes   int
	Work    []gridSpan // working hours
	Off     []gridSpan // time off
	Items   []*gridItem
	Room    *roomHead // by room: the resource (or none) the column shows

	work, off []calendar.TimeRange // what Work and Off show, laid out by layout
}

type gridSpan struct{ Row, RowEnd int }

// gridItem is an appointment, a held slot or a free gap: exactly one of
// Appt, Hold and Gap is set.
type gridItem struct {
	Start, End  time.Time
	Row, RowEnd int
	Col         int
	lane        int
	Appt        *calendar.AppointmentView
	Marks       []string // the statuses it may be marked now (calendar.CanMarkStatus)
	CanUndo     bool     // its last status change is today's: it may be undone
	Hold        *waitlist.OfferedSlot
	Gap         *gapView
}

// minuteOf is t's wall-clock minute counted from day (midnight), so an
// item running past midnight ends after 24*60.
func minuteOf(day, t time.Time, loc *time.Location) int {
	lt := t.In(loc)
	if lt.Year() == day.Year() && lt.YearDay() == day.YearDay() {
		return lt.Hour()*60 + lt.Minute()
	}
	if lt.Before(day) {
		return 0
	}
	return 24*60 + lt.Hour()*60 + lt.Minute()
}

// layout places the columns' items on rows and lanes, and sizes the grid to
// the working hours and items of all columns (09:00-18:00 when empty).
func (g *grid) layout(loc *time.Location) {
	lo, hi := 24*60, 0
	widen := func(day, s, e time.Time) {
		a := minuteOf(day, s, loc)
		b := a + int(e.Sub(s).Minutes())
		lo, hi = min(lo, a), max(hi, b)
	}
	for _, c := range g.Columns {
		for _, it := range c.Items {
			widen(c.Day, it.Start, it.End)
		}
		for _, r := range c.work {
			widen(c.Day, r.Start, r.End)
		}
	}
	if lo >= hi {
		lo, hi = 9*60, 18*60
	}
	lo = max(lo/30*30, 0)
	hi = min((hi+29)/30*30, 48*60)
	g.First, g.Last = lo, hi
	g.Rows = (hi - lo) / gridStep
	row := func(m int) int { return 2 + (min(max(m, lo), hi)-lo)/gridStep }
	rowEnd := func(m int) int { return 2 + (min(max(m, lo), hi)-lo+gridStep-1)/gridStep }
	span := func(day, s, e time.Time) (int, int) {
		a := minuteOf(day, s, loc)
		b := a + int(e.Sub(s).Minutes())
		r, re := row(a), rowEnd(b)
		if re <= r {
			re = r + 1
		}
		return r, re
	}
	col := 2
	for _, c := range g.Columns {
		slices.SortStableFunc(c.Items, func(a, b *gridItem) int { return a.Start.Compare(b.Start) })
		var laneEnd []int // the row each lane is busy until
		for _, it := range c.Items {
			it.Row, it.RowEnd = span(c.Day, it.Start, it.End)
			it.lane = -1
			for i, e := range laneEnd {
				if e <= it.Row {
					it.lane = i
					break
				}
			}
			if it.lane < 0 {
				it.lane = len(laneEnd)
				laneEnd = append(laneEnd, 0)
			}
			laneEnd[it.lane] = it.RowEnd
		}
		c.Lanes = max(len(laneEnd), 1)
		c.Col = col
		for _, it := range c.Items {
			it.Col = col + it.lane
		}
		col += c.Lanes
	}
	g.Cols = col - 2
	for _, c := range g.Columns {
		c.Work, c.Off = g.spans(c, loc, c.work), g.spans(c, loc, c.off)
	}
	for m := lo; m < hi; m += 30 {
		g.Times = append(g.Times, gridTime{Row: row(m), Text: fmt.Sprintf("%02d:%02d", m/60%24, m%60)})
	}
}

// gridNow is the line at the current time: on its row, Frac of the way
// down it, across Col..ColEnd (grid column lines).
type gridNow struct {
	Row, Col, ColEnd int
	Frac             string // 0 to 0.8, for the CSS
	Minute           int    // minutes from First, for static/app.js to move it
	Text             string // the time, HH:MM
}

// placeNow puts the now line on today's column(s) when the time shown
// includes now: every column in the day view, today's in a week.
func (g *grid) placeNow(now, today time.Time, loc *time.Location) {
	m := minuteOf(today, now, loc)
	if m < g.First || m >= g.Last {
		return
	}
	col, end := 0, 0
	for _, c := range g.Columns {
		if c.Day.Equal(today) {
			if col == 0 {
				col = c.Col
			}
			end = c.Col + c.Lanes
		}
	}
	if col == 0 {
		return
	}
	off := m - g.First
	g.Now = &gridNow{Row: 2 + off/gridStep, Col: col, ColEnd: end, Frac: fmt.Sprintf("%.1f", float64(off%gridStep)/gridStep),
		Minute: off, Text: fmt.Sprintf("%02d:%02d", m/60%24, m%60)}
}

// spans turns time ranges of a column's day into grid rows.
func (g *grid) spans(c *gridColumn, loc *time.Location, rs []calendar.TimeRange) []gridSpan {
	var out []gridSpan
	for _, r := range rs {
		a := minuteOf(c.Day, r.Start, loc)
		b := a + int(r.End.Sub(r.Start).Minutes())
		a, b = max(a, g.First), min(b, g.Last)
		if a < b {
			out = append(out, gridSpan{2 + (a-g.First)/gridStep, 2 + (b-g.First+gridStep-1)/gridStep})
		}
	}
	return out
}

// dayOf is the midnight starting t's day in loc.
func dayOf(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// within keeps the ranges of rs inside [from, to).
func within(rs []calendar.TimeRange, from, to time.Time) []calendar.TimeRange {
	var out []calendar.TimeRange
	for _, r := range rs {
		if r.End.After(from) && r.Start.Before(to) {
			out = append(out, calendar.TimeRange{Start: maxTime(r.Start, from), End: minTime(r.End, to)})
		}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
