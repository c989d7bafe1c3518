package dashboard

// Today by room (docs/today.md, "By room"): the same day laid out with a
// column per active room, then per active piece of equipment, each showing
// the appointments that hold it and its time off (maintenance); a column
// for a retired resource that still holds one of the day's appointments;
// and a last "No room" column for the appointments whose service needs a
// resource and hold none. Working hours are the union of the active
// professionals'. Free gaps, held offers and drag to move stay in the view
// by professional.

import (
	"context"
	"net/url"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
)

// roomHead is what a column by room is: a resource (Retired when it is no
// longer active) or, None, the appointments that need one and hold none.
type roomHead struct {
	Name, Kind string
	Retired    bool
	None       bool
}

// roomGrid lays a day's appointments on g by the resource they hold.
type roomGrid struct {
	g      *grid
	day    time.Time
	work   []calendar.TimeRange // every column's working hours
	byID   map[int64]*gridColumn
	none   *gridColumn
	held   map[int64]calendar.HeldResource
	Unroom int // the day's shown appointments that neither hold nor need a resource
}

// newRoomGrid adds a column to g per active resource (rooms, then
// equipment, each by name) with its time off on day, and reads which
// resource each of the day's appointments holds.
func newRoomGrid(ctx context.Context, q db.Querier, acct account.Account, g *grid, day time.Time,
	rooms []calendar.ResourceSchedule, scheds []calendar.ProfessionalSchedule) (*roomGrid, error) {
	next := day.AddDate(0, 0, 1)
	held, err := calendar.HeldResources(ctx, q, acct, day, next)
	if err != nil {
		return nil, err
	}
	rg := &roomGrid{g: g, day: day, work: unionWork(scheds, day, next), byID: map[int64]*gridColumn{}, held: held}
	for _, r := range rooms {
		c := rg.add(&roomHead{Name: r.Name, Kind: r.Kind})
		c.off = within(r.Off, day, next)
		rg.byID[r.ID] = c
	}
	return rg, nil
}

func (rg *roomGrid) add(h *roomHead) *gridColumn {
	c := &gridColumn{Day: rg.day, Room: h, work: rg.work}
	rg.g.Columns = append(rg.g.Columns, c)
	return c
}

// column is the column of the day's appointment a: its resource's (a
// retired one's added after the active ones), the "No room" column's
// when its service needs one and it holds none, else nil (counted in
// Unroom).
func (rg *roomGrid) column(a *calendar.AppointmentView) *gridColumn {
	h, ok := rg.held[a.ID]
	switch {
	case !ok:
		rg.Unroom++
		return nil
	case h.Resource != nil:
		c := rg.byID[h.Resource.ID]
		if c == nil {
			c = rg.add(&roomHead{Name: h.Resource.Name, Kind: h.Kind, Retired: true})
			rg.byID[h.Resource.ID] = c
		}
		return c
	default:
		if rg.none == nil {
			rg.none = &gridColumn{Day: rg.day, Room: &roomHead{None: true}, work: rg.work}
		}
		return rg.none
	}
}

// finish puts the "No room" column last, when there is one.
func (rg *roomGrid) finish() {
	if rg.none != nil {
		rg.g.Columns = append(rg.g.Columns, rg.none)
	}
}

// unionWork is the time on [day, next) when at least one active
// professional works: the room columns' working hours.
func unionWork(scheds []calendar.ProfessionalSchedule, day, next time.Time) []calendar.TimeRange {
	var all []calendar.TimeRange
	for _, p := range scheds {
		all = append(all, within(p.Work, day, next)...)
	}
	slices.SortFunc(all, func(a, b calendar.TimeRange) int { return a.Start.Compare(b.Start) })
	var out []calendar.TimeRange
	for _, r := range all {
		if n := len(out); n > 0 && !r.Start.After(out[n-1].End) {
			out[n-1].End = maxTime(out[n-1].End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

// byLink is this page's address (without freed) laid out by professional
// (by "") or by room (by "room").
func byLink(u *url.URL, by string) string {
	q := u.Query()
	q.Del("freed")
	q.Del("by")
	if by != "" {
		q.Set("by", by)
	}
	if len(q) == 0 {
		return u.Path
	}
	return u.Path + "?" + q.Encode()
}
