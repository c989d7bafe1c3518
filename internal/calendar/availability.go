package calendar

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// AvailabilityQuery is a schema-valid availability request.
type AvailabilityQuery struct {
	StartDate  string // YYYY-MM-DD; "" is today in the zone
	Days       int    // 1..90
	Timezone   string // IANA name; "" is the account's
	ServiceIDs []int64
}

// Availability is the availability response's data.
type Availability struct {
	StartDate string            `json:"start_date"`
	EndDate   string            `json:"end_date"`
	Timezone  string            `json:"timezone"`
	Days      int               `json:"days"`
	Services  []ServiceCapacity `json:"services"`
}

// ServiceCapacity is one service's bookable capacity over the window.
type ServiceCapacity struct {
	ServiceID       int64                  `json:"service_id"`
	ServiceName     string                 `json:"service_name"`
	DurationMinutes int                    `json:"duration_minutes"`
	Capacity        int                    `json:"capacity"`
	Professionals   []ProfessionalCapacity `json:"professionals"`
	ByDay           []DayCapacity          `json:"by_day"`
}

// ProfessionalCapacity is one professional's share of a service's capacity.
type ProfessionalCapacity struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Capacity int    `json:"capacity"`
}

// DayCapacity is a service's capacity on one day of the window.
type DayCapacity struct {
	Date     string `json:"date"`
	Capacity int    `json:"capacity"`
}

// ComputeAvailability counts, per service, the back-to-back slots of the
// service's default duration that fit into its active professionals' free
// working time over the window's days (in the query's zone): working hours
// (in the account's zone) minus booked appointments and time off, never
// before now; a service needing a room or equipment counts only the slots
// one acceptable resource is free for (docs/rooms.md). It is an upper bound: a free hour counts for every service the
// professional offers. Queries: the catalog (three) and the window's
// appointments of every professional involved (one), whatever the window.
func ComputeAvailability(ctx context.Context, q db.Querier, acct account.Account, aq AvailabilityQuery, now time.Time) (Availability, error) {
	w, err := resolveWindow(acct, aq.Timezone, aq.StartDate, aq.Days, now)
	if err != nil {
		return Availability{}, err
	}
	days, bounds, dateOf := w.days, w.bounds, w.dateOf

	cat, err := loadCatalog(ctx, q, acct)
	if err != nil {
		return Availability{}, err
	}
	services, err := cat.selectServices(aq.ServiceIDs)
	if err != nil {
		return Availability{}, err
	}
	rules, err := loadRuleBook(ctx, q, acct)
	if err != nil {
		return Availability{}, err
	}
	free, pool, err := slotEngine(ctx, q, acct, services, professionalsOf(services), w.from(), w.to(), now, rules)
	if err != nil {
		return Availability{}, err
	}

	out := Availability{StartDate: dateOf(0), EndDate: dateOf(days - 1), Timezone: w.zone, Days: days,
		Services: make([]ServiceCapacity, 0, len(services))}
	perDay := make([]int, days)
	for _, s := range services {
		sc := ServiceCapacity{ServiceID: s.ID, ServiceName: s.Name, DurationMinutes: s.Duration,
			Professionals: make([]ProfessionalCapacity, 0, len(s.Pros)), ByDay: make([]DayCapacity, days)}
		for i := range sc.ByDay {
			sc.ByDay[i].Date = dateOf(i)
		}
		rule := slotRuleOf(s.Duration, rules.of(s.ID), now)
		for _, p := range s.Pros {
			clear(perDay)
			pool.countByDay(s, free[p.ID], rule, bounds, perDay)
			total := 0
			for i, n := range perDay {
				total += n
				sc.ByDay[i].Capacity += n
			}
			sc.Professionals = append(sc.Professionals, ProfessionalCapacity{ID: p.ID, Name: p.Name, Capacity: total})
			sc.Capacity += total
		}
		out.Services = append(out.Services, sc)
	}
	return out, nil
}

// window is a query's run of whole days in its zone.
type window struct {
	zone string
	loc  *time.Location
	days int
	// Day i of the window is [bounds[i], bounds[i+1]) in Unix microseconds.
	bounds  []int64
	y, m, d int
}

// dateOf returns day i of the window as YYYY-MM-DD.
func (w *window) dateOf(i int) string {
	return time.Date(w.y, time.Month(w.m), w.d+i, 12, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// from and to are the window's first and last instants (to excluded).
func (w *window) from() time.Time { return db.Time(w.bounds[0]) }
func (w *window) to() time.Time   { return db.Time(w.bounds[w.days]) }

// resolveWindow reads the zone (the account's when "") and the first day
// (today in the zone when "") of a window of days.
func resolveWindow(acct account.Account, zone, startDate string, days int, now time.Time) (*window, error) {
	if zone == "" {
		zone = acct.Timezone
	}
	loc, ok := LoadZone(zone)
	if !ok {
		return nil, errs.WithDetails(errs.InvalidTimezone, map[string]any{"field": "timezone", "value": zone},
			"timezone %q is not an IANA time zone name (e.g. Europe/Madrid).", zone)
	}
	var (
		y int
		m time.Month
		d int
	)
	if startDate == "" {
		y, m, d = now.In(loc).Date()
	} else {
		t, ok := ParseDate(startDate, time.UTC)
		if !ok {
			return nil, errs.WithDetails(errs.ValidationError, map[string]any{"field": "start_date"}, "start_date must be YYYY-MM-DD.")
		}
		y, m, d = t.Date()
	}
	// The doors refuse a window past LastDate as a schema problem
	// (CheckWindow); this guards any caller that did not.
	if DaysWithin(time.Date(y, m, d, 0, 0, 0, 0, time.UTC), days) < days {
		return nil, errs.WithDetails(errs.ValidationError, map[string]any{"field": "start_date", "latest": LatestStart(days)},
			"A window of %d days must start by %s (days end at %s).", days, LatestStart(days), LastDate)
	}
	w := &window{zone: zone, loc: loc, days: days, bounds: make([]int64, days+1), y: y, m: int(m), d: d}
	for i := range w.bounds {
		w.bounds[i] = db.Micros(time.Date(y, m, d+i, 0, 0, 0, 0, loc))
	}
	return w, nil
}

// selectServices returns the named services ordered by id (every active one
// when none is named); an unknown, inactive or foreign id is refused with the
// valid lists.
func (c *catalog) selectServices(ids []int64) ([]*service, error) {
	if len(ids) == 0 {
		return c.services, nil
	}
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make([]*service, 0, len(ids))
	for _, id := range ids {
		s := c.byID[id]
		if s == nil {
			cands := make([]choice, len(c.services))
			for i, s := range c.services {
				cands[i] = choice{s.ID, s.Name}
			}
			ns, vids := validLists(cands)
			return nil, errs.WithDetails(errs.ServiceNotFound, map[string]any{"field": "service_id", "value": id,
				"valid_service_names": ns, "valid_service_ids": vids},
				"service_id %d is not a bookable service; see details for the accepted ones.", id)
		}
		out = append(out, s)
	}
	return out, nil
}

// professionalsOf returns the distinct professionals of services.
func professionalsOf(services []*service) []*professional {
	seen := map[int64]bool{}
	var out []*professional
	for _, s := range services {
		for _, p := range s.Pros {
			if !seen[p.ID] {
				seen[p.ID] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// Slot is one seat that could be booked: a professional free for a whole
// default duration of the service.
type Slot struct {
	ServiceID      int64
	ProfessionalID int64
	Start, End     time.Time
	// ResourceID is the first free acceptable resource by id when the
	// slots were listed (docs/rooms.md), 0 when the service needs none.
	// A seat offer holds the one SeatResource picks when it is made.
	ResourceID int64
}

// FreeSlots lists the seats in [from, to), never before now, that the same
// computation as availability counts: for each service (every active one
// when serviceIDs is empty; unknown ids are skipped) and each of its active
// professionals, back-to-back slots of the service's default duration laid
// from the start of each free interval. The same free time appears under
// every service the professional offers, so a caller offering several seats
// must re-check after each booking. Ordered by start, then service, then
// professional. Waiting-list seat offers read capacity through it.
func FreeSlots(ctx context.Context, q db.Querier, acct account.Account, serviceIDs []int64, from, to, now time.Time) ([]Slot, error) {
	cat, err := loadCatalog(ctx, q, acct)
	if err != nil {
		return nil, err
	}
	services := cat.services
	if len(serviceIDs) > 0 {
		services = nil
		for _, s := range cat.services {
			if slices.Contains(serviceIDs, s.ID) {
				services = append(services, s)
			}
		}
	}
	rules, err := loadRuleBook(ctx, q, acct)
	if err != nil {
		return nil, err
	}
	free, pool, err := slotEngine(ctx, q, acct, services, professionalsOf(services), from, to, now, rules)
	if err != nil {
		return nil, err
	}
	var out []Slot
	for _, s := range services {
		rule := slotRuleOf(s.Duration, rules.of(s.ID), now)
		for _, p := range s.Pros {
			for _, f := range free[p.ID] {
				rule.each(f, func(t int64) {
					r, ok := pool.free(s, t-rule.before, t+rule.dur+rule.after)
					if !ok {
						return
					}
					slot := Slot{ServiceID: s.ID, ProfessionalID: p.ID, Start: db.Time(t), End: db.Time(t + rule.dur)}
					if r != nil {
						slot.ResourceID = r.ID
					}
					out = append(out, slot)
				})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		if a.ServiceID != b.ServiceID {
			return a.ServiceID < b.ServiceID
		}
		return a.ProfessionalID < b.ProfessionalID
	})
	return out, nil
}
