package calendar

import (
	"context"
	"database/sql"
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
	var series sql.NullInt64
	if err := tx.QueryRow(ctx, `SELECT series_id FROM appointments WHERE account_id = ? AND id = ?`, acct.ID, appointmentID).Scan(&series); err != nil {
		return nil, fmt.Errorf("series of appointment: %w", err)
	}
	if _, err := CancelAppointmentTx(ctx, tx, acct, appointmentID, change, now); err != nil {
		return nil, err
	}
	ids := []int64{appointmentID}
	if !series.Valid {
		return ids, nil
	}
	var start int64
	if err := tx.QueryRow(ctx, `SELECT start_at FROM appointments WHERE account_id = ? AND id = ?`, acct.ID, first.ID).Scan(&start); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT id FROM appointments WHERE account_id = ? AND series_id = ? AND status = ? AND start_at >= ? AND id <> ?
		ORDER BY start_at, id`, acct.ID, series.Int64, StatusBooked, start, appointmentID)
	if err != nil {
		return nil, fmt.Errorf("following occurrences: %w", err)
	}
	var following []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		following = append(following, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, id := range following {
		if _, err := CancelAppointmentTx(ctx, tx, acct, id, change, now); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}
