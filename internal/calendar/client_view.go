package calendar

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ClientAppointmentsLimit bounds the appointments a client's page lists
// (the most recent ones win).
const ClientAppointmentsLimit = 500

// ClientAppointments lists a client's appointments for the client's page:
// upcoming (ending at or after now) soonest first, then past most recent
// first, every status included. A client of another account has none.
func ClientAppointments(ctx context.Context, q db.Querier, acct account.Account, clientID int64, now time.Time) (upcoming, past []AppointmentView, err error) {
	rows, err := q.Query(ctx, appointmentSelect+` WHERE a.account_id = ? AND a.client_id = ? ORDER BY a.start_at DESC, a.id DESC LIMIT ?`,
		acct.ID, clientID, ClientAppointmentsLimit)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanAppointment(rows)
		if err != nil {
			return nil, nil, err
		}
		if a.EndAt.Before(now) {
			past = append(past, a)
		} else {
			upcoming = append(upcoming, a)
		}
	}
	// Newest first from the query: the upcoming read soonest first.
	for i, j := 0, len(upcoming)-1; i < j; i, j = i+1, j-1 {
		upcoming[i], upcoming[j] = upcoming[j], upcoming[i]
	}
	return upcoming, past, rows.Err()
}
