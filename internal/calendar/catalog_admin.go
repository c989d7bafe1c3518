package calendar

// Editing the catalogue by hand (the dashboard's settings): services, the
// professionals and event types each offers, and event types. The rules are
// the workspace file's (internal/workspace: validate.go and apply.go), so an
// object edited here is one a later `frontdesk workspace apply` can still
// update: a name is required, a colour is "" or #rgb / #rrggbb, a duration
// is 1 to 1440 minutes, links are added within one account. Objects made
// here get a generated file key ("dashboard-…", unique per account as the
// schema requires) that no file names unless it adopts the object.
//
// Every write forgets the account's catalogue snapshot (readcache) when its
// transaction commits, so the public API shows the change at once.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/names"
	"github.com/frontdesk/frontdesk/internal/readcache"
)

// MaxCatalogName is the longest name of a service, professional or event
// type the dashboard accepts.
const MaxCatalogName = 200

// colorRE is the workspace file's colour rule.
var colorRE = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$|^#[0-9A-Fa-f]{3}$`)

// ServiceDetail is a service as the settings show it, active or not.
type ServiceDetail struct {
	ID              int64
	Name            string
	Color           string
	DurationMinutes int
	Active          bool
	FileKey         string
	ProfessionalIDs []int64 // ordered
	EventTypeIDs    []int64 // ordered
}

// Offers reports whether the service lists id among ids (a template helper).
func (s ServiceDetail) Offers(ids []int64, id int64) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}

// ServiceInput is what an owner sets on a service.
type ServiceInput struct {
	Name            string
	Color           string
	DurationMinutes int
	Active          bool
}

func (in *ServiceInput) check() error {
	var err error
	if in.Name, err = checkName(in.Name, errs.Say("Give the service a name.")); err != nil {
		return err
	}
	if in.Color, err = checkColor(in.Color); err != nil {
		return err
	}
	if in.DurationMinutes < 1 || in.DurationMinutes > 24*60 {
		return errs.New(errs.ValidationError, "The duration must be 1 to 1440 minutes.")
	}
	return nil
}

// checkName trims a catalogue object's name; missing is the refusal of an
// empty one ("Give the service a name.").
func checkName(name string, missing errs.Text) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errs.New(errs.ValidationError, "%s", missing)
	}
	if utf8.RuneCountInString(name) > MaxCatalogName {
		return "", errs.New(errs.ValidationError, "A name may have at most 200 characters.")
	}
	return name, nil
}

func checkColor(c string) (string, error) {
	c = strings.TrimSpace(c)
	if c != "" && !colorRE.MatchString(c) {
		return "", errs.New(errs.ValidationError, "A colour is written #rrggbb, like #1565c0.")
	}
	return c, nil
}

// newFileKey makes the file key of an object created outside the workspace
// file: the schema wants one, unique per account, and the file's key rule
// (letters, digits, _ . -) accepts it.
func newFileKey() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "dashboard-" + hex.EncodeToString(b)
}

// nameTaken refuses a second active-or-not object of a kind with the same
// folded name: booking by name would find two.
func nameTaken(ctx context.Context, q db.Querier, acct account.Account, table, name string, except int64) error {
	rows, err := q.Query(ctx, `SELECT id, name FROM `+table+` WHERE account_id = ?`, acct.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	want := names.Fold(name)
	for rows.Next() {
		var id int64
		var n string
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		if id != except && names.Fold(n) == want {
			return errs.New(errs.ValidationError, "That name is already used; choose another.")
		}
	}
	return rows.Err()
}

// CatalogServices lists the account's services, active or not, by name.
func CatalogServices(ctx context.Context, q db.Querier, acct account.Account) ([]ServiceDetail, error) {
	rows, err := q.Query(ctx, `SELECT id, name, color, default_duration_minutes, active, file_key FROM services
		WHERE account_id = ? ORDER BY name, id`, acct.ID)
	if err != nil {
		return nil, err
	}
	var out []ServiceDetail
	byID := map[int64]int{}
	for rows.Next() {
		var s ServiceDetail
		if err := rows.Scan(&s.ID, &s.Name, &s.Color, &s.DurationMinutes, &s.Active, &s.FileKey); err != nil {
			rows.Close()
			return nil, err
		}
		byID[s.ID] = len(out)
		out = append(out, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	err = links(ctx, q, `SELECT service_id, professional_id FROM service_professionals WHERE account_id = ? ORDER BY service_id, professional_id`, acct,
		func(sid, id int64) {
			if i, ok := byID[sid]; ok {
				out[i].ProfessionalIDs = append(out[i].ProfessionalIDs, id)
			}
		})
	if err != nil {
		return nil, err
	}
	err = links(ctx, q, `SELECT service_id, event_type_id FROM service_event_types WHERE account_id = ? ORDER BY service_id, event_type_id`, acct,
		func(sid, id int64) {
			if i, ok := byID[sid]; ok {
				out[i].EventTypeIDs = append(out[i].EventTypeIDs, id)
			}
		})
	return out, err
}

func links(ctx context.Context, q db.Querier, query string, acct account.Account, add func(a, b int64)) error {
	rows, err := q.Query(ctx, query, acct.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var a, b int64
		if err := rows.Scan(&a, &b); err != nil {
			return err
		}
		add(a, b)
	}
	return rows.Err()
}

// CatalogService is one of the account's services, active or not; another
// account's id is errs.NotFound.
func CatalogService(ctx context.Context, q db.Querier, acct account.Account, id int64) (ServiceDetail, error) {
	var s ServiceDetail
	err := q.QueryRow(ctx, `SELECT id, name, color, default_duration_minutes, active, file_key FROM services
		WHERE account_id = ? AND id = ?`, acct.ID, id).Scan(&s.ID, &s.Name, &s.Color, &s.DurationMinutes, &s.Active, &s.FileKey)
	if db.IsNoRows(err) {
		return s, errs.New(errs.NotFound, "Service %d not found.", id)
	}
	if err != nil {
		return s, err
	}
	s.ProfessionalIDs, err = db.QueryInt64s(ctx, q, `SELECT professional_id FROM service_professionals WHERE account_id = ? AND service_id = ? ORDER BY professional_id`, acct.ID, id)
	if err != nil {
		return s, err
	}
	s.EventTypeIDs, err = db.QueryInt64s(ctx, q, `SELECT event_type_id FROM service_event_types WHERE account_id = ? AND service_id = ? ORDER BY event_type_id`, acct.ID, id)
	return s, err
}

// CreateService adds a service (no professionals or event types yet: a
// service needs both to be bookable).
func CreateService(ctx context.Context, q db.Querier, acct account.Account, in ServiceInput) (int64, error) {
	if err := in.check(); err != nil {
		return 0, err
	}
	if err := nameTaken(ctx, q, acct, "services", in.Name, 0); err != nil {
		return 0, err
	}
	var id int64
	err := q.QueryRow(ctx, `INSERT INTO services (account_id, file_key, name, color, default_duration_minutes, active)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, acct.ID, newFileKey(), in.Name, in.Color, in.DurationMinutes, in.Active).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create service: %w", err)
	}
	readcache.Changed(q, readcache.Calendar, acct.ID)
	return id, nil
}

// UpdateService sets a service's fields and returns what changed, in words
// (none: nothing was written).
func UpdateService(ctx context.Context, q db.Querier, acct account.Account, id int64, in ServiceInput) ([]string, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	old, err := CatalogService(ctx, q, acct, id)
	if err != nil {
		return nil, err
	}
	var changes []string
	if old.Name != in.Name {
		if err := nameTaken(ctx, q, acct, "services", in.Name, id); err != nil {
			return nil, err
		}
		changes = append(changes, fmt.Sprintf("name %q → %q", old.Name, in.Name))
	}
	if old.Color != in.Color {
		changes = append(changes, fmt.Sprintf("colour %q → %q", old.Color, in.Color))
	}
	if old.DurationMinutes != in.DurationMinutes {
		changes = append(changes, fmt.Sprintf("duration %d → %d min", old.DurationMinutes, in.DurationMinutes))
	}
	if old.Active != in.Active {
		changes = append(changes, fmt.Sprintf("active %t → %t", old.Active, in.Active))
	}
	if len(changes) == 0 {
		return nil, nil
	}
	if _, err := q.Exec(ctx, `UPDATE services SET name = ?, color = ?, default_duration_minutes = ?, active = ? WHERE account_id = ? AND id = ?`,
		in.Name, in.Color, in.DurationMinutes, in.Active, acct.ID, id); err != nil {
		return nil, fmt.Errorf("update service: %w", err)
	}
	readcache.Changed(q, readcache.Calendar, acct.ID)
	return changes, nil
}

// SetServiceProfessionals makes ids the professionals who offer a service
// and returns what changed. Every id must be one of the account's
// professionals (another account's is refused like an unknown one).
func SetServiceProfessionals(ctx context.Context, q db.Querier, acct account.Account, serviceID int64, ids []int64) ([]string, error) {
	return setLinks(ctx, q, acct, serviceID, ids, "service_professionals", "professional_id", "professionals", "professional", errs.Say("Choose among this account's professionals."))
}

// SetServiceEventTypes makes ids the event types a service offers and
// returns what changed.
func SetServiceEventTypes(ctx context.Context, q db.Querier, acct account.Account, serviceID int64, ids []int64) ([]string, error) {
	return setLinks(ctx, q, acct, serviceID, ids, "service_event_types", "event_type_id", "event_types", "event type", errs.Say("Choose among this account's event types."))
}

func setLinks(ctx context.Context, q db.Querier, acct account.Account, serviceID int64, ids []int64, table, col, objects, kind string, unknown errs.Text) ([]string, error) {
	if _, err := CatalogService(ctx, q, acct, serviceID); err != nil {
		return nil, err
	}
	valid := map[int64]string{}
	rows, err := q.Query(ctx, `SELECT id, name FROM `+objects+` WHERE account_id = ?`, acct.ID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var n string
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return nil, err
		}
		valid[id] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	want := map[int64]bool{}
	for _, id := range ids {
		if _, ok := valid[id]; !ok {
			return nil, errs.New(errs.ValidationError, "%s", unknown)
		}
		want[id] = true
	}
	have, err := db.QueryInt64s(ctx, q, `SELECT `+col+` FROM `+table+` WHERE account_id = ? AND service_id = ?`, acct.ID, serviceID)
	if err != nil {
		return nil, err
	}
	var added, removed []string
	for _, id := range have {
		if want[id] {
			delete(want, id)
			continue
		}
		if _, err := q.Exec(ctx, `DELETE FROM `+table+` WHERE account_id = ? AND service_id = ? AND `+col+` = ?`, acct.ID, serviceID, id); err != nil {
			return nil, err
		}
		removed = append(removed, valid[id])
	}
	for id := range want {
		if _, err := q.Exec(ctx, `INSERT INTO `+table+` (account_id, service_id, `+col+`) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, acct.ID, serviceID, id); err != nil {
			return nil, err
		}
		added = append(added, valid[id])
	}
	sort.Strings(added)
	sort.Strings(removed)
	var changes []string
	if len(added) > 0 {
		changes = append(changes, kind+"s added: "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		changes = append(changes, kind+"s removed: "+strings.Join(removed, ", "))
	}
	if len(changes) > 0 {
		readcache.Changed(q, readcache.Calendar, acct.ID)
	}
	return changes, nil
}

// EventTypeDetail is an event type as the settings show it.
type EventTypeDetail struct {
	ID      int64
	Name    string
	Color   string
	Active  bool
	FileKey string
}

// EventTypeInput is what an owner sets on an event type.
type EventTypeInput struct {
	Name   string
	Color  string
	Active bool
}

func (in *EventTypeInput) check() error {
	var err error
	if in.Name, err = checkName(in.Name, errs.Say("Give the event type a name.")); err != nil {
		return err
	}
	in.Color, err = checkColor(in.Color)
	return err
}

// CatalogEventTypes lists the account's event types, active or not, by name.
func CatalogEventTypes(ctx context.Context, q db.Querier, acct account.Account) ([]EventTypeDetail, error) {
	rows, err := q.Query(ctx, `SELECT id, name, color, active, file_key FROM event_types WHERE account_id = ? ORDER BY name, id`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EventTypeDetail
	for rows.Next() {
		var e EventTypeDetail
		if err := rows.Scan(&e.ID, &e.Name, &e.Color, &e.Active, &e.FileKey); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// CreateEventType adds an event type.
func CreateEventType(ctx context.Context, q db.Querier, acct account.Account, in EventTypeInput) (int64, error) {
	if err := in.check(); err != nil {
		return 0, err
	}
	if err := nameTaken(ctx, q, acct, "event_types", in.Name, 0); err != nil {
		return 0, err
	}
	var id int64
	err := q.QueryRow(ctx, `INSERT INTO event_types (account_id, file_key, name, color, active) VALUES (?, ?, ?, ?, ?) RETURNING id`,
		acct.ID, newFileKey(), in.Name, in.Color, in.Active).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create event type: %w", err)
	}
	readcache.Changed(q, readcache.Calendar, acct.ID)
	return id, nil
}

// UpdateEventType sets an event type's fields and returns what changed.
func UpdateEventType(ctx context.Context, q db.Querier, acct account.Account, id int64, in EventTypeInput) ([]string, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	var old EventTypeDetail
	err := q.QueryRow(ctx, `SELECT name, color, active FROM event_types WHERE account_id = ? AND id = ?`, acct.ID, id).Scan(&old.Name, &old.Color, &old.Active)
	if db.IsNoRows(err) {
		return nil, errs.New(errs.NotFound, "Event type %d not found.", id)
	}
	if err != nil {
		return nil, err
	}
	var changes []string
	if old.Name != in.Name {
		if err := nameTaken(ctx, q, acct, "event_types", in.Name, id); err != nil {
			return nil, err
		}
		changes = append(changes, fmt.Sprintf("name %q → %q", old.Name, in.Name))
	}
	if old.Color != in.Color {
		changes = append(changes, fmt.Sprintf("colour %q → %q", old.Color, in.Color))
	}
	if old.Active != in.Active {
		changes = append(changes, fmt.Sprintf("active %t → %t", old.Active, in.Active))
	}
	if len(changes) == 0 {
		return nil, nil
	}
	if _, err := q.Exec(ctx, `UPDATE event_types SET name = ?, color = ?, active = ? WHERE account_id = ? AND id = ?`,
		in.Name, in.Color, in.Active, acct.ID, id); err != nil {
		return nil, fmt.Errorf("update event type: %w", err)
	}
	readcache.Changed(q, readcache.Calendar, acct.ID)
	return changes, nil
}
