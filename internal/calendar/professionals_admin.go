package calendar

// Editing professionals by hand (the dashboard's settings): name, active,
// working hours per weekday and time off. The stored documents are the
// workspace file's (professionals.working_hours: {"mon": ["09:00-13:00"]} in
// the account's zone, sorted per day; time_off: [{"from": RFC 3339, "to":
// RFC 3339}]), so availability reads them the same whichever wrote them, and
// every write forgets the catalogue snapshot.

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/readcache"
)

// Weekdays are the working-hours keys in the week's order (Monday first).
var Weekdays = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// hoursRE is the workspace file's working-hours range rule.
var hoursRE = regexp.MustCompile(`^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$`)

// MaxTimeOff bounds a professional's time-off ranges.
const MaxTimeOff = 500

// TimeOff is one range a professional does not work, [From, To).
type TimeOff struct {
	From time.Time
	To   time.Time
	// Raw* are the stored texts, which name the range for removal.
	RawFrom, RawTo string
}

// ProfessionalDetail is a professional as the settings show it.
type ProfessionalDetail struct {
	ID           int64
	Name         string
	Active       bool
	FileKey      string
	WorkingHours map[string][]string // weekday key → sorted ranges
	TimeOff      []TimeOff           // by start
	Services     []string            // names of the services they offer
}

// HoursText is a day's ranges as the settings form writes them.
func (p ProfessionalDetail) HoursText(day string) string {
	return strings.Join(p.WorkingHours[day], ", ")
}

type timeOffDoc struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// CatalogProfessionals lists the account's professionals, active or not,
// by name (without their services).
func CatalogProfessionals(ctx context.Context, q db.Querier, acct account.Account) ([]ProfessionalDetail, error) {
	rows, err := q.Query(ctx, `SELECT id, name, active, file_key, working_hours, time_off FROM professionals
		WHERE account_id = ? ORDER BY name, id`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ProfessionalDetail
	for rows.Next() {
		p, err := scanProfessional(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func scanProfessional(row interface{ Scan(...any) error }) (ProfessionalDetail, error) {
	var p ProfessionalDetail
	var hours, off string
	if err := row.Scan(&p.ID, &p.Name, &p.Active, &p.FileKey, &hours, &off); err != nil {
		return p, err
	}
	p.WorkingHours = map[string][]string{}
	json.Unmarshal([]byte(hours), &p.WorkingHours)
	var docs []timeOffDoc
	json.Unmarshal([]byte(off), &docs)
	for _, d := range docs {
		t := TimeOff{RawFrom: d.From, RawTo: d.To}
		t.From, _ = time.Parse(time.RFC3339Nano, d.From)
		t.To, _ = time.Parse(time.RFC3339Nano, d.To)
		p.TimeOff = append(p.TimeOff, t)
	}
	sort.SliceStable(p.TimeOff, func(i, j int) bool { return p.TimeOff[i].From.Before(p.TimeOff[j].From) })
	return p, nil
}

// CatalogProfessional is one of the account's professionals with the
// services they offer; another account's id is errs.NotFound.
func CatalogProfessional(ctx context.Context, q db.Querier, acct account.Account, id int64) (ProfessionalDetail, error) {
	return professionalRow(ctx, q, acct, id, "")
}

func professionalRow(ctx context.Context, q db.Querier, acct account.Account, id int64, lock string) (ProfessionalDetail, error) {
	p, err := scanProfessional(q.QueryRow(ctx, `SELECT id, name, active, file_key, working_hours, time_off FROM professionals
		WHERE account_id = ? AND id = ?`+lock, acct.ID, id))
	if db.IsNoRows(err) {
		return p, errs.New(errs.NotFound, "Professional %d not found.", id)
	}
	if err != nil {
		return p, err
	}
	rows, err := q.Query(ctx, `SELECT s.name FROM service_professionals sp JOIN services s ON s.account_id = sp.account_id AND s.id = sp.service_id
		WHERE sp.account_id = ? AND sp.professional_id = ? ORDER BY s.name`, acct.ID, id)
	if err != nil {
		return p, err
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return p, err
		}
		p.Services = append(p.Services, n)
	}
	return p, rows.Err()
}

// CreateProfessional adds a professional with no working hours yet.
func CreateProfessional(ctx context.Context, q db.Querier, acct account.Account, name string, active bool) (int64, error) {
	name, err := checkName(name, errs.Say("Give the professional a name."))
	if err != nil {
		return 0, err
	}
	if err := nameTaken(ctx, q, acct, "professionals", name, 0); err != nil {
		return 0, err
	}
	var id int64
	err = q.QueryRow(ctx, `INSERT INTO professionals (account_id, file_key, name, active, working_hours, time_off) VALUES (?, ?, ?, ?, '{}', '[]') RETURNING id`,
		acct.ID, newFileKey(), name, active).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create professional: %w", err)
	}
	readcache.Changed(q, readcache.Calendar, acct.ID)
	return id, nil
}

// UpdateProfessional sets a professional's name and whether they work,
// returning what changed.
func UpdateProfessional(ctx context.Context, q db.Querier, acct account.Account, id int64, name string, active bool) ([]string, error) {
	name, err := checkName(name, errs.Say("Give the professional a name."))
	if err != nil {
		return nil, err
	}
	old, err := professionalRow(ctx, q, acct, id, q.Dialect().ForUpdate())
	if err != nil {
		return nil, err
	}
	var changes []string
	if old.Name != name {
		if err := nameTaken(ctx, q, acct, "professionals", name, id); err != nil {
			return nil, err
		}
		changes = append(changes, fmt.Sprintf("name %q → %q", old.Name, name))
	}
	if old.Active != active {
		changes = append(changes, fmt.Sprintf("active %t → %t", old.Active, active))
	}
	if len(changes) == 0 {
		return nil, nil
	}
	if _, err := q.Exec(ctx, `UPDATE professionals SET name = ?, active = ? WHERE account_id = ? AND id = ?`, name, active, acct.ID, id); err != nil {
		return nil, err
	}
	readcache.Changed(q, readcache.Calendar, acct.ID)
	return changes, nil
}

// ParseDayHours reads one day's ranges as an owner types them: "09:00-13:00,
// 15:00-19:00" (commas or spaces between; "" is a day off). Each range is
// the workspace file's (HH:MM-HH:MM, start before end); ranges may not
// overlap.
func ParseDayHours(text string) ([]string, error) {
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' })
	var out []string
	for _, f := range fields {
		f = strings.ReplaceAll(f, "–", "-")
		if m := hoursRE.FindStringSubmatch(f); m == nil || m[1]+m[2] >= m[3]+m[4] {
			return nil, errs.New(errs.ValidationError, "Write working hours as ranges like 09:00-13:00, 15:00-19:00.")
		}
		out = append(out, f)
	}
	sort.Strings(out)
	for i := 1; i < len(out); i++ {
		if out[i][:5] < out[i-1][6:] {
			return nil, errs.New(errs.ValidationError, "Working hours of one day may not overlap.")
		}
	}
	return out, nil
}

// SetWorkingHours replaces a professional's weekly hours (weekday key →
// ranges; a day missing or empty is not worked) and returns what changed.
func SetWorkingHours(ctx context.Context, q db.Querier, acct account.Account, id int64, hours map[string][]string) ([]string, error) {
	clean := map[string][]string{}
	for day, spans := range hours {
		if _, ok := dayKeys[day]; !ok {
			return nil, errs.New(errs.ValidationError, "Working hours are given per weekday.")
		}
		text := strings.Join(spans, ", ")
		parsed, err := ParseDayHours(text)
		if err != nil {
			return nil, err
		}
		if len(parsed) > 0 {
			clean[day] = parsed
		}
	}
	old, err := professionalRow(ctx, q, acct, id, q.Dialect().ForUpdate())
	if err != nil {
		return nil, err
	}
	var changes []string
	for _, day := range Weekdays {
		was, now := strings.Join(old.WorkingHours[day], ", "), strings.Join(clean[day], ", ")
		if was != now {
			changes = append(changes, fmt.Sprintf("%s %q → %q", day, was, now))
		}
	}
	if len(changes) == 0 {
		return nil, nil
	}
	cleanText, err := db.JSONText(clean)
	if err != nil {
		return nil, err
	}
	if _, err := q.Exec(ctx, `UPDATE professionals SET working_hours = ? WHERE account_id = ? AND id = ?`, cleanText, acct.ID, id); err != nil {
		return nil, err
	}
	readcache.Changed(q, readcache.Calendar, acct.ID)
	return changes, nil
}

// AddTimeOff adds a range [from, to) a professional does not work.
func AddTimeOff(ctx context.Context, q db.Querier, acct account.Account, id int64, from, to time.Time) error {
	if !to.After(from) {
		return errs.New(errs.ValidationError, "Time off must end after it starts.")
	}
	if !instantsFit(from, to) {
		return errs.New(errs.ValidationError, "Time off must lie between the years 0001 and 9999.")
	}
	if to.Sub(from) > 366*24*time.Hour {
		return errs.New(errs.ValidationError, "Time off may last at most a year; add several ranges for longer.")
	}
	p, err := professionalRow(ctx, q, acct, id, q.Dialect().ForUpdate())
	if err != nil {
		return err
	}
	if len(p.TimeOff) >= MaxTimeOff {
		return errs.New(errs.ValidationError, "A professional may have at most 500 time-off ranges; remove old ones first.")
	}
	docs := timeOffDocs(p.TimeOff)
	docs = append(docs, timeOffDoc{From: from.UTC().Format(time.RFC3339), To: to.UTC().Format(time.RFC3339)})
	return writeTimeOff(ctx, q, acct, id, docs)
}

// RemoveTimeOff removes the range stored as rawFrom–rawTo; one already gone
// is refused (the page was stale).
func RemoveTimeOff(ctx context.Context, q db.Querier, acct account.Account, id int64, rawFrom, rawTo string) error {
	p, err := professionalRow(ctx, q, acct, id, q.Dialect().ForUpdate())
	if err != nil {
		return err
	}
	docs := timeOffDocs(p.TimeOff)
	for i, d := range docs {
		if d.From == rawFrom && d.To == rawTo {
			return writeTimeOff(ctx, q, acct, id, append(docs[:i], docs[i+1:]...))
		}
	}
	return errs.New(errs.ValidationError, "That time off is no longer there; the page was out of date.")
}

func timeOffDocs(offs []TimeOff) []timeOffDoc {
	docs := make([]timeOffDoc, 0, len(offs)+1)
	for _, t := range offs {
		docs = append(docs, timeOffDoc{From: t.RawFrom, To: t.RawTo})
	}
	return docs
}

func writeTimeOff(ctx context.Context, q db.Querier, acct account.Account, id int64, docs []timeOffDoc) error {
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339Nano, s); return t }
	sort.SliceStable(docs, func(i, j int) bool { return at(docs[i].From).Before(at(docs[j].From)) })
	text, err := db.JSONText(docs)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `UPDATE professionals SET time_off = ? WHERE account_id = ? AND id = ?`, text, acct.ID, id); err != nil {
		return err
	}
	readcache.Changed(q, readcache.Calendar, acct.ID)
	return nil
}
