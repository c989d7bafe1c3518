package calendar

// Rooms and equipment (docs/rooms.md): a service may need one resource of
// a kind or of a list; a slot of it is free only when its professional and
// one acceptable resource are both free, and a booking of it is given the
// first free acceptable resource by id.

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// WarnNoResourceFree is the warning of a booking whose service needs a
// resource when none is free (docs/rooms.md).
const WarnNoResourceFree = "no_resource_free"

// needAnyOf is a service's Need when its acceptable resources are a list.
const needAnyOf = "any_of"

// resource is an active room or piece of equipment.
type resource struct {
	ID   int64
	Name string
	busy []interval // normalized: appointments (widened by buffers) and time off
}

// resourcePool is what the slot engine knows of resources over a window:
// each needing service's acceptable active resources, by id, with their
// busy time (slotEngine, pickResource). nil when no service involved
// needs one: then every check passes and no query ran.
type resourcePool struct {
	accepts map[int64][]*resource // service id -> acceptable resources by id
	used    []*resource           // every resource some service accepts, by id
}

// resourceDefs reads, for the services among services that need a
// resource, their acceptable active resources, without busy time. One
// query, none (and nil) when no service needs a resource.
func resourceDefs(ctx context.Context, q db.Querier, acct account.Account, services []*service) (*resourcePool, error) {
	needing := slices.DeleteFunc(slices.Clone(services), func(s *service) bool { return s.Need == "" })
	if len(needing) == 0 {
		return nil, nil
	}
	rows, err := q.Query(ctx, `SELECT r.id, r.name, r.kind, COALESCE(sr.service_id, 0) FROM resources r
		LEFT JOIN service_resources sr ON sr.account_id = r.account_id AND sr.resource_id = r.id
		WHERE r.account_id = ? AND r.active ORDER BY r.id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("load resources: %w", err)
	}
	byID := map[int64]*resource{}
	var (
		all    []*resource
		kinds  = map[int64]string{}
		listed = map[int64][]int64{} // service id -> resource ids
	)
	for rows.Next() {
		var (
			r    resource
			kind string
			sid  int64
		)
		if err := rows.Scan(&r.ID, &r.Name, &kind, &sid); err != nil {
			rows.Close()
			return nil, err
		}
		if byID[r.ID] == nil {
			rr := r
			byID[r.ID] = &rr
			all = append(all, &rr)
			kinds[r.ID] = kind
		}
		if sid != 0 {
			listed[sid] = append(listed[sid], r.ID)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	pool := &resourcePool{accepts: map[int64][]*resource{}}
	used := map[int64]bool{}
	for _, s := range needing {
		var acc []*resource
		for _, r := range all { // by id
			if (s.Need == needAnyOf && slices.Contains(listed[s.ID], r.ID)) || (s.Need != needAnyOf && kinds[r.ID] == s.Need) {
				acc = append(acc, r)
				used[r.ID] = true
			}
		}
		pool.accepts[s.ID] = acc // none: never free
	}
	for _, r := range all {
		if used[r.ID] {
			pool.used = append(pool.used, r)
		}
	}
	return pool, nil
}

// ids are the pool's resources' ids, ascending.
func (p *resourcePool) ids() []int64 {
	out := make([]int64, len(p.used))
	for i, r := range p.used {
		out[i] = r.ID
	}
	return out
}

// setBusy gives each of the pool's resources its busy time.
func (p *resourcePool) setBusy(busy map[int64][]interval) {
	if p == nil {
		return
	}
	for _, r := range p.used {
		r.busy = normalize(busy[r.ID])
	}
}

// free returns the first acceptable resource of service s free for all of
// [lo, hi), and whether the slot may be taken: true with nil when s needs
// no resource (or the pool is nil), false when every acceptable one is busy.
func (p *resourcePool) free(s *service, lo, hi int64) (*resource, bool) {
	if p == nil || s.Need == "" {
		return nil, true
	}
	for _, r := range p.accepts[s.ID] {
		i := sort.Search(len(r.busy), func(i int) bool { return r.busy[i].end > lo })
		if i == len(r.busy) || r.busy[i].start >= hi {
			return r, true
		}
	}
	return nil, false
}

// slotFree says whether the slot of s starting at t under rule has a free
// acceptable resource over its span widened by its buffers.
func (p *resourcePool) slotFree(s *service, rule slotRule, t int64) bool {
	_, ok := p.free(s, t-rule.before, t+rule.dur+rule.after)
	return ok
}

// resourceSpan is the window the pool must cover for slots laid in
// [from, to) under rules: a slot's buffers reach past the window's edges.
func resourceSpan(from, to time.Time, rules *ruleBook) (int64, int64) {
	widen := int64(0)
	if rules != nil {
		widen = rules.maxBuffer
	}
	return db.Micros(from) - widen, db.Micros(to) + widen
}

// lockResources takes, on PostgreSQL, one lock per resource (in id order,
// so two bookings never wait for each other in a circle) until tx ends.
// SQLite's write transactions already run one at a time.
func lockResources(ctx context.Context, tx *db.Tx, acct account.Account, rs []*resource) error {
	if tx.Dialect().Engine != db.Postgres {
		return nil
	}
	for _, r := range rs { // by id
		h := fnv.New64a()
		fmt.Fprintf(h, "calendar/resource/%d/%d", acct.ID, r.ID)
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(h.Sum64())); err != nil {
			return err
		}
	}
	return nil
}

// countByDay is countByDay for the slots of s: arithmetic when s needs no
// resource, else each start laid is kept only when a resource is free for
// it.
func (p *resourcePool) countByDay(s *service, free []interval, rule slotRule, bounds []int64, perDay []int) {
	if p == nil || s.Need == "" {
		countByDay(free, rule, bounds, perDay)
		return
	}
	eachDayPiece(free, bounds, func(k int, f interval) {
		rule.each(f, func(t int64) {
			if p.slotFree(s, rule, t) {
				perDay[k]++
			}
		})
	})
}

// ResourceRef is the {id, name} of the room or equipment an appointment
// holds (docs/rooms.md).
type ResourceRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// resourcePick is what pickResource is asked: a resource for service
// svc over [start, end) at now.
type resourcePick struct {
	svc        *service
	start, end time.Time
	now        time.Time
	except     int64 // an appointment left out of the busy time (a move's own)
	keepHold   int64 // a seat offer's entry left out of the holds (its own booking)
	prefer     int64 // a resource kept when still free (the one held), 0 none
}

// pickResource is the one rule that gives a resource to a booking, a
// move or a seat offer (docs/rooms.md): prefer when it is free over the
// span widened by the service's buffers, else the first free acceptable
// resource by id, else nil. Free means no booked or arrived appointment
// and no live seat-offer hold takes it there, and no time off touches it.
// It takes each acceptable resource's lock first (PostgreSQL), then reads
// the resources' busy time again, so two racing for the last room never
// both get it; the caller holds the professional's booking lock.
func pickResource(ctx context.Context, tx *db.Tx, acct account.Account, rp resourcePick) (*resource, error) {
	rules, err := loadRuleBook(ctx, tx, acct)
	if err != nil {
		return nil, err
	}
	r := rules.of(rp.svc.ID)
	lo := db.Micros(rp.start) - int64(r.BufferBefore)*microsPerMinute
	hi := db.Micros(rp.end) + int64(r.BufferAfter)*microsPerMinute
	load := func() (*resourcePool, error) {
		pool, err := resourceDefs(ctx, tx, acct, []*service{rp.svc})
		if err != nil || len(pool.used) == 0 {
			return pool, err
		}
		busy, err := readBusy(ctx, tx, acct, busyQuery{resources: pool.ids(), lo: lo, hi: hi, now: db.Micros(rp.now), rules: rules,
			except: rp.except, keepHold: rp.keepHold})
		if err != nil {
			return nil, fmt.Errorf("load resources' busy time: %w", err)
		}
		pool.setBusy(busy.resources)
		return pool, nil
	}
	pool, err := load()
	if err != nil {
		return nil, err
	}
	if err := lockResources(ctx, tx, acct, pool.accepts[rp.svc.ID]); err != nil {
		return nil, err
	}
	if tx.Dialect().Engine == db.Postgres { // what committed while this one waited
		if pool, err = load(); err != nil {
			return nil, err
		}
	}
	var got *resource
	for _, c := range pool.accepts[rp.svc.ID] { // by id
		one := &resourcePool{accepts: map[int64][]*resource{rp.svc.ID: {c}}}
		if _, ok := one.free(rp.svc, lo, hi); !ok {
			continue
		}
		if got == nil || c.ID == rp.prefer {
			got = c
		}
	}
	return got, nil
}

// assignResource gives a booking of b's service its resource by
// pickResource (docs/rooms.md): nil when the service needs none; a seat
// offer's booking keeps the resource its offer held; when none is free,
// nil with the no_resource_free warning, or ErrSlotTaken when b.freeOnly.
func assignResource(ctx context.Context, tx *db.Tx, acct account.Account, b newBooking, now time.Time) (*ResourceRef, []Warning, error) {
	if b.svc.Need == "" {
		return nil, nil, nil
	}
	if err := LockProfessionalTime(ctx, tx, acct, b.pro.ID); err != nil {
		return nil, nil, err
	}
	got, err := pickResource(ctx, tx, acct, resourcePick{svc: b.svc, start: b.start, end: b.end, now: now,
		keepHold: b.keepHoldEntry, prefer: b.heldResource})
	if err != nil {
		return nil, nil, err
	}
	if got != nil {
		return &ResourceRef{ID: got.ID, Name: got.Name}, nil, nil
	}
	if b.freeOnly {
		return nil, nil, ErrSlotTaken
	}
	return nil, []Warning{{Code: WarnNoResourceFree,
		Message: fmt.Sprintf("Service %q needs a room or equipment and none is free for this time; the appointment is booked without one.", b.svc.Name)}}, nil
}

// resourceID is the stored form of an appointment's resource.
func resourceID(r *ResourceRef) any {
	if r == nil {
		return nil
	}
	return r.ID
}

// moveResource gives a moved appointment a resource at its new time
// (docs/rooms.md): the one it holds when still free there, else the first
// free acceptable one by id, else none, with the no_resource_free warning.
// The caller holds the professional's booking lock.
func moveResource(ctx context.Context, tx *db.Tx, acct account.Account, a AppointmentView, now time.Time) ([]Warning, error) {
	cat, err := loadCatalog(ctx, tx, acct)
	if err != nil {
		return nil, err
	}
	svc := cat.byID[a.ServiceID]
	if svc == nil || svc.Need == "" {
		return nil, nil
	}
	var held *int64
	if err := tx.QueryRow(ctx, `SELECT resource_id FROM appointments WHERE account_id = ? AND id = ?`, acct.ID, a.ID).Scan(&held); err != nil {
		return nil, err
	}
	rp := resourcePick{svc: svc, start: a.StartAt, end: a.EndAt, now: now, except: a.ID}
	if held != nil {
		rp.prefer = *held
	}
	got, err := pickResource(ctx, tx, acct, rp)
	if err != nil {
		return nil, err
	}
	var id any
	var warnings []Warning
	if got != nil {
		id = got.ID
	} else {
		warnings = []Warning{{Code: WarnNoResourceFree,
			Message: fmt.Sprintf("Service %q needs a room or equipment and none is free at the new time; the appointment keeps none.", svc.Name)}}
	}
	_, err = tx.Exec(ctx, `UPDATE appointments SET resource_id = ? WHERE account_id = ? AND id = ?`, id, acct.ID, a.ID)
	return warnings, err
}

// SeatResource is the resource a seat offer of slot s holds with it
// (docs/rooms.md, "Seat offers"): the one a booking of s would be given
// now (pickResource), with the holds already written in tx counted. 0
// and true when s's service needs none; false when it needs one and none
// is free, so s cannot be offered. The caller holds the offers' lock
// (which serialises offers as the professional's booking lock serialises
// bookings); the resources' locks are pickResource's.
func SeatResource(ctx context.Context, tx *db.Tx, acct account.Account, s Slot, now time.Time) (int64, bool, error) {
	if s.ResourceID == 0 {
		return 0, true, nil
	}
	cat, err := loadCatalog(ctx, tx, acct)
	if err != nil {
		return 0, false, err
	}
	svc := cat.byID[s.ServiceID]
	if svc == nil || svc.Need == "" {
		return 0, true, nil
	}
	got, err := pickResource(ctx, tx, acct, resourcePick{svc: svc, start: s.Start, end: s.End, now: now})
	if err != nil || got == nil {
		return 0, false, err
	}
	return got.ID, true, nil
}
