package calendar

// The busy time the one slot engine reads (docs/rooms.md, "Free slots";
// docs/booking-rules.md, "How slots are computed"): professionals' and
// resources' alike come from one read of the window's appointments, so a
// service that needs a room costs the engine its resources' list and
// nothing more per appointment.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// busyQuery is what readBusy reads.
type busyQuery struct {
	pros      []int64 // professionals whose busy time is wanted
	resources []int64 // resources whose busy time is wanted
	// lo and hi bound the instants wanted (Unix microseconds): an
	// appointment is read when its span, widened by rules' widest buffer,
	// touches them; time off and holds when they touch them.
	lo, hi int64
	now    int64     // holds are read while live at now
	rules  *ruleBook // nil: appointments are not widened by buffers
	except int64     // an appointment left out (a move's own), 0 none
	// keepHold is a seat offer's entry whose hold is left out: the offer
	// being booked (docs/rooms.md, "Seat offers"), 0 none.
	keepHold int64
}

// busyTime is what readBusy found, by professional and by resource; each
// list is unsorted.
type busyTime struct {
	pros, resources map[int64][]interval
}

// readBusy reads the busy time of q.pros and q.resources: the booked or
// arrived appointments each one holds (widened by their service's buffers
// under q.rules), the resources' time off, and the slots outstanding seat
// offers hold. An appointment of a listed professional holding a listed
// resource is read once and counts for both. Two queries (appointments
// with time off, then holds), none when nothing is asked for; without
// resources the appointments' query is the one the busy index answers
// alone.
func readBusy(ctx context.Context, q db.Querier, acct account.Account, bq busyQuery) (busyTime, error) {
	out := busyTime{pros: make(map[int64][]interval, len(bq.pros)), resources: make(map[int64][]interval, len(bq.resources))}
	if len(bq.pros) == 0 && len(bq.resources) == 0 {
		return out, nil
	}
	isPro := make(map[int64]bool, len(bq.pros))
	for _, id := range bq.pros {
		isPro[id] = true
	}
	isRes := make(map[int64]bool, len(bq.resources))
	for _, id := range bq.resources {
		isRes[id] = true
	}
	widen := int64(0)
	if bq.rules != nil {
		widen = bq.rules.maxBuffer
	}
	// Without buffers (every default) and without resources the service
	// and the resource are not read: the query stays the one the busy
	// index answers alone.
	service, resource := "0", "0"
	if widen > 0 || len(bq.resources) > 0 {
		service = "service_id"
	}
	var (
		who  string
		args = []any{acct.ID, bq.lo - widen, bq.hi + widen}
	)
	proIn, proArgs := db.In(bq.pros)
	resIn, resArgs := db.In(bq.resources)
	switch {
	case len(bq.resources) == 0:
		who = `professional_id IN ` + proIn
		args = append(args, proArgs...)
	case len(bq.pros) == 0:
		who, resource = `resource_id IN `+resIn, "resource_id"
		args = append(args, resArgs...)
	default:
		who, resource = `(professional_id IN `+proIn+` OR resource_id IN `+resIn+`)`, "COALESCE(resource_id, 0)"
		args = append(append(args, proArgs...), resArgs...)
	}
	if bq.except != 0 {
		who += ` AND id <> ?`
		args = append(args, bq.except)
	}
	query := `SELECT professional_id, ` + service + `, ` + resource + `, start_at, end_at FROM appointments
		WHERE account_id = ? AND status IN ('booked', 'arrived') AND end_at > ? AND start_at < ? AND ` + who
	if len(bq.resources) > 0 {
		query += `
		UNION ALL SELECT 0, 0, resource_id, start_at, end_at FROM resource_time_off
		WHERE account_id = ? AND end_at > ? AND start_at < ? AND resource_id IN ` + resIn
		args = append(append(args, acct.ID, bq.lo, bq.hi), resArgs...)
	}
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return out, fmt.Errorf("load appointments: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			pid, sid, rid int64
			iv            interval
		)
		if err := rows.Scan(&pid, &sid, &rid, &iv.start, &iv.end); err != nil {
			return out, err
		}
		if sid != 0 && widen > 0 {
			r := bq.rules.of(sid)
			iv.start -= int64(r.BufferBefore) * microsPerMinute
			iv.end += int64(r.BufferAfter) * microsPerMinute
		}
		if isPro[pid] {
			out.pros[pid] = append(out.pros[pid], iv)
		}
		if isRes[rid] {
			out.resources[rid] = append(out.resources[rid], iv)
		}
	}
	if err := rows.Err(); err != nil {
		return out, err
	}
	rows.Close()
	return out, readHolds(ctx, q, acct, bq, out)
}

// readHolds adds the slots held by outstanding seat offers: busy for
// their professional, and for the resource the offer holds with the slot
// (docs/rooms.md, "Seat offers"), until the hold expires. The hold of
// bq.keepHold (an offer being booked) is left out.
func readHolds(ctx context.Context, q db.Querier, acct account.Account, bq busyQuery, out busyTime) error {
	if len(bq.pros) == 0 && len(bq.resources) == 0 {
		return nil
	}
	proIn, proArgs := db.In(bq.pros)
	resIn, resArgs := db.In(bq.resources)
	args := []any{acct.ID, bq.now, bq.lo, bq.hi}
	var cols, who string
	switch {
	case len(bq.resources) == 0:
		cols, who, args = `offer_professional_id, 0`, `offer_professional_id IN `+proIn, append(args, proArgs...)
	case len(bq.pros) == 0:
		cols, who, args = `0, offer_resource_id`, `offer_resource_id IN `+resIn, append(args, resArgs...)
	default:
		cols, who = `COALESCE(offer_professional_id, 0), COALESCE(offer_resource_id, 0)`,
			`(offer_professional_id IN `+proIn+` OR offer_resource_id IN `+resIn+`)`
		args = append(append(args, proArgs...), resArgs...)
	}
	if bq.keepHold != 0 {
		who += ` AND id <> ?`
		args = append(args, bq.keepHold)
	}
	holds, err := q.Query(ctx, `SELECT `+cols+`, offer_start_at, offer_end_at FROM waitlist_entries
		WHERE account_id = ? AND status = 'queued' AND seat_expires_at > ? AND offer_end_at > ? AND offer_start_at < ? AND `+who, args...)
	if err != nil {
		return fmt.Errorf("load held slots: %w", err)
	}
	defer holds.Close()
	isPro := make(map[int64]bool, len(bq.pros))
	for _, id := range bq.pros {
		isPro[id] = true
	}
	for holds.Next() {
		var (
			pid, rid int64
			iv       interval
		)
		if err := holds.Scan(&pid, &rid, &iv.start, &iv.end); err != nil {
			return err
		}
		if isPro[pid] {
			out.pros[pid] = append(out.pros[pid], iv)
		}
		if rid != 0 && slices.Contains(bq.resources, rid) {
			out.resources[rid] = append(out.resources[rid], iv)
		}
	}
	return holds.Err()
}

// slotEngine reads what the one slot engine needs over [from, to) at now
// for services and their professionals pros: each professional's free
// time (freeTime's) and, when a service needs a resource, the resource
// pool, both from one readBusy.
func slotEngine(ctx context.Context, q db.Querier, acct account.Account, services []*service, pros []*professional,
	from, to, now time.Time, rules *ruleBook) (map[int64][]interval, *resourcePool, error) {
	pool, err := resourceDefs(ctx, q, acct, services)
	if err != nil {
		return nil, nil, err
	}
	sched, ok := scheduleWindow(pros, from, to, now)
	if !ok {
		return map[int64][]interval{}, pool, nil
	}
	bq := busyQuery{pros: sched.ids, lo: sched.lo, hi: sched.hi, now: db.Micros(now), rules: rules}
	if pool != nil {
		bq.resources = pool.ids()
		// The pool answers for slots whose buffers reach past the window.
		bq.lo, bq.hi = resourceSpan(from, to, rules)
	}
	busy, err := readBusy(ctx, q, acct, bq)
	if err != nil {
		return nil, nil, err
	}
	pool.setBusy(busy.resources)
	return sched.free(acct, pros, busy.pros), pool, nil
}
