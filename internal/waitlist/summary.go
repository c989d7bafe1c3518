package waitlist

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Totals are the account-wide counts of the summary.
type Totals struct {
	ListsCount      int `json:"lists_count"`
	WaitingEntries  int `json:"waiting_entries"`
	WaitingPatients int `json:"waiting_patients"`
	QueuedEntries   int `json:"queued_entries"`
	FlaggedEntries  int `json:"flagged_entries"`
	Booked30d       int `json:"booked_30d"`
}

// ListCounts are one list's open-entry counts.
type ListCounts struct {
	WaitingEntries  int `json:"waiting_entries"`
	WaitingPatients int `json:"waiting_patients"`
	QueuedEntries   int `json:"queued_entries"`
	QueuedPatients  int `json:"queued_patients"`
	SnoozedEntries  int `json:"snoozed_entries"`
	FlaggedEntries  int `json:"flagged_entries"`
}

// ListSummary is one list of the summary.
type ListSummary struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	IsActive    bool       `json:"is_active"`
	Status      string     `json:"status"`
	HorizonDays int        `json:"horizon_days"`
	Counts      ListCounts `json:"counts"`
	ServiceIDs  []int64    `json:"service_ids"`
	LastRunAt   *time.Time `json:"last_run_at"`
	NextRunAt   *time.Time `json:"next_run_at"`
}

// ServiceSummary is one (list, service) pair of the summary.
type ServiceSummary struct {
	ServiceID       int64  `json:"service_id"`
	ServiceName     string `json:"service_name"`
	WaitlistID      int64  `json:"waitlist_id"`
	WaitingEntries  int    `json:"waiting_entries"`
	WaitingPatients int    `json:"waiting_patients"`
	QueuedEntries   int    `json:"queued_entries"`
	SnoozedEntries  int    `json:"snoozed_entries"`
	FlaggedEntries  int    `json:"flagged_entries"`
}

// SummaryResult is the data of the summary endpoint.
type SummaryResult struct {
	Totals   Totals           `json:"totals"`
	Lists    []ListSummary    `json:"lists"`
	Services []ServiceSummary `json:"services"`
}

// The counting rules (docs/contract.md, Waiting-list summary): *_entries count entries,
// *_patients distinct clients; waiting counts only 'waiting' (queued and
// snoozed are counted apart); flagged counts open entries flagged for
// review. Entries of deleted lists are not counted.
const countColumns = `
	SUM(CASE WHEN e.status = 'waiting' THEN 1 ELSE 0 END),
	COUNT(DISTINCT CASE WHEN e.status = 'waiting' THEN e.client_id END),
	SUM(CASE WHEN e.status = 'queued' THEN 1 ELSE 0 END),
	COUNT(DISTINCT CASE WHEN e.status = 'queued' THEN e.client_id END),
	SUM(CASE WHEN e.status = 'snoozed' THEN 1 ELSE 0 END),
	SUM(CASE WHEN e.flagged_for_review THEN 1 ELSE 0 END)`

const openOfLiveLists = `FROM waitlist_entries e JOIN waitlists w ON w.account_id = e.account_id AND w.id = e.waitlist_id AND w.deleted_at IS NULL
	WHERE e.account_id = ? AND e.status IN ` + openStatuses

// Summarize counts acct's open entries overall, per non-deleted list and per
// (list, service), in a constant number of queries. booked_30d counts the
// entries resolved as booked in the 30 days before now.
func Summarize(ctx context.Context, q db.Querier, acct account.Account, now time.Time) (*SummaryResult, error) {
	res := &SummaryResult{Lists: []ListSummary{}, Services: []ServiceSummary{}}
	var queuedPatients, snoozed int
	err := q.QueryRow(ctx, `SELECT `+countColumns+` `+openOfLiveLists, acct.ID).Scan(
		nullInt(&res.Totals.WaitingEntries), &res.Totals.WaitingPatients, nullInt(&res.Totals.QueuedEntries), &queuedPatients,
		nullInt(&snoozed), nullInt(&res.Totals.FlaggedEntries))
	if err != nil {
		return nil, fmt.Errorf("summary totals: %w", err)
	}
	if err := q.QueryRow(ctx, `SELECT COUNT(*) FROM waitlist_entries e JOIN waitlists w ON w.account_id = e.account_id AND w.id = e.waitlist_id AND w.deleted_at IS NULL
		WHERE e.account_id = ? AND e.status = 'booked' AND e.resolved_at >= ? AND e.resolved_at <= ?`,
		acct.ID, db.Micros(now.Add(-30*24*time.Hour)), db.Micros(now)).Scan(&res.Totals.Booked30d); err != nil {
		return nil, fmt.Errorf("summary booked: %w", err)
	}

	rows, err := q.Query(ctx, `SELECT `+listColumns+` FROM waitlists w WHERE w.account_id = ? AND w.deleted_at IS NULL ORDER BY w.id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("summary lists: %w", err)
	}
	index := map[int64]int{}
	for rows.Next() {
		l, err := scanList(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		status := "paused"
		if l.Active {
			status = "active"
		}
		ls := ListSummary{ID: l.ID, Name: l.Name, IsActive: l.Active, Status: status, HorizonDays: l.HorizonDays,
			ServiceIDs: []int64{}, LastRunAt: tsOrNil(l.LastRunAt)}
		if l.Active {
			ls.NextRunAt = tsOrNil(l.NextRunAt)
		}
		index[l.ID] = len(res.Lists)
		res.Lists = append(res.Lists, ls)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	res.Totals.ListsCount = len(res.Lists)

	rows, err = q.Query(ctx, `SELECT e.waitlist_id, `+countColumns+` `+openOfLiveLists+` GROUP BY e.waitlist_id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("summary per list: %w", err)
	}
	for rows.Next() {
		var id int64
		var c ListCounts
		if err := rows.Scan(&id, nullInt(&c.WaitingEntries), &c.WaitingPatients, nullInt(&c.QueuedEntries), &c.QueuedPatients,
			nullInt(&c.SnoozedEntries), nullInt(&c.FlaggedEntries)); err != nil {
			rows.Close()
			return nil, err
		}
		if i, ok := index[id]; ok {
			res.Lists[i].Counts = c
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	// Every (list, service) pair, with its counts (zero when it has no open
	// entry).
	rows, err = q.Query(ctx, `SELECT ws.waitlist_id, s.id, s.name, x.waiting, x.waiting_patients, x.queued, x.snoozed, x.flagged
		FROM waitlist_services ws
		JOIN waitlists w ON w.account_id = ws.account_id AND w.id = ws.waitlist_id AND w.deleted_at IS NULL
		JOIN services s ON s.account_id = ws.account_id AND s.id = ws.service_id
		LEFT JOIN (SELECT e.waitlist_id, e.service_id,
				SUM(CASE WHEN e.status = 'waiting' THEN 1 ELSE 0 END) AS waiting,
				COUNT(DISTINCT CASE WHEN e.status = 'waiting' THEN e.client_id END) AS waiting_patients,
				SUM(CASE WHEN e.status = 'queued' THEN 1 ELSE 0 END) AS queued,
				SUM(CASE WHEN e.status = 'snoozed' THEN 1 ELSE 0 END) AS snoozed,
				SUM(CASE WHEN e.flagged_for_review THEN 1 ELSE 0 END) AS flagged
			FROM waitlist_entries e WHERE e.account_id = ? AND e.status IN `+openStatuses+`
			GROUP BY e.waitlist_id, e.service_id) x ON x.waitlist_id = ws.waitlist_id AND x.service_id = ws.service_id
		WHERE ws.account_id = ?
		ORDER BY ws.waitlist_id, s.id`, acct.ID, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("summary per service: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s ServiceSummary
		if err := rows.Scan(&s.WaitlistID, &s.ServiceID, &s.ServiceName, nullInt(&s.WaitingEntries), nullInt(&s.WaitingPatients),
			nullInt(&s.QueuedEntries), nullInt(&s.SnoozedEntries), nullInt(&s.FlaggedEntries)); err != nil {
			return nil, err
		}
		res.Services = append(res.Services, s)
		if i, ok := index[s.WaitlistID]; ok {
			res.Lists[i].ServiceIDs = append(res.Lists[i].ServiceIDs, s.ServiceID)
		}
	}
	return res, rows.Err()
}

// nullIntDest scans a SUM that is NULL over no rows as 0.
type nullIntDest struct{ p *int }

func nullInt(p *int) *nullIntDest { return &nullIntDest{p} }

func (d *nullIntDest) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*d.p = 0
	case int64:
		*d.p = int(x)
	case float64:
		*d.p = int(x)
	case []byte:
		var n int
		if _, err := fmt.Sscan(string(x), &n); err != nil {
			return err
		}
		*d.p = n
	case string:
		var n int
		if _, err := fmt.Sscan(x, &n); err != nil {
			return err
		}
		*d.p = n
	default:
		return fmt.Errorf("unexpected count type %T", v)
	}
	return nil
}
