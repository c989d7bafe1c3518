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

// LateCancelWindow is how close to the start a cancellation counts as late
// when the service's booking rules set no cancel_cutoff.
const LateCancelWindow = 24 * time.Hour

// Attendance is what a client's page says of the client's record: how
// many appointments the client missed, and how many were cancelled late.
type Attendance struct {
	NoShows, LateCancels int
}

// ClientAttendance counts the client's no_show appointments and the late
// cancels (docs/check-in.md): cancelled less than the service's
// cancel_cutoff before the start, or LateCancelWindow when it sets none.
// A cancelled appointment's last change is its cancellation.
func ClientAttendance(ctx context.Context, q db.Querier, acct account.Account, clientID int64) (Attendance, error) {
	var out Attendance
	late, err := LoadLateCancelRule(ctx, q, acct)
	if err != nil {
		return out, err
	}
	rows, err := q.Query(ctx, `SELECT status, service_id, start_at, updated_at FROM appointments
		WHERE account_id = ? AND client_id = ? AND status IN (?, ?)`, acct.ID, clientID, StatusNoShow, StatusCancelled)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			status                  string
			service, start, updated int64
		)
		if err := rows.Scan(&status, &service, &start, &updated); err != nil {
			return out, err
		}
		if status == StatusNoShow {
			out.NoShows++
			continue
		}
		if late.Late(service, db.Time(start), db.Time(updated)) {
			out.LateCancels++
		}
	}
	return out, rows.Err()
}
