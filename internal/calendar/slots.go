package calendar

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// The bounds and defaults of a free-slots query's days and limit
// (docs/contract.md, Free slots), read by every front door's decoder.
const (
	SlotDaysDefault, SlotDaysMax   = 7, 31
	SlotLimitDefault, SlotLimitMax = 100, 500
	// MaxSlotProfessionals is the most distinct professionals one query
	// names.
	MaxSlotProfessionals = valid.MaxQueryIDs
)

// SlotsQuery is a schema-valid free-slots request (docs/contract.md, Free slots).
type SlotsQuery struct {
	ServiceID       int64
	ProfessionalIDs []int64 // none: every active professional of the service
	StartDate       string  // YYYY-MM-DD; "" is today in the zone
	Days            int     // 1..SlotDaysMax
	Timezone        string  // IANA name; "" is the account's
	Limit           int     // 1..SlotLimitMax
}

// SlotList is the free-slots response's data.
type SlotList struct {
	ServiceID       int64      `json:"service_id"`
	ServiceName     string     `json:"service_name"`
	DurationMinutes int        `json:"duration_minutes"`
	Timezone        string     `json:"timezone"`
	StartDate       string     `json:"start_date"`
	EndDate         string     `json:"end_date"`
	Slots           []OpenSlot `json:"slots"`
	HasMore         bool       `json:"has_more"`
}

// OpenSlot is one bookable start: StartAt/EndAt are wall clock in the
// query's zone without offset (the form booking takes with that timezone),
// the _utc pair the same instants, in UTC to the second (so they encode as
// "2006-01-02T15:04:05Z").
type OpenSlot struct {
	StartAt      string    `json:"start_at"`
	EndAt        string    `json:"end_at"`
	StartAtUTC   time.Time `json:"start_at_utc"`
	EndAtUTC     time.Time `json:"end_at_utc"`
	Professional Ref       `json:"professional"`
}

// wallLayout is a wall-clock reading without offset, as booking takes it.
const wallLayout = "2006-01-02T15:04:05"

// ListFreeSlots names the slots availability counts for one service: for
// each of its active professionals (or the ones asked for), back-to-back
// slots of the service's default duration from the start of each free
// interval, cut at the window's midnights in the query's zone like
// capacity's by_day, so a professional's slot count over a window equals its
// capacity there. Ordered by start, then professional id; the first
// sq.Limit are returned, HasMore says whether more exist. A service that
// needs a room or equipment keeps only the slots one acceptable resource
// is free for (docs/rooms.md). Queries: the catalog (three), the rules,
// and slotEngine's: the window's appointments (professionals' and
// resources' busy time from one read) and holds (two), plus, for a service
// needing a resource, its resources (one), whatever the window.
func ListFreeSlots(ctx context.Context, q db.Querier, acct account.Account, sq SlotsQuery, now time.Time) (SlotList, error) {
	w, err := resolveWindow(acct, sq.Timezone, sq.StartDate, sq.Days, now)
	if err != nil {
		return SlotList{}, err
	}
	cat, err := loadCatalog(ctx, q, acct)
	if err != nil {
		return SlotList{}, err
	}
	services, err := cat.selectServices([]int64{sq.ServiceID})
	if err != nil {
		return SlotList{}, err
	}
	svc := services[0]
	pros, err := svc.selectProfessionals(sq.ProfessionalIDs)
	if err != nil {
		return SlotList{}, err
	}
	rules, err := loadRuleBook(ctx, q, acct)
	if err != nil {
		return SlotList{}, err
	}
	free, pool, err := slotEngine(ctx, q, acct, services, pros, w.from(), w.to(), now, rules)
	if err != nil {
		return SlotList{}, err
	}

	type seat struct {
		start int64
		pro   *professional
	}
	rule := slotRuleOf(svc.Duration, rules.of(svc.ID), now)
	dur := rule.dur
	var seats []seat
	for _, p := range pros {
		eachDayPiece(free[p.ID], w.bounds, func(_ int, f interval) {
			rule.each(f, func(t int64) {
				// A slot past 9999 in UTC cannot be answered nor booked
				// (docs/api-notes.md "Dates and durations").
				if instantsFit(db.Time(t), db.Time(t+dur)) && pool.slotFree(svc, rule, t) {
					seats = append(seats, seat{t, p})
				}
			})
		})
	}
	slices.SortFunc(seats, func(a, b seat) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		return cmp.Compare(a.pro.ID, b.pro.ID)
	})

	out := SlotList{ServiceID: svc.ID, ServiceName: svc.Name, DurationMinutes: svc.Duration, Timezone: w.zone,
		StartDate: w.dateOf(0), EndDate: w.dateOf(w.days - 1), HasMore: len(seats) > sq.Limit}
	seats = seats[:min(len(seats), sq.Limit)]
	out.Slots = make([]OpenSlot, len(seats))
	for i, s := range seats {
		start, end := db.Time(s.start), db.Time(s.start+dur)
		out.Slots[i] = OpenSlot{StartAt: start.In(w.loc).Format(wallLayout), EndAt: end.In(w.loc).Format(wallLayout),
			StartAtUTC: start.UTC().Truncate(time.Second), EndAtUTC: end.UTC().Truncate(time.Second),
			Professional: Ref{ID: s.pro.ID, Name: s.pro.Name}}
	}
	return out, nil
}

// selectProfessionals returns the named professionals of the service,
// ordered by id (every active member when none is named); an id that is not
// an active member is refused with the valid lists, as booking refuses it.
func (s *service) selectProfessionals(ids []int64) ([]*professional, error) {
	if len(ids) == 0 {
		return s.Pros, nil
	}
	cands := make([]choice, len(s.Pros))
	for i, p := range s.Pros {
		cands[i] = choice{p.ID, p.Name}
	}
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make([]*professional, 0, len(ids))
	for _, id := range ids {
		i, err := pickOne(cands, &id, nil, "professional", errs.ProfessionalNotFound, s.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, s.Pros[i])
	}
	return out, nil
}
