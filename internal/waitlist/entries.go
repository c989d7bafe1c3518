package waitlist

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// EntryClient is the {id, first_name, last_name, phone, email} shape of the
// client inside an entry.
type EntryClient struct {
	ID        int64   `json:"id"`
	FirstName string  `json:"first_name"`
	LastName  string  `json:"last_name"`
	Phone     *string `json:"phone"`
	Email     *string `json:"email"`
}

// Entry is a waiting-list entry as every endpoint returns it.
//
// snooze_until, queued_at and seat_expires_at are left out while unset (the
// contract: "may be absent"); every other key is always present, null when
// it has no value. created only appears on add responses.
type Entry struct {
	ID                        int64       `json:"id"`
	WaitlistID                int64       `json:"waitlist_id"`
	Client                    EntryClient `json:"client"`
	Service                   Service     `json:"service"`
	Status                    string      `json:"status"`
	Priority                  int         `json:"priority"`
	Source                    string      `json:"source"`
	CreatedAt                 time.Time   `json:"created_at"` // instants UTC to the microsecond (db.Time): JSON writes them as clock.Format does
	Position                  *int64      `json:"position"`
	QueueAttempts             int         `json:"queue_attempts"`
	FlaggedForReview          bool        `json:"flagged_for_review"`
	SnoozeUntil               *time.Time  `json:"snooze_until,omitempty"`
	QueuedAt                  *time.Time  `json:"queued_at,omitempty"`
	SeatExpiresAt             *time.Time  `json:"seat_expires_at,omitempty"`
	PreferredProfessionalID   *int64      `json:"preferred_professional_id"`
	PreferredProfessionalName *string     `json:"preferred_professional_name"`
	EarliestDate              *string     `json:"earliest_date"`
	LatestDate                *string     `json:"latest_date"`
	PreferredTimeWindows      []string    `json:"preferred_time_windows"`
	Notes                     string      `json:"notes"`
	DaysWaiting               int         `json:"days_waiting"`
	ResolvedAt                *time.Time  `json:"resolved_at"`
	ResolutionReason          *string     `json:"resolution_reason"`
	Created                   *bool       `json:"created,omitempty"`

	clientID, serviceID int64
}

// timeWindows turns the stored time_preference into preferred_time_windows:
// "any" is no constraint, so no window.
func timeWindows(pref string) []string {
	if pref == "" || pref == "any" {
		return []string{}
	}
	return []string{pref}
}

// daysWaiting is the number of whole days from created to now.
func daysWaiting(created, now time.Time) int {
	if !now.After(created) {
		return 0
	}
	return int(now.Sub(created) / (24 * time.Hour))
}

// entryQuery selects entries with their position. The position is computed
// set-based, in the same statement: a window over the open entries of every
// (list, service) partition that holds a selected entry. It must not be
// computed over the selected entries alone, or filtering by client or
// priority would change everyone's rank.
//
// filter is a condition on alias e (it must include e.account_id); it is
// used twice, so its args are bound twice.
func entryQuery(filter string) string {
	return `WITH ranked AS (
		SELECT w.account_id, w.id, ROW_NUMBER() OVER (PARTITION BY w.waitlist_id, w.service_id ORDER BY w.priority, w.created_at, w.id) AS pos
		FROM waitlist_entries w
		WHERE w.account_id = ? AND w.status IN ` + openStatuses + `
		  AND EXISTS (SELECT 1 FROM waitlist_entries e WHERE ` + filter + ` AND e.waitlist_id = w.waitlist_id AND e.service_id = w.service_id)
	)
	SELECT e.id, e.waitlist_id, e.status, e.priority, e.source, e.created_at, e.queue_attempts, e.flagged_for_review,
		e.snooze_until, e.queued_at, e.seat_expires_at, e.preferred_professional_id, p.name, e.earliest_date, e.latest_date,
		e.time_preference, e.notes, e.resolved_at, e.resolution_reason,
		s.id, s.name, c.id, c.first_name, c.last_name, c.phone_cc, c.phone_national, c.email, r.pos
	FROM waitlist_entries e
	JOIN clients c ON c.account_id = e.account_id AND c.id = e.client_id
	JOIN services s ON s.account_id = e.account_id AND s.id = e.service_id
	LEFT JOIN professionals p ON p.account_id = e.account_id AND p.id = e.preferred_professional_id
	LEFT JOIN ranked r ON r.account_id = e.account_id AND r.id = e.id
	WHERE ` + filter
}

func queryEntries(ctx context.Context, q db.Querier, acct account.Account, filter string, args []any, tail string, tailArgs []any, now time.Time) ([]Entry, error) {
	all := make([]any, 0, 1+2*len(args)+len(tailArgs))
	all = append(all, acct.ID)
	all = append(all, args...)
	all = append(all, args...)
	all = append(all, tailArgs...)
	rows, err := q.Query(ctx, entryQuery(filter)+" "+tail, all...)
	if err != nil {
		return nil, fmt.Errorf("query waiting-list entries: %w", err)
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		e, err := scanEntry(rows, now)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func scanEntry(row interface{ Scan(...any) error }, now time.Time) (Entry, error) {
	var (
		e                                  Entry
		created                            int64
		snooze, queued, expires, resolved  sql.NullInt64
		profID, cc, pos                    sql.NullInt64
		profName, earliest, latest, reason sql.NullString
		national, email                    sql.NullString
		timePref                           string
	)
	err := row.Scan(&e.ID, &e.WaitlistID, &e.Status, &e.Priority, &e.Source, &created, &e.QueueAttempts, &e.FlaggedForReview,
		&snooze, &queued, &expires, &profID, &profName, &earliest, &latest,
		&timePref, &e.Notes, &resolved, &reason,
		&e.Service.ID, &e.Service.Name, &e.Client.ID, &e.Client.FirstName, &e.Client.LastName, &cc, &national, &email, &pos)
	if err != nil {
		return e, err
	}
	e.clientID, e.serviceID = e.Client.ID, e.Service.ID
	createdAt := db.Time(created)
	e.CreatedAt = createdAt
	e.DaysWaiting = daysWaiting(createdAt, now)
	e.SnoozeUntil, e.QueuedAt, e.SeatExpiresAt, e.ResolvedAt = tsOrNil(snooze), tsOrNil(queued), tsOrNil(expires), tsOrNil(resolved)
	if profID.Valid {
		e.PreferredProfessionalID = &profID.Int64
		if profName.Valid {
			e.PreferredProfessionalName = &profName.String
		}
	}
	e.EarliestDate, e.LatestDate, e.ResolutionReason = strOrNil(earliest), strOrNil(latest), strOrNil(reason)
	e.PreferredTimeWindows = timeWindows(timePref)
	if national.Valid {
		p := phone.Number{CountryCode: int(cc.Int64), National: national.String}.E164()
		e.Client.Phone = &p
	}
	e.Client.Email = strOrNil(email)
	if pos.Valid && IsOpen(e.Status) {
		e.Position = &pos.Int64
	}
	return e, nil
}

func strOrNil(v sql.NullString) *string {
	if !v.Valid || v.String == "" {
		return nil
	}
	return &v.String
}

// entriesByIDs loads entries of acct by id, in the order of ids.
func entriesByIDs(ctx context.Context, q db.Querier, acct account.Account, ids []int64, now time.Time) ([]Entry, error) {
	if len(ids) == 0 {
		return []Entry{}, nil
	}
	in, args := db.In(ids)
	found, err := queryEntries(ctx, q, acct, "e.account_id = ? AND e.id IN "+in, append([]any{acct.ID}, args...), "", nil, now)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]Entry, len(found))
	for _, e := range found {
		byID[e.ID] = e
	}
	out := make([]Entry, 0, len(ids))
	for _, id := range ids {
		if e, ok := byID[id]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// Get returns one entry of acct, or NOT_FOUND.
func Get(ctx context.Context, q db.Querier, acct account.Account, id int64, now time.Time) (Entry, error) {
	found, err := entriesByIDs(ctx, q, acct, []int64{id}, now)
	if err != nil {
		return Entry{}, err
	}
	if len(found) == 0 {
		return Entry{}, errs.WithDetails(errs.NotFound, map[string]any{"entry_id": id}, "Waiting-list entry %d not found.", id)
	}
	return found[0], nil
}

// DefaultLimit and MaxLimit bound a page of entries.
const DefaultLimit, MaxLimit = 50, 200

// Filter narrows an entry listing. Zero fields do not filter.
type Filter struct {
	WaitlistID int64
	ServiceID  int64
	ClientID   int64
	// Status is one status, or "open" (the default when empty), "resolved"
	// or "all".
	Status        string
	Priority      *int
	Limit, Offset int
}

// ListEntries lists acct's entries ordered by list, service and position;
// within a (list, service), resolved entries follow the open ones, newest
// first. It returns the page and the total matching.
func ListEntries(ctx context.Context, q db.Querier, acct account.Account, f Filter, now time.Time) ([]Entry, int, error) {
	where, args := []string{"e.account_id = ?"}, []any{acct.ID}
	if f.WaitlistID != 0 {
		where, args = append(where, "e.waitlist_id = ?"), append(args, f.WaitlistID)
	}
	if f.ServiceID != 0 {
		where, args = append(where, "e.service_id = ?"), append(args, f.ServiceID)
	}
	if f.ClientID != 0 {
		where, args = append(where, "e.client_id = ?"), append(args, f.ClientID)
	}
	if f.Priority != nil {
		where, args = append(where, "e.priority = ?"), append(args, *f.Priority)
	}
	switch f.Status {
	case "", "open":
		where = append(where, "e.status IN "+openStatuses)
	case "resolved":
		where = append(where, "e.status NOT IN "+openStatuses)
	case "all":
	default:
		where, args = append(where, "e.status = ?"), append(args, f.Status)
	}
	filter := strings.Join(where, " AND ")
	var total int
	if err := q.QueryRow(ctx, "SELECT COUNT(*) FROM waitlist_entries e WHERE "+filter, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count waiting-list entries: %w", err)
	}
	if total == 0 || f.Offset >= total {
		return []Entry{}, total, nil
	}
	tail := `ORDER BY e.waitlist_id, e.service_id, CASE WHEN r.pos IS NULL THEN 1 ELSE 0 END, r.pos, e.created_at DESC, e.id DESC
		LIMIT ? OFFSET ?`
	list, err := queryEntries(ctx, q, acct, filter, args, tail, []any{f.Limit, f.Offset}, now)
	return list, total, err
}
