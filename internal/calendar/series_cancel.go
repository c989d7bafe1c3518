package calendar

import (
	"context"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// CancelSeriesFrom cancels "this and the following" (docs/series.md): the
// appointment and every booked occurrence of its series that starts at or
// after it, in start order, each as CancelAppointmentTx cancels one (its
// pending messages withdrawn, its own appointment.cancelled). An
// appointment of no series is cancelled alone. It returns the cancelled
// ids.
func CancelSeriesFrom(ctx context.Context, tx *db.Tx, acct account.Account, appointmentID int64, change Change, now time.Time) ([]int64, error) {
	first, err := GetAppointment(ctx, tx, acct, appointmentID)
	if err != nil {
		return nil, err
	}
	following, err := followingSessions(ctx, tx, acct, first)
	if err != nil {
		return nil, err
	}
	if _, err := CancelAppointmentTx(ctx, tx, acct, appointmentID, change, now); err != nil {
		return nil, err
	}
	ids := []int64{appointmentID}
	for _, f := range following {
		if _, err := CancelAppointmentTx(ctx, tx, acct, f.id, change, now); err != nil {
			return nil, err
		}
		ids = append(ids, f.id)
	}
	return ids, nil
}

// session is one occurrence of a series: its id and start.
type session struct {
	id    int64
	start time.Time
}

// followingSessions are the booked occurrences of a's series that start
// after it, in start order ("this and the following" besides a itself);
// none for an appointment of no series.
func followingSessions(ctx context.Context, q db.Querier, acct account.Account, a AppointmentView) ([]session, error) {
	if a.SeriesID == 0 {
		return nil, nil
	}
	rows, err := q.Query(ctx, `SELECT id, start_at FROM appointments WHERE account_id = ? AND series_id = ? AND status = ? AND start_at > ?
		ORDER BY start_at, id`, acct.ID, a.SeriesID, StatusBooked, db.Micros(a.StartAt))
	if err != nil {
		return nil, fmt.Errorf("following sessions: %w", err)
	}
	defer rows.Close()
	var out []session
	for rows.Next() {
		var id, start int64
		if err := rows.Scan(&id, &start); err != nil {
			return nil, err
		}
		out = append(out, session{id, db.Time(start)})
	}
	return out, rows.Err()
}
