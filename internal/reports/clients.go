package reports

import (
	"context"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// NewClients is the new clients' section: the clients created in the
// period by source. A client has no source of its own; its source is its
// first appointment's, the earliest by start (api, dashboard, booking_page,
// waitlist), and "none" for a client with no appointment (docs/reports.md,
// New clients).
type NewClients struct {
	Total    int
	BySource []Count
}

// SourceNone is the source of a new client with no appointment.
const SourceNone = "none"

// ReadNewClients reads the new clients' section in one GROUP BY.
func ReadNewClients(ctx context.Context, q db.Querier, acct account.Account, f Filter) (NewClients, error) {
	var out NewClients
	rows, err := q.Query(ctx, `SELECT COALESCE((SELECT a.source FROM appointments a WHERE a.account_id = c.account_id AND a.client_id = c.id
			ORDER BY a.start_at, a.id LIMIT 1), ?) AS src, COUNT(*)
		FROM clients c WHERE c.account_id = ? AND c.created_at >= ? AND c.created_at < ? GROUP BY src`,
		SourceNone, acct.ID, db.Micros(f.From), db.Micros(f.To))
	if err != nil {
		return out, fmt.Errorf("count new clients: %w", err)
	}
	defer rows.Close()
	m := map[string]int{}
	for rows.Next() {
		var (
			src string
			n   int
		)
		if err := rows.Scan(&src, &n); err != nil {
			return out, err
		}
		m[src] += n
		out.Total += n
	}
	out.BySource = counts(m)
	return out, rows.Err()
}
