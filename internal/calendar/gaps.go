package calendar

// A professional's free gaps (docs/today.md): the free intervals the slot
// engine computes (working hours less time off, appointments with their
// buffers and slots held by seat offers, never before now), each with the
// starts of every service the professional offers that fits in it under
// that service's booking rules. The Today grid shows them whatever service
// it was asked about, so no column looks unbookable.

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// FreeGap is one free interval of a professional.
type FreeGap struct {
	ProfessionalID   int64
	ProfessionalName string
	Start, End       time.Time
	// Fits lists the professional's services with at least one start in
	// the gap, ordered by service id; Starts holds those starts.
	Fits []GapService
}

// GapService is a service that fits in a gap and the starts the slot
// engine lays for it there (the same ones ListFreeSlots lists).
type GapService struct {
	ServiceID   int64
	ServiceName string
	Minutes     int
	Starts      []time.Time
}

// FreeGaps returns the free gaps in [from, to) at now of every active
// professional who offers at least one active service (or only of
// professionalID when it is not 0), ordered by professional id, then start.
// Gaps where no service fits are left out. Queries: the catalog (three),
// the rules and slotEngine's (two; one more when a service needs a
// resource), whatever the window.
func FreeGaps(ctx context.Context, q db.Querier, acct account.Account, from, to time.Time, professionalID int64, now time.Time) ([]FreeGap, error) {
	cat, err := loadCatalog(ctx, q, acct)
	if err != nil {
		return nil, err
	}
	pros := professionalsOf(cat.services)
	slices.SortFunc(pros, func(a, b *professional) int { return cmp.Compare(a.ID, b.ID) })
	if professionalID != 0 {
		var keep []*professional
		for _, p := range pros {
			if p.ID == professionalID {
				keep = append(keep, p)
			}
		}
		pros = keep
	}
	rules, err := loadRuleBook(ctx, q, acct)
	if err != nil {
		return nil, err
	}
	free, pool, err := slotEngine(ctx, q, acct, cat.services, pros, from, to, now, rules)
	if err != nil {
		return nil, err
	}
	offered := map[int64][]*service{}
	for _, s := range cat.services { // by id
		for _, p := range s.Pros {
			offered[p.ID] = append(offered[p.ID], s)
		}
	}
	var out []FreeGap
	for _, p := range pros {
		for _, f := range free[p.ID] {
			g := FreeGap{ProfessionalID: p.ID, ProfessionalName: p.Name, Start: db.Time(f.start), End: db.Time(f.end)}
			for _, s := range offered[p.ID] {
				rule := slotRuleOf(s.Duration, rules.of(s.ID), now)
				gs := GapService{ServiceID: s.ID, ServiceName: s.Name, Minutes: s.Duration}
				rule.each(f, func(t int64) {
					if instantsFit(db.Time(t), db.Time(t+rule.dur)) && pool.slotFree(s, rule, t) {
						gs.Starts = append(gs.Starts, db.Time(t))
					}
				})
				if len(gs.Starts) > 0 {
					g.Fits = append(g.Fits, gs)
				}
			}
			if len(g.Fits) > 0 {
				out = append(out, g)
			}
		}
	}
	return out, nil
}
