package dashboard

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/pipeline"
)

// This file holds the reads the area packages do not offer and the writes
// the contract reserves for the dashboard. Every function takes the account
// and every statement is scoped by it: an id of another account behaves
// exactly like an unknown one (NOT_FOUND).

// Source written on what the dashboard changes.
const Source = "dashboard"

func notFound(what string, id any) error {
	return errs.New(errs.NotFound, "%s %v not found.", what, id)
}

// ---- Pipelines -------------------------------------------------------------

// CardEvent is one line of a card's timeline.
type CardEvent struct {
	Kind      string
	FromStage string
	ToStage   string
	Source    string
	At        time.Time
}

// Card is a card with its client and timeline.
type Card struct {
	ID          int64
	PipelineID  int64
	ClientID    int64
	ClientName  string
	StageName   string
	Status      string
	EntrySource string
	LeadValue   *float64
	AddedAt     time.Time
	Events      []CardEvent
}

// CardTimeline loads one card of a pipeline with its events, oldest first.
func CardTimeline(ctx context.Context, q db.Querier, acct account.Account, pipelineID, cardID int64) (Card, error) {
	var (
		c     Card
		first string
		last  string
		lead  sql.NullFloat64
		added int64
	)
	err := q.QueryRow(ctx, `SELECT k.id, k.pipeline_id, k.client_id, c.first_name, c.last_name, s.name, k.status, k.entry_source, k.lead_value, k.added_at
		FROM cards k JOIN clients c ON c.id = k.client_id JOIN stages s ON s.id = k.stage_id
		WHERE k.account_id = ? AND k.pipeline_id = ? AND k.id = ?`, acct.ID, pipelineID, cardID).
		Scan(&c.ID, &c.PipelineID, &c.ClientID, &first, &last, &c.StageName, &c.Status, &c.EntrySource, &lead, &added)
	if db.IsNoRows(err) {
		return c, notFound("Card", cardID)
	}
	if err != nil {
		return c, err
	}
	c.ClientName = contact.DisplayName(first, last)
	if lead.Valid {
		c.LeadValue = &lead.Float64
	}
	c.AddedAt = db.Time(added)
	rows, err := q.Query(ctx, `SELECT e.kind, COALESCE(f.name, ''), COALESCE(t.name, ''), e.source, e.created_at
		FROM card_events e LEFT JOIN stages f ON f.id = e.from_stage_id LEFT JOIN stages t ON t.id = e.to_stage_id
		WHERE e.account_id = ? AND e.card_id = ? ORDER BY e.id`, acct.ID, cardID)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	for rows.Next() {
		var e CardEvent
		var at int64
		if err := rows.Scan(&e.Kind, &e.FromStage, &e.ToStage, &e.Source, &at); err != nil {
			return c, err
		}
		e.At = db.Time(at)
		c.Events = append(c.Events, e)
	}
	return c, rows.Err()
}

// UserRef is a team member of the account.
type UserRef struct {
	ID    int64
	Name  string
	Email string
}

// Users lists the account's active users, for assignment pools.
func Users(ctx context.Context, q db.Querier, acct account.Account) ([]UserRef, error) {
	rows, err := q.Query(ctx, `SELECT id, name, email FROM users WHERE account_id = ? AND active = ? ORDER BY name, id`, acct.ID, true)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []UserRef
	for rows.Next() {
		var u UserRef
		if err := rows.Scan(&u.ID, &u.Name, &u.Email); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// NodeInput describes a new API input node.
type NodeInput struct {
	Name             string
	TargetStageID    int64
	DefaultLeadValue float64
	Strategy         string // none, round_robin, least_loaded
	Pool             []int64
}

// CreateAPINode creates an active API input node on a pipeline (the
// contract: "creating API input nodes is dashboard-only") and returns its
// UUID.
func CreateAPINode(ctx context.Context, store *db.DB, acct account.Account, pipelineID int64, in NodeInput, now time.Time) (string, error) {
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" || len(in.Name) > 255 {
		return "", errs.New(errs.ValidationError, "Give the input node a name (at most 255 characters).")
	}
	switch in.Strategy {
	case "", "none":
		in.Strategy, in.Pool = "none", nil
	case "round_robin", "least_loaded":
		if len(in.Pool) == 0 {
			return "", errs.New(errs.ValidationError, "Choose at least one team member for %s assignment.", strings.ReplaceAll(in.Strategy, "_", " "))
		}
	default:
		return "", errs.New(errs.ValidationError, "Unknown assignment strategy %q.", in.Strategy)
	}
	if in.DefaultLeadValue < 0 {
		return "", errs.New(errs.ValidationError, "The default lead value cannot be negative.")
	}
	uuid := newUUID()
	err := store.Transact(ctx, func(tx *db.Tx) error {
		var pid int64
		if err := tx.QueryRow(ctx, `SELECT id FROM pipelines WHERE account_id = ? AND id = ?`, acct.ID, pipelineID).Scan(&pid); db.IsNoRows(err) {
			return notFound("Pipeline", pipelineID)
		} else if err != nil {
			return err
		}
		var sid int64
		if err := tx.QueryRow(ctx, `SELECT id FROM stages WHERE account_id = ? AND pipeline_id = ? AND id = ?`, acct.ID, pipelineID, in.TargetStageID).Scan(&sid); db.IsNoRows(err) {
			return errs.New(errs.ValidationError, "Choose a target stage of this pipeline.")
		} else if err != nil {
			return err
		}
		pool := []int64{}
		if len(in.Pool) > 0 {
			inq, args := db.In(in.Pool)
			var n int
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM users WHERE account_id = ? AND id IN `+inq, append([]any{acct.ID}, args...)...).Scan(&n); err != nil {
				return err
			}
			if n != len(dedupe(in.Pool)) {
				return errs.New(errs.ValidationError, "The assignment pool names an unknown team member.")
			}
			pool = dedupe(in.Pool)
		}
		poolJSON, _ := json.Marshal(pool)
		// file_key keeps the workspace file's (pipeline, key) uniqueness;
		// dashboard-made nodes are keyed by their UUID.
		_, err := tx.Exec(ctx, `INSERT INTO input_nodes (account_id, pipeline_id, file_key, uuid, name, node_type, is_active,
				target_stage_id, default_lead_value, assignment_strategy, assignment_pool, created_at)
			VALUES (?, ?, ?, ?, ?, 'api', ?, ?, ?, ?, ?, ?)`,
			acct.ID, pipelineID, "dashboard-"+uuid, uuid, in.Name, true, in.TargetStageID, in.DefaultLeadValue, in.Strategy, string(poolJSON), db.Micros(now))
		return err
	})
	return uuid, err
}

// SetNodeActive activates or deactivates an API input node of a pipeline.
func SetNodeActive(ctx context.Context, q db.Querier, acct account.Account, pipelineID int64, uuid string, active bool) error {
	res, err := q.Exec(ctx, `UPDATE input_nodes SET is_active = ? WHERE account_id = ? AND pipeline_id = ? AND uuid = ? AND node_type = 'api'`,
		active, acct.ID, pipelineID, uuid)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("Input node", uuid)
	}
	return nil
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func dedupe(ids []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// ---- Clients ---------------------------------------------------------------

// SearchClients finds clients by name (accent- and case-insensitive
// substring of "first last"), phone digits or e-mail; an empty query lists
// the newest. It returns at most limit clients and the number matching.
func SearchClients(ctx context.Context, q db.Querier, acct account.Account, query string, limit int) ([]contact.Client, int, error) {
	where, args := "c.account_id = ?", []any{acct.ID}
	if query = strings.TrimSpace(query); query != "" {
		conds := []string{"c.name_search LIKE ?", "LOWER(c.first_name || ' ' || c.last_name) LIKE ?", "c.email_norm LIKE ?"}
		like := "%" + escapeLike(strings.ToLower(query)) + "%"
		args = append(args, "%"+escapeLike(contact.SearchName(query, ""))+"%", like, like)
		if digits := phone.Digits(query); len(digits) >= 3 {
			conds = append(conds, "c.phone_national LIKE ?", "(CAST(c.phone_cc AS TEXT) || c.phone_national) LIKE ?")
			args = append(args, "%"+digits+"%", "%"+digits+"%")
		}
		for i := range conds {
			conds[i] += ` ESCAPE '\'`
		}
		where += " AND (" + strings.Join(conds, " OR ") + ")"
	}
	var total int
	if err := q.QueryRow(ctx, `SELECT COUNT(*) FROM clients c WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.Query(ctx, `SELECT `+contact.Columns+` FROM clients c WHERE `+where+` ORDER BY c.updated_at DESC, c.id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []contact.Client
	for rows.Next() {
		c, err := contact.Scan(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// GetClient loads one client of the account, or NOT_FOUND.
func GetClient(ctx context.Context, q db.Querier, acct account.Account, id int64) (contact.Client, error) {
	c, err := contact.Get(ctx, q, acct, id)
	if db.IsNoRows(err) {
		return c, notFound("Client", id)
	}
	return c, err
}

// Tag is a client's tag.
type Tag struct {
	ID          int64
	Name        string
	Color       string
	Description string
	Source      string
}

// ClientTags lists a client's tags by name.
func ClientTags(ctx context.Context, q db.Querier, acct account.Account, clientID int64) ([]Tag, error) {
	rows, err := q.Query(ctx, `SELECT t.id, t.name, t.color, COALESCE(t.description, ''), ct.source
		FROM client_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.account_id = ? AND ct.client_id = ? ORDER BY t.name`, acct.ID, clientID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Tag
	for rows.Next() {
		var t Tag
		if err := rows.Scan(&t.ID, &t.Name, &t.Color, &t.Description, &t.Source); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ClientUpdate is the whole editable record of a client as the form sends
// it: an empty string clears the field (the contract: clearing a stored
// field to empty is dashboard-only). Phones are not edited here: they are
// the client's identity for matching.
type ClientUpdate struct {
	FirstName, LastName, Email, Company, Timezone string
	LeadValue                                     string // "" clears
	Data                                          map[string]any
}

// UpdateClient writes u over the client.
func UpdateClient(ctx context.Context, store *db.DB, acct account.Account, id int64, u ClientUpdate, now time.Time) error {
	u.FirstName, u.LastName = strings.TrimSpace(u.FirstName), strings.TrimSpace(u.LastName)
	u.Email, u.Company, u.Timezone = strings.TrimSpace(u.Email), strings.TrimSpace(u.Company), strings.TrimSpace(u.Timezone)
	switch {
	case len(u.FirstName) > 100 || len(u.LastName) > 100:
		return errs.New(errs.ValidationError, "First and last names may have at most 100 characters.")
	case len(u.Email) > 255:
		return errs.New(errs.ValidationError, "An e-mail may have at most 255 characters.")
	case u.Email != "" && !plausibleEmail(u.Email):
		return errs.New(errs.ValidationError, "%q is not an e-mail address.", u.Email)
	case len(u.Company) > 255:
		return errs.New(errs.ValidationError, "A company may have at most 255 characters.")
	case u.Timezone != "" && !pipeline.ValidZone(u.Timezone):
		return errs.New(errs.ValidationError, "%q is not a time zone (use an IANA name such as Europe/Madrid).", u.Timezone)
	}
	var lead any
	if v := strings.TrimSpace(u.LeadValue); v != "" {
		f, ok := amount(v)
		if !ok {
			return errs.New(errs.ValidationError, "The lead value must be a number of zero or more.")
		}
		lead = f
	}
	if u.Data == nil {
		u.Data = map[string]any{}
	}
	for k := range u.Data {
		if strings.TrimSpace(k) == "" || len(k) > 100 {
			return errs.New(errs.ValidationError, "Custom field names must have 1 to 100 characters.")
		}
	}
	data, _ := json.Marshal(u.Data)
	if len(data) >= 16<<10 {
		return errs.New(errs.ValidationError, "Custom fields must stay under 16 KB.")
	}
	res, err := store.Exec(ctx, `UPDATE clients SET first_name = ?, last_name = ?, name_search = ?, email = ?, email_norm = ?,
			company = ?, timezone = ?, lead_value = ?, data = ?, updated_at = ?
		WHERE account_id = ? AND id = ?`,
		u.FirstName, u.LastName, contact.SearchName(u.FirstName, u.LastName), db.Null(u.Email), db.Null(contact.NormEmail(u.Email)),
		db.Null(u.Company), db.Null(u.Timezone), lead, string(data), db.Micros(now), acct.ID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("Client", id)
	}
	return nil
}

func plausibleEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.LastIndex(s, "@"):], ".")
}

// AddClientTag tags a client, creating the tag (grey) when the account has
// none of that name.
func AddClientTag(ctx context.Context, store *db.DB, acct account.Account, clientID int64, name string, now time.Time) error {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return errs.New(errs.ValidationError, "A tag needs a name of 1 to 100 characters.")
	}
	return store.Transact(ctx, func(tx *db.Tx) error {
		if _, err := GetClient(ctx, tx, acct, clientID); err != nil {
			return err
		}
		var tagID int64
		err := tx.QueryRow(ctx, `SELECT id FROM tags WHERE account_id = ? AND name = ?`, acct.ID, name).Scan(&tagID)
		if db.IsNoRows(err) {
			err = tx.QueryRow(ctx, `INSERT INTO tags (account_id, name, color, created_at) VALUES (?, ?, '#808080', ?) RETURNING id`,
				acct.ID, name, db.Micros(now)).Scan(&tagID)
		}
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM client_tags WHERE client_id = ? AND tag_id = ?`, clientID, tagID).Scan(&n); err != nil || n > 0 {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO client_tags (account_id, client_id, tag_id, source, created_at) VALUES (?, ?, ?, ?, ?)`,
			acct.ID, clientID, tagID, Source, db.Micros(now))
		return err
	})
}

// RemoveClientTag untags a client (the tag itself stays in the account).
func RemoveClientTag(ctx context.Context, q db.Querier, acct account.Account, clientID, tagID int64) error {
	res, err := q.Exec(ctx, `DELETE FROM client_tags WHERE account_id = ? AND client_id = ? AND tag_id = ?`, acct.ID, clientID, tagID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("Tag", tagID)
	}
	return nil
}

// ---- Waiting lists ----------------------------------------------------------

// SnoozeEntry puts an open entry aside until a time: no seat is offered to
// it before then (the worker wakes it).
func SnoozeEntry(ctx context.Context, q db.Querier, acct account.Account, id int64, until, now time.Time) error {
	if !until.After(now) {
		return errs.New(errs.ValidationError, "Snooze until a time in the future.")
	}
	return entryWrite(ctx, q, acct, id, `status = 'snoozed', snooze_until = ?, queued_at = NULL, seat_expires_at = NULL`, db.Micros(until), now)
}

// SetEntryFlag flags an open entry for review, or clears the flag.
func SetEntryFlag(ctx context.Context, q db.Querier, acct account.Account, id int64, flagged bool, now time.Time) error {
	return entryWrite(ctx, q, acct, id, `flagged_for_review = ?`, flagged, now)
}

func entryWrite(ctx context.Context, q db.Querier, acct account.Account, id int64, set string, arg any, now time.Time) error {
	res, err := q.Exec(ctx, `UPDATE waitlist_entries SET `+set+`, updated_at = ?
		WHERE account_id = ? AND id = ? AND status IN ('waiting', 'queued', 'snoozed')`, arg, db.Micros(now), acct.ID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var status string
		if err := q.QueryRow(ctx, `SELECT status FROM waitlist_entries WHERE account_id = ? AND id = ?`, acct.ID, id).Scan(&status); db.IsNoRows(err) {
			return notFound("Waiting-list entry", id)
		} else if err != nil {
			return err
		}
		return errs.New(errs.ValidationError, "The entry is already %s; only open entries can change.", status)
	}
	return nil
}

// UpdateWaitlist sets a list's settings.
func UpdateWaitlist(ctx context.Context, q db.Querier, acct account.Account, id int64, active bool, horizonDays int) error {
	if horizonDays < 1 || horizonDays > 365 {
		return errs.New(errs.ValidationError, "The horizon must be 1 to 365 days.")
	}
	res, err := q.Exec(ctx, `UPDATE waitlists SET active = ?, horizon_days = ? WHERE account_id = ? AND id = ? AND deleted_at IS NULL`,
		active, horizonDays, acct.ID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("Waiting list", id)
	}
	return nil
}

// ---- Calendar --------------------------------------------------------------

// The calendar's reads and writes live in internal/calendar
// (appointments.go); these names keep the dashboard's handlers and
// templates unchanged.
type (
	Appointment       = calendar.AppointmentView
	AppointmentFilter = calendar.AppointmentFilter
	Professional      = calendar.ProfessionalRef
)

var (
	ConfirmationStatuses  = calendar.ConfirmationStatuses
	ListAppointments      = calendar.ListAppointments
	GetAppointment        = calendar.GetAppointment
	RescheduleAppointment = calendar.RescheduleAppointment
	CancelAppointment     = calendar.CancelAppointment
	Professionals         = calendar.ProfessionalRefs
)

// ---- Conversations ------------------------------------------------------------

// Disposition is a disposition tag, for the conversation filters.
type Disposition struct {
	ID    int64
	Name  string
	Color string
}

// Dispositions lists the account's disposition tags.
func Dispositions(ctx context.Context, q db.Querier, acct account.Account) ([]Disposition, error) {
	rows, err := q.Query(ctx, `SELECT id, name, color FROM disposition_tags WHERE account_id = ? ORDER BY name, id`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Disposition
	for rows.Next() {
		var x Disposition
		if err := rows.Scan(&x.ID, &x.Name, &x.Color); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}
