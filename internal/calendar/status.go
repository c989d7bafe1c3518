package calendar

// An appointment's outcome: once its start has passed, the front desk marks
// a booked appointment no_show or completed (the dashboard's Today grid).
// The rule and its effects live here so every door that offers it answers
// the same way.

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// Appointment statuses. An appointment is created booked; cancel, no_show
// and completed end it (the API lists only booked: "later transitions happen
// in the dashboard").
const (
	StatusBooked    = "booked"
	StatusCancelled = "cancelled"
	StatusNoShow    = "no_show"
	StatusCompleted = "completed"
)

// OutcomeStatuses are the statuses MarkAppointmentStatus sets.
var OutcomeStatuses = []string{StatusNoShow, StatusCompleted}

// MarkAppointmentStatus records the outcome of a booked appointment whose
// start has passed: status is no_show or completed. Its reminders not sent
// yet are withdrawn, and appointment.status_changed (the fields of
// appointment.booked plus status and previous_status) goes to the
// account's webhooks in the same transaction. Anything else is a
// VALIDATION_ERROR; another account's appointment is NOT_FOUND.
func MarkAppointmentStatus(ctx context.Context, store *db.DB, acct account.Account, id int64, status string, now time.Time) (AppointmentView, error) {
	if status != StatusNoShow && status != StatusCompleted {
		return AppointmentView{}, errs.WithDetails(errs.ValidationError, map[string]any{"field": "status", "value": status},
			"An appointment can be marked no_show or completed, not %q.", status)
	}
	var out AppointmentView
	err := store.Transact(ctx, func(tx *db.Tx) error {
		a, err := GetAppointment(ctx, tx, acct, id)
		if err != nil {
			return err
		}
		if a.Status != StatusBooked {
			return errs.WithDetails(errs.ValidationError, map[string]any{"field": "status", "current_status": a.Status},
				"Only booked appointments can be marked; this one is %s.", a.Status)
		}
		if a.StartAt.After(now) {
			return ErrNotStarted
		}
		// The status in the WHERE clause makes a concurrent mark (or
		// cancel) that committed first win: this one then changes nothing.
		res, err := tx.Exec(ctx, `UPDATE appointments SET status = ?, updated_at = ? WHERE account_id = ? AND id = ? AND status = ?`,
			status, db.Micros(now), acct.ID, id, StatusBooked)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return errs.New(errs.ValidationError, "The appointment changed meanwhile; reload and try again.")
		}
		if err := cancelNotifications(ctx, tx, acct, id, now); err != nil {
			return err
		}
		out = a
		out.Status = status
		data := appointmentEvent(a)
		data["status"], data["previous_status"] = status, a.Status
		return jobs.Emit(ctx, tx, acct, now, jobs.Event{Type: jobs.EventAppointmentStatusChanged, SourceID: id, Data: data})
	})
	return out, err
}

// ErrNotStarted refuses to mark the outcome of an appointment that has not
// started yet.
var ErrNotStarted = errs.New(errs.ValidationError, "The appointment has not started yet: mark it once its start has passed.")
