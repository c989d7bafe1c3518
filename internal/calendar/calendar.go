// Package calendar is the bookable side of an account: its services, the
// professionals (calendar profiles) and event types each service offers,
// booking an appointment from an outside system, and the free capacity the
// professionals' working hours leave.
//
// One catalog feeds all three endpoints, so the services list shows exactly
// the ids and names that booking accepts and availability counts: an active
// service, its active member professionals and its active offered event
// types. Names are compared folded (names.Fold), never auto-picked, and a
// refusal always lists what would have been accepted.
package calendar

import (
	"context"
	"fmt"
	"sort"
	"time"
	_ "time/tzdata" // IANA zones are part of the contract; don't depend on the host's zoneinfo

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/names"
	"github.com/frontdesk/frontdesk/internal/readcache"
)

// Ref is the {id, name} shape of professionals and event types in the
// services list.
type Ref struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// Service is a bookable service as the services list shows it.
type Service struct {
	ID                     int64  `json:"id"`
	Name                   string `json:"name"`
	DefaultDurationMinutes int    `json:"default_duration_minutes"`
	Professionals          []Ref  `json:"professionals"`
	EventTypes             []Ref  `json:"event_types"`
}

// service is a catalog entry: an active service with its active member
// professionals and active offered event types, each ordered by id.
type service struct {
	ID       int64
	Name     string
	Color    string
	Duration int // minutes
	Pros     []*professional
	Types    []eventType
	// Need is what resource it needs (docs/rooms.md): "" none, a kind
	// (room, equipment), or "any_of" (its service_resources).
	Need string
}

// professional is an active calendar profile with its schedule.
type professional struct {
	ID      int64
	Name    string
	Hours   weekHours  // account timezone
	TimeOff []interval // instants
}

type eventType struct {
	ID    int64
	Name  string
	Color string
}

// catalog is everything an account offers for booking, loaded in three
// queries whatever its size.
type catalog struct {
	services []*service // by id
	byID     map[int64]*service
}

// loadCatalog reads the account's active services, their active member
// professionals and their active offered event types.
func loadCatalog(ctx context.Context, q db.Querier, acct account.Account) (*catalog, error) {
	c := &catalog{byID: map[int64]*service{}}
	rows, err := q.Query(ctx, `SELECT id, name, color, default_duration_minutes, resource_kind FROM services
		WHERE account_id = ? AND active ORDER BY id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("load services: %w", err)
	}
	for rows.Next() {
		s := &service{}
		if err := rows.Scan(&s.ID, &s.Name, &s.Color, &s.Duration, &s.Need); err != nil {
			rows.Close()
			return nil, err
		}
		if s.Duration <= 0 { // the schema's default; apply never stores less than 1
			s.Duration = 30
		}
		c.services = append(c.services, s)
		c.byID[s.ID] = s
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	// A professional serving several services is parsed once and shared.
	pros := map[int64]*professional{}
	rows, err = q.Query(ctx, `SELECT sp.service_id, p.id, p.name, p.working_hours, p.time_off
		FROM service_professionals sp JOIN professionals p ON p.account_id = sp.account_id AND p.id = sp.professional_id
		WHERE sp.account_id = ? AND p.active ORDER BY sp.service_id, p.id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("load professionals: %w", err)
	}
	for rows.Next() {
		var (
			sid           int64
			p             professional
			hours, offRaw string
		)
		if err := rows.Scan(&sid, &p.ID, &p.Name, &hours, &offRaw); err != nil {
			rows.Close()
			return nil, err
		}
		s := c.byID[sid]
		if s == nil {
			continue // inactive service
		}
		pp := pros[p.ID]
		if pp == nil {
			p.Hours = parseWeekHours(hours)
			p.TimeOff = parseTimeOff(offRaw)
			pp = &p
			pros[p.ID] = pp
		}
		s.Pros = append(s.Pros, pp)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	rows, err = q.Query(ctx, `SELECT se.service_id, e.id, e.name, e.color
		FROM service_event_types se JOIN event_types e ON e.account_id = se.account_id AND e.id = se.event_type_id
		WHERE se.account_id = ? AND e.active ORDER BY se.service_id, e.id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("load event types: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			sid int64
			e   eventType
		)
		if err := rows.Scan(&sid, &e.ID, &e.Name, &e.Color); err != nil {
			return nil, err
		}
		if s := c.byID[sid]; s != nil {
			s.Types = append(s.Types, e)
		}
	}
	return c, rows.Err()
}

// ListServices returns the account's bookable services ordered by id: every
// active service with its active professionals and active event types, the
// same membership loadCatalog gives booking. It is one query rather than
// loadCatalog's three (and skips working hours): it is the most-read
// endpoint, and on PostgreSQL each query is a round trip.
func ListServices(ctx context.Context, q db.Querier, acct account.Account) ([]Service, error) {
	const (
		kindService = iota
		kindProfessional
		kindEventType
	)
	rows, err := q.Query(ctx, `
		SELECT s.id, 0, 0, s.name, s.default_duration_minutes FROM services s
			WHERE s.account_id = ? AND s.active
		UNION ALL
		SELECT sp.service_id, 1, p.id, p.name, 0
			FROM service_professionals sp JOIN professionals p ON p.account_id = sp.account_id AND p.id = sp.professional_id
			WHERE sp.account_id = ? AND p.active
		UNION ALL
		SELECT se.service_id, 2, e.id, e.name, 0
			FROM service_event_types se JOIN event_types e ON e.account_id = se.account_id AND e.id = se.event_type_id
			WHERE se.account_id = ? AND e.active
		ORDER BY 1, 2, 3`, acct.ID, acct.ID, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("list services: %w", err)
	}
	defer rows.Close()
	out := []Service{}
	for rows.Next() {
		var (
			serviceID, id int64
			kind          int
			name          string
			duration      int
		)
		if err := rows.Scan(&serviceID, &kind, &id, &name, &duration); err != nil {
			return nil, err
		}
		if kind == kindService {
			if duration <= 0 { // the schema's default; apply never stores less than 1
				duration = 30
			}
			out = append(out, Service{ID: serviceID, Name: name, DefaultDurationMinutes: duration,
				Professionals: []Ref{}, EventTypes: []Ref{}})
			continue
		}
		if len(out) == 0 || out[len(out)-1].ID != serviceID {
			continue // a member of an inactive service (its row sorts before any active one's)
		}
		svc := &out[len(out)-1]
		if kind == kindProfessional {
			svc.Professionals = append(svc.Professionals, Ref{ID: id, Name: name})
		} else {
			svc.EventTypes = append(svc.EventTypes, Ref{ID: id, Name: name})
		}
	}
	return out, rows.Err()
}

// maxCachedRefs bounds a services snapshot: an account whose list holds
// more services, professionals and event types than this is read from the
// database every time instead of kept in memory.
const maxCachedRefs = 5000

// Services is ListServices through the account's in-memory catalogue
// (internal/readcache): at most readcache.MaxAge old at now, and current after
// any write through this process. The list is shared: callers must not
// modify it. A front door may keep its encoding of the list in the
// returned snapshot (readcache.Snapshot.Encoded); it is nil when the list is
// too large to keep, and the list then comes from the database.
func Services(ctx context.Context, store *db.DB, acct account.Account, now time.Time) ([]Service, *readcache.Snapshot[[]Service], error) {
	snap, err := readcache.Get(ctx, store, readcache.Calendar, acct.ID, "services", now, func(ctx context.Context) ([]Service, error) {
		list, err := ListServices(ctx, store, acct)
		if err != nil {
			return nil, err
		}
		n := len(list)
		for _, s := range list {
			n += len(s.Professionals) + len(s.EventTypes)
		}
		if n > maxCachedRefs {
			return nil, nil // kept as "too large": a nil list
		}
		return list, nil
	})
	if err != nil {
		return nil, nil, err
	}
	if snap.Value == nil { // too large to keep
		list, err := ListServices(ctx, store, acct)
		return list, nil, err
	}
	return snap.Value, snap, nil
}

// choice is one candidate of a by-id-or-by-name selection.
type choice struct {
	ID   int64
	Name string
}

// pick selects among candidates by id (which wins) or by folded name. It
// returns the index of the match, or -1 with the ambiguous candidates (none
// when nothing matched).
func pick(cands []choice, id *int64, name *string) (int, []Ref) {
	if id != nil {
		for i, c := range cands {
			if c.ID == *id {
				return i, nil
			}
		}
		return -1, nil
	}
	want := names.Fold(*name)
	found := -1
	var matches []Ref
	for i, c := range cands {
		if names.Fold(c.Name) == want {
			found = i
			matches = append(matches, Ref{ID: c.ID, Name: c.Name})
		}
	}
	if len(matches) > 1 {
		return -1, matches
	}
	return found, nil
}

// validLists returns the names and ids a refusal lists as acceptable.
func validLists(cands []choice) ([]string, []int64) {
	ns, ids := make([]string, 0, len(cands)), make([]int64, 0, len(cands))
	for _, c := range cands {
		ns = append(ns, c.Name)
		ids = append(ids, c.ID)
	}
	return ns, ids
}

// LoadZone resolves an IANA zone name. "" and "Local" are refused: the
// first would silently mean UTC and the second the server's own zone.
func LoadZone(name string) (*time.Location, bool) {
	if name == "" || name == "Local" {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	return loc, true
}

// sortRefs orders candidates by id so details are stable.
func sortRefs(r []Ref) {
	sort.Slice(r, func(i, j int) bool { return r[i].ID < r[j].ID })
}
