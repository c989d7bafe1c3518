package waitlist

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// Prefs are an entry's preferences. A nil field was not sent: a new entry
// takes the default, an existing one keeps its value.
type Prefs struct {
	Priority                *int
	PreferredProfessionalID *int64
	EarliestDate            *string
	LatestDate              *string
	TimePreference          *string
	Notes                   *string
}

// AddRequest is a validated single add (the schema is checked by the
// caller; the business rules here).
type AddRequest struct {
	ClientID     *int64 // wins over Phone when both are sent
	Phone        string
	FirstName    string // used only when the client is created
	LastName     string
	Email        string
	WaitlistID   *int64 // nil: each service goes to the active list holding it
	ServiceIDs   []int64
	ServiceNames []string
	Prefs        Prefs
}

// AddResult is the data of a single add.
type AddResult struct {
	ClientID      int64   `json:"client_id"`
	ClientCreated bool    `json:"client_created"`
	Entries       []Entry `json:"entries"`
}

// target is one service of a request and the list it goes to.
type target struct {
	service Service
	list    List
}

// Add puts a client on the waiting list for each named service, in one
// transaction. It is idempotent per (client, service): an open entry is
// updated with the preferences sent and returned with created false.
func Add(ctx context.Context, store *db.DB, acct account.Account, req AddRequest, now time.Time) (*AddResult, error) {
	cat, err := loadCatalog(ctx, store, acct)
	if err != nil {
		return nil, err
	}
	var listID int64
	if req.WaitlistID != nil {
		l, ok := cat.lists[*req.WaitlistID]
		if !ok {
			return nil, errs.WithDetails(errs.NotFound, map[string]any{"waitlist_id": *req.WaitlistID}, "Waiting list %d not found.", *req.WaitlistID)
		}
		if !l.Active {
			return nil, errs.WithDetails(errs.WaitlistInactive, map[string]any{"waitlist_id": l.ID},
				"Waiting list %d (%s) is inactive; entries cannot be added to it.", l.ID, l.Name)
		}
		listID = l.ID
	}
	targets, err := cat.route(req, listID)
	if err != nil {
		return nil, err
	}
	if err := checkPrefs(ctx, store, acct, req.Prefs); err != nil {
		return nil, err
	}
	var newClient contact.New
	if req.ClientID == nil {
		n, err := phone.ParseWithRegion(req.Phone, acct.DefaultRegion)
		if err != nil {
			return nil, errs.WithDetails(errs.InvalidPhone, map[string]any{"field": "phone"}, "phone: %s.", err.Error())
		}
		first, last, _ := contact.Names(req.FirstName, req.LastName) // their length is the doors' decoders'
		newClient = contact.New{FirstName: first, LastName: last, Phone: n, Email: strings.TrimSpace(req.Email)}
	}

	res := &AddResult{}
	err = store.Transact(ctx, func(tx *db.Tx) error {
		if err := contact.LockKeys(ctx, tx, acct, contact.Keys{Nationals: []string{newClient.Phone.National}, Emails: []string{newClient.Email}}); err != nil {
			return err
		}
		var client contact.Client
		if req.ClientID != nil {
			c, err := contact.Get(ctx, tx, acct, *req.ClientID)
			if db.IsNoRows(err) {
				return errs.WithDetails(errs.ClientNotFound, map[string]any{"field": "client_id", "client_id": *req.ClientID},
					"Client %d not found.", *req.ClientID)
			}
			if err != nil {
				return err
			}
			client = c
		} else {
			if newClient.Email != "" && !validEmail(newClient.Email) {
				// The e-mail only matters when the client is created: refuse
				// it then, and ignore it for a known phone.
				known, err := contact.ByNationals(ctx, tx, acct, []string{newClient.Phone.National})
				if err != nil {
					return err
				}
				if _, ok := known[newClient.Phone.National]; !ok {
					return errs.WithDetails(errs.ValidationError, map[string]any{"field": "email"}, "email is not a valid e-mail address.")
				}
			}
			c, created, err := contact.MatchOrCreateByPhone(ctx, tx, acct, newClient, now)
			var conflict *contact.PhoneConflict
			if errors.As(err, &conflict) {
				return errs.WithDetails(errs.ValidationError, map[string]any{"field": "phone", "conflicting_client_id": conflict.ClientID},
					"The national digits of this phone belong to client %d under another country code.", conflict.ClientID)
			}
			if err != nil {
				return err
			}
			client, res.ClientCreated = c, created
		}
		res.ClientID = client.ID
		entries, err := upsertEntries(ctx, tx, acct, client.ID, targets, req.Prefs, now)
		res.Entries = entries
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// route resolves the named services (ids first, then names, each once) and
// the list each goes to.
func (c *catalog) route(req AddRequest, listID int64) ([]target, error) {
	validNames, validIDs := c.accepted(listID)
	notFound := func(field string, value any, msg errs.Text) error {
		return errs.WithDetails(errs.ServiceNotFound, map[string]any{"field": field, "value": value,
			"valid_service_names": validNames, "valid_service_ids": validIDs}, "%s", msg)
	}
	var services []Service
	seen := map[int64]bool{}
	add := func(s Service) {
		if !seen[s.ID] {
			seen[s.ID] = true
			services = append(services, s)
		}
	}
	for _, id := range req.ServiceIDs {
		s, ok := c.services[id]
		if !ok {
			return nil, notFound("service_ids", id, errs.Say("Service %d not found.", id))
		}
		add(s)
	}
	for _, name := range req.ServiceNames {
		found := c.byName[nameKey(name)]
		switch len(found) {
		case 0:
			return nil, notFound("service_names", name, errs.Say("No service is named %q.", name))
		case 1:
			add(found[0])
		default:
			candidates := make([]Service, len(found))
			copy(candidates, found)
			return nil, errs.WithDetails(errs.AmbiguousMatch, map[string]any{"field": "service_names", "value": name, "candidates": candidates},
				"Several services are named %q; name it by id.", name)
		}
	}
	targets := make([]target, 0, len(services))
	for _, s := range services {
		if listID != 0 {
			if !c.inList(s.ID, listID) {
				l := c.lists[listID]
				return nil, errs.WithDetails(errs.ServiceNotInWaitlist, map[string]any{"field": "service_ids", "service_id": s.ID,
					"waitlist_id": listID, "valid_service_names": validNames, "valid_service_ids": validIDs},
					"Service %d (%s) is not in waiting list %d (%s).", s.ID, s.Name, l.ID, l.Name)
			}
			targets = append(targets, target{service: s, list: c.lists[listID]})
			continue
		}
		l, ok := c.activeListOf(s.ID)
		if !ok {
			return nil, errs.WithDetails(errs.NoActiveWaitlist, map[string]any{"service_id": s.ID},
				"Service %d (%s) is in no active waiting list.", s.ID, s.Name)
		}
		targets = append(targets, target{service: s, list: l})
	}
	return targets, nil
}

// checkPrefs applies the business rules on preferences.
func checkPrefs(ctx context.Context, q db.Querier, acct account.Account, p Prefs) error {
	if p.EarliestDate != nil && p.LatestDate != nil && *p.LatestDate < *p.EarliestDate {
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "latest_date"}, "latest_date is before earliest_date.")
	}
	if p.PreferredProfessionalID == nil {
		return nil
	}
	all, err := loadProfessionals(ctx, q, acct, nil)
	if err != nil {
		return err
	}
	if pr, ok := all[*p.PreferredProfessionalID]; ok && pr.Active {
		return nil
	}
	names, ids := []string{}, []int64{}
	for _, id := range sortedProfessionalIDs(all) {
		if all[id].Active {
			names, ids = append(names, all[id].Name), append(ids, id)
		}
	}
	return errs.WithDetails(errs.ProfessionalNotFound, map[string]any{"field": "preferred_professional_id",
		"valid_professional_names": names, "valid_professional_ids": ids},
		"Professional %d not found.", *p.PreferredProfessionalID)
}

func sortedProfessionalIDs(m map[int64]professional) []int64 {
	set := make(map[int64]bool, len(m))
	for id := range m {
		set[id] = true
	}
	return sortedIDs(set)
}

// validEmail applies the one e-mail rule (valid.Email).
func validEmail(s string) bool {
	_, ok := valid.Email(s)
	return ok
}

// newEntry is a row of waitlist_entries to insert.
type newEntry struct {
	id, listID, clientID, serviceID int64
	source                          string
	prefs                           Prefs
}

func (n newEntry) row(acct account.Account, now time.Time) []any {
	priority, pref, notes := DefaultPriority, "any", ""
	if n.prefs.Priority != nil {
		priority = *n.prefs.Priority
	}
	if n.prefs.TimePreference != nil {
		pref = *n.prefs.TimePreference
	}
	if n.prefs.Notes != nil {
		notes = *n.prefs.Notes
	}
	var prof, earliest, latest any
	if n.prefs.PreferredProfessionalID != nil {
		prof = *n.prefs.PreferredProfessionalID
	}
	if n.prefs.EarliestDate != nil {
		earliest = *n.prefs.EarliestDate
	}
	if n.prefs.LatestDate != nil {
		latest = *n.prefs.LatestDate
	}
	return []any{n.id, acct.ID, n.listID, n.clientID, n.serviceID, StatusWaiting, priority, n.source,
		prof, earliest, latest, pref, notes, 0, false, db.Micros(now), db.Micros(now)}
}

const entryInsertHead = `INSERT INTO waitlist_entries (id, account_id, waitlist_id, client_id, service_id, status, priority, source,
	preferred_professional_id, earliest_date, latest_date, time_preference, notes, queue_attempts, flagged_for_review, created_at, updated_at)`

// insertEntries inserts entries with multi-row statements and returns the
// ids actually inserted: a row that would be a second open entry for its
// (client, service) is skipped by the partial unique index, whatever any
// check before it concluded.
func insertEntries(ctx context.Context, tx *db.Tx, acct account.Account, entries []newEntry, now time.Time) (map[int64]bool, error) {
	inserted := make(map[int64]bool, len(entries))
	if len(entries) == 0 {
		return inserted, nil
	}
	const cols = 17
	per := min(tx.Dialect().MaxParams()/cols, 1000)
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	for start := 0; start < len(entries); start += per {
		end := min(start+per, len(entries))
		var b strings.Builder
		b.WriteString(entryInsertHead)
		b.WriteString(" VALUES ")
		args := make([]any, 0, (end-start)*cols)
		for i := start; i < end; i++ {
			if i > start {
				b.WriteByte(',')
			}
			b.WriteString(tuple)
			args = append(args, entries[i].row(acct, now)...)
		}
		b.WriteString(" " + onConflictOpen + " RETURNING id, waitlist_id, client_id, service_id")
		rows, err := tx.Query(ctx, b.String(), args...)
		if err != nil {
			return nil, fmt.Errorf("insert waiting-list entries: %w", err)
		}
		var events []jobs.Event
		for rows.Next() {
			var id, list, client, service int64
			if err := rows.Scan(&id, &list, &client, &service); err != nil {
				rows.Close()
				return nil, err
			}
			inserted[id] = true
			events = append(events, jobs.Event{Type: jobs.EventWaitlistEntryCreated, SourceID: id, Data: map[string]any{
				"entry_id": id, "waitlist_id": list, "client_id": client, "service_id": service}})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if err := jobs.Emit(ctx, tx, acct, now, events...); err != nil {
			return nil, err
		}
	}
	return inserted, nil
}

// upsertEntries creates an open entry for each target, or updates the
// client's open entry for that service with the preferences sent, and
// returns the entries in target order. The insert runs first and relies on
// the partial unique index, so two concurrent adds can never both create.
func upsertEntries(ctx context.Context, tx *db.Tx, acct account.Account, clientID int64, targets []target, p Prefs, now time.Time) ([]Entry, error) {
	ids, err := tx.Dialect().ReserveIDs(ctx, tx, "waitlist_entries", len(targets))
	if err != nil {
		return nil, err
	}
	news := make([]newEntry, len(targets))
	serviceIDs := make([]int64, len(targets))
	for i, t := range targets {
		news[i] = newEntry{id: ids[i], listID: t.list.ID, clientID: clientID, serviceID: t.service.ID, source: SourceAPI, prefs: p}
		serviceIDs[i] = t.service.ID
	}
	inserted, err := insertEntries(ctx, tx, acct, news, now)
	if err != nil {
		return nil, err
	}
	// The open entry of every (client, service) now exists: ours, or the
	// one that was already there.
	in, args := db.In(serviceIDs)
	rows, err := tx.Query(ctx, `SELECT service_id, id FROM waitlist_entries
		WHERE account_id = ? AND client_id = ? AND status IN `+openStatuses+` AND service_id IN `+in,
		append([]any{acct.ID, clientID}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("find open entries: %w", err)
	}
	open := map[int64]int64{}
	for rows.Next() {
		var sid, id int64
		if err := rows.Scan(&sid, &id); err != nil {
			rows.Close()
			return nil, err
		}
		open[sid] = id
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	entryIDs := make([]int64, len(targets))
	var existing []int64
	for i, t := range targets {
		id, ok := open[t.service.ID]
		if !ok {
			return nil, fmt.Errorf("open entry for client %d, service %d vanished", clientID, t.service.ID)
		}
		entryIDs[i] = id
		if !inserted[id] {
			existing = append(existing, id)
		}
	}
	if err := updatePrefs(ctx, tx, acct, existing, p, now); err != nil {
		return nil, err
	}
	entries, err := entriesByIDs(ctx, tx, acct, entryIDs, now)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		created := inserted[entries[i].ID]
		entries[i].Created = &created
	}
	return entries, nil
}

// updatePrefs writes the preferences sent onto existing open entries; a
// preference not sent keeps its stored value.
func updatePrefs(ctx context.Context, tx *db.Tx, acct account.Account, ids []int64, p Prefs, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	in, args := db.In(ids)
	_, err := tx.Exec(ctx, `UPDATE waitlist_entries SET
		priority = COALESCE(CAST(? AS INTEGER), priority),
		preferred_professional_id = COALESCE(CAST(? AS BIGINT), preferred_professional_id),
		earliest_date = COALESCE(CAST(? AS TEXT), earliest_date),
		latest_date = COALESCE(CAST(? AS TEXT), latest_date),
		time_preference = COALESCE(CAST(? AS TEXT), time_preference),
		notes = COALESCE(CAST(? AS TEXT), notes),
		updated_at = ?
		WHERE account_id = ? AND status IN `+openStatuses+` AND id IN `+in,
		append([]any{ptr(p.Priority), ptr(p.PreferredProfessionalID), ptr(p.EarliestDate), ptr(p.LatestDate),
			ptr(p.TimePreference), ptr(p.Notes), db.Micros(now), acct.ID}, args...)...)
	if err != nil {
		return fmt.Errorf("update waiting-list entries: %w", err)
	}
	return nil
}

// ptr binds an optional value: NULL when not sent.
func ptr[T any](v *T) any {
	if v == nil {
		return nil
	}
	return *v
}
