package calendar

// A day by room (docs/today.md, "By room"): the account's active rooms and
// equipment with their time off over a window, and which resource each
// appointment of the window holds, for the dashboard's Today grid laid out
// one column per resource.

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ResourceSchedule is an active resource's time within a window: Off is its
// time off (maintenance), clipped to the window, merged and ordered.
type ResourceSchedule struct {
	ID   int64
	Name string
	Kind string // room or equipment
	Off  []TimeRange
}

// ResourceSchedules lists the account's active resources, rooms first then
// equipment, each by name, with their time off touching [from, to). One
// query, and one more for the time off when there is any resource.
func ResourceSchedules(ctx context.Context, q db.Querier, acct account.Account, from, to time.Time) ([]ResourceSchedule, error) {
	rows, err := q.Query(ctx, `SELECT id, name, kind FROM resources WHERE account_id = ? AND active = ?
		ORDER BY CASE kind WHEN 'room' THEN 0 ELSE 1 END, name, id`, acct.ID, true)
	if err != nil {
		return nil, fmt.Errorf("load resources: %w", err)
	}
	var out []ResourceSchedule
	byID := map[int64]int{}
	for rows.Next() {
		var r ResourceSchedule
		if err := rows.Scan(&r.ID, &r.Name, &r.Kind); err != nil {
			rows.Close()
			return nil, err
		}
		byID[r.ID] = len(out)
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, err
	}
	lo, hi := db.Micros(from), db.Micros(to)
	off, err := q.Query(ctx, `SELECT resource_id, start_at, end_at FROM resource_time_off
		WHERE account_id = ? AND end_at > ? AND start_at < ?`, acct.ID, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("load resources' time off: %w", err)
	}
	defer off.Close()
	spans := map[int64][]interval{}
	for off.Next() {
		var (
			id int64
			iv interval
		)
		if err := off.Scan(&id, &iv.start, &iv.end); err != nil {
			return nil, err
		}
		spans[id] = append(spans[id], interval{max(iv.start, lo), min(iv.end, hi)})
	}
	if err := off.Err(); err != nil {
		return nil, err
	}
	for id, iv := range spans {
		if i, ok := byID[id]; ok { // a retired resource's time off is not shown
			out[i].Off = ranges(normalize(iv))
		}
	}
	return out, nil
}

// HeldResource is what an appointment has of rooms and equipment: the
// resource it holds (active or retired), or none while its service needs
// one (Needs).
type HeldResource struct {
	Resource *ResourceRef
	Kind     string // the held resource's: room or equipment
	Needs    bool
}

// HeldResources says, for each appointment starting in [from, to) that
// holds a resource or whose service needs one, which it holds, by
// appointment id. Appointments that neither hold nor need one are left
// out. One query.
func HeldResources(ctx context.Context, q db.Querier, acct account.Account, from, to time.Time) (map[int64]HeldResource, error) {
	rows, err := q.Query(ctx, `SELECT a.id, s.resource_kind, r.id, r.name, r.kind FROM appointments a
		JOIN services s ON s.account_id = a.account_id AND s.id = a.service_id
		LEFT JOIN resources r ON r.account_id = a.account_id AND r.id = a.resource_id
		WHERE a.account_id = ? AND a.start_at >= ? AND a.start_at < ? AND (a.resource_id IS NOT NULL OR s.resource_kind <> '')`,
		acct.ID, db.Micros(from), db.Micros(to))
	if err != nil {
		return nil, fmt.Errorf("load appointments' resources: %w", err)
	}
	defer rows.Close()
	out := map[int64]HeldResource{}
	for rows.Next() {
		var (
			id   int64
			need string
			rid  *int64
			name *string
			kind *string
		)
		if err := rows.Scan(&id, &need, &rid, &name, &kind); err != nil {
			return nil, err
		}
		h := HeldResource{Needs: need != ""}
		if rid != nil && name != nil && kind != nil {
			h.Resource, h.Kind = &ResourceRef{ID: *rid, Name: *name}, *kind
		}
		out[id] = h
	}
	return out, rows.Err()
}
