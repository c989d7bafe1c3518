// Package waitlist owns waiting lists and their entries: a client waiting
// for a service, ranked by priority and age, until a seat is booked or the
// entry is removed or expires.
//
// It adds clients one at a time (idempotent per client and service) or in
// batches of up to 500 rows (set-based: a constant number of queries per
// batch, in one transaction), lists, reads and removes entries, and sums up
// the lists for the dashboard's overview. The database guarantees the
// product's central rule — at most one open entry per (client, service) —
// through a partial unique index; the code never relies on a check alone.
package waitlist

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Entry statuses (docs/contract.md, Waiting-list entries). The first three are open: they hold the
// client's place in the queue; the rest are resolved.
const (
	StatusWaiting = "waiting"
	StatusQueued  = "queued"
	StatusSnoozed = "snoozed"
	StatusBooked  = "booked"
	StatusRemoved = "removed"
	StatusExpired = "expired"
)

// Entry sources.
const (
	SourceAPI      = "api"
	SourceAPIBatch = "api_batch"
)

// DefaultPriority is "normal" (0 urgent, 1 high, 2 normal, 3 low).
const DefaultPriority = 2

// DefaultRemovalReason is the resolution_reason of an entry removed through
// the API without a reason.
const DefaultRemovalReason = "removed_via_api"

// TimePreferences are the accepted time_preference values; "any" means no
// preferred window.
var TimePreferences = []string{"any", "morning", "afternoon", "evening"}

// Statuses lists every entry status, for the list filter.
var Statuses = []string{StatusWaiting, StatusQueued, StatusSnoozed, StatusBooked, StatusRemoved, StatusExpired}

// openStatuses is the SQL list of open statuses. It must stay textually equal
// to the predicate of the partial unique index waitlist_entries_open, so
// that ON CONFLICT can name that index on both engines.
const openStatuses = `('waiting', 'queued', 'snoozed')`

// onConflictOpen makes an insert that would create a second open entry for a
// (client, service) a no-op.
const onConflictOpen = `ON CONFLICT (account_id, client_id, service_id) WHERE status IN ` + openStatuses + ` DO NOTHING`

// IsOpen reports whether status holds a place in the queue.
func IsOpen(status string) bool {
	return status == StatusWaiting || status == StatusQueued || status == StatusSnoozed
}

// tsOrNil is a stored instant, nil when unset: UTC to the microsecond
// (db.Time), so JSON writes it as clock.Format does.
func tsOrNil(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := db.Time(v.Int64)
	return &t
}

// List is a waiting list as the use cases need it.
type List struct {
	ID          int64
	Name        string
	Active      bool
	HorizonDays int
	LastRunAt   sql.NullInt64
	NextRunAt   sql.NullInt64
}

const listColumns = `w.id, w.name, w.active, w.horizon_days, w.last_run_at, w.next_run_at`

func scanList(row interface{ Scan(...any) error }) (List, error) {
	var l List
	err := row.Scan(&l.ID, &l.Name, &l.Active, &l.HorizonDays, &l.LastRunAt, &l.NextRunAt)
	return l, err
}

// loadList returns a non-deleted list of acct: NOT_FOUND when it is unknown
// (or another account's), WAITLIST_INACTIVE when it is paused.
func loadList(ctx context.Context, q db.Querier, acct account.Account, id int64) (List, error) {
	l, err := scanList(q.QueryRow(ctx, `SELECT `+listColumns+` FROM waitlists w
		WHERE w.account_id = ? AND w.id = ? AND w.deleted_at IS NULL`, acct.ID, id))
	if db.IsNoRows(err) {
		return List{}, errs.WithDetails(errs.NotFound, map[string]any{"waitlist_id": id}, "Waiting list %d not found.", id)
	}
	if err != nil {
		return List{}, fmt.Errorf("load waiting list: %w", err)
	}
	if !l.Active {
		return List{}, errs.WithDetails(errs.WaitlistInactive, map[string]any{"waitlist_id": id},
			"Waiting list %d (%s) is inactive; entries cannot be added to it.", id, l.Name)
	}
	return l, nil
}

// Service is a bookable service as waiting lists name it.
type Service struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// nameKey is how service names are compared: exact name, case-insensitive
// (surrounding spaces ignored).
func nameKey(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// catalog is what routing a service to a list needs: the account's active
// services, its non-deleted lists, and which list holds which service.
type catalog struct {
	services map[int64]Service
	byName   map[string][]Service
	lists    map[int64]List
	members  map[int64][]int64 // service id -> ids of the lists holding it, ascending
	order    []int64           // service ids, ascending
}

func loadCatalog(ctx context.Context, q db.Querier, acct account.Account) (*catalog, error) {
	c := &catalog{services: map[int64]Service{}, byName: map[string][]Service{}, lists: map[int64]List{}, members: map[int64][]int64{}}
	rows, err := q.Query(ctx, `SELECT id, name FROM services WHERE account_id = ? AND active ORDER BY id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("load services: %w", err)
	}
	for rows.Next() {
		var s Service
		if err := rows.Scan(&s.ID, &s.Name); err != nil {
			rows.Close()
			return nil, err
		}
		c.services[s.ID] = s
		c.byName[nameKey(s.Name)] = append(c.byName[nameKey(s.Name)], s)
		c.order = append(c.order, s.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.Query(ctx, `SELECT `+listColumns+` FROM waitlists w WHERE w.account_id = ? AND w.deleted_at IS NULL ORDER BY w.id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("load waiting lists: %w", err)
	}
	for rows.Next() {
		l, err := scanList(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		c.lists[l.ID] = l
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.Query(ctx, `SELECT ws.service_id, ws.waitlist_id FROM waitlist_services ws
		JOIN waitlists w ON w.account_id = ws.account_id AND w.id = ws.waitlist_id AND w.deleted_at IS NULL
		WHERE ws.account_id = ? ORDER BY ws.service_id, ws.waitlist_id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("load waiting list services: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sid, wid int64
		if err := rows.Scan(&sid, &wid); err != nil {
			return nil, err
		}
		c.members[sid] = append(c.members[sid], wid)
	}
	return c, rows.Err()
}

// inList reports whether list holds service.
func (c *catalog) inList(serviceID, listID int64) bool {
	for _, w := range c.members[serviceID] {
		if w == listID {
			return true
		}
	}
	return false
}

// activeListOf is the list a service is routed to when the caller names
// none: the oldest active list holding it.
func (c *catalog) activeListOf(serviceID int64) (List, bool) {
	for _, w := range c.members[serviceID] {
		if l := c.lists[w]; l.Active {
			return l, true
		}
	}
	return List{}, false
}

// accepted returns the services a request may name: those of list when
// listID is set, else those held by some active list.
func (c *catalog) accepted(listID int64) (names []string, ids []int64) {
	names, ids = []string{}, []int64{}
	for _, sid := range c.order {
		ok := false
		if listID != 0 {
			ok = c.inList(sid, listID)
		} else {
			_, ok = c.activeListOf(sid)
		}
		if ok {
			names = append(names, c.services[sid].Name)
			ids = append(ids, sid)
		}
	}
	return names, ids
}

// listServices loads the services of one list, by id and by name.
func listServices(ctx context.Context, q db.Querier, acct account.Account, listID int64) (map[int64]Service, map[string][]Service, error) {
	rows, err := q.Query(ctx, `SELECT s.id, s.name FROM waitlist_services ws JOIN services s ON s.account_id = ws.account_id AND s.id = ws.service_id
		WHERE ws.account_id = ? AND ws.waitlist_id = ? AND s.active ORDER BY s.id`, acct.ID, listID)
	if err != nil {
		return nil, nil, fmt.Errorf("load list services: %w", err)
	}
	defer rows.Close()
	byID, byName := map[int64]Service{}, map[string][]Service{}
	for rows.Next() {
		var s Service
		if err := rows.Scan(&s.ID, &s.Name); err != nil {
			return nil, nil, err
		}
		byID[s.ID] = s
		byName[nameKey(s.Name)] = append(byName[nameKey(s.Name)], s)
	}
	return byID, byName, rows.Err()
}

// professional is a calendar profile a client may prefer.
type professional struct {
	ID     int64
	Name   string
	Active bool
}

// loadProfessionals loads acct's professionals with these ids (all of them
// when ids is nil), in one query.
func loadProfessionals(ctx context.Context, q db.Querier, acct account.Account, ids []int64) (map[int64]professional, error) {
	query, args := `SELECT id, name, active FROM professionals WHERE account_id = ?`, []any{acct.ID}
	if ids != nil {
		if len(ids) == 0 {
			return map[int64]professional{}, nil
		}
		in, more := db.In(uniq(ids))
		query += ` AND id IN ` + in
		args = append(args, more...)
	}
	rows, err := q.Query(ctx, query+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("load professionals: %w", err)
	}
	defer rows.Close()
	out := map[int64]professional{}
	for rows.Next() {
		var p professional
		if err := rows.Scan(&p.ID, &p.Name, &p.Active); err != nil {
			return nil, err
		}
		out[p.ID] = p
	}
	return out, rows.Err()
}

func uniq[T comparable](vals []T) []T {
	seen := make(map[T]bool, len(vals))
	out := make([]T, 0, len(vals))
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func sortedIDs(m map[int64]bool) []int64 {
	out := make([]int64, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
