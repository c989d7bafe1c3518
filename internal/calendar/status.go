package calendar

// An appointment's day at the front desk (docs/check-in.md): booked →
// arrived (the patient is in the waiting room) → completed, or booked or
// arrived → no_show; the front desk may undo each change, back to the
// status before, on the day it was made (in the account's zone). Cancelling
// is not part of this flow (appointments.go). The rule and its effects live
// here so every door that offers it answers the same way.

import (
	"context"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// Appointment statuses. An appointment is created booked; arrived keeps it
// on the calendar (its time stays taken); cancel, no_show and completed
// end it.
const (
	StatusBooked    = "booked"
	StatusArrived   = "arrived"
	StatusCancelled = "cancelled"
	StatusNoShow    = "no_show"
	StatusCompleted = "completed"
)

// OutcomeStatuses are the statuses MarkAppointmentStatus sets.
var OutcomeStatuses = []string{StatusArrived, StatusNoShow, StatusCompleted}

// StatusChange is one change of an appointment's status: the appointment
// as it is now, and the status it had.
type StatusChange struct {
	Appointment AppointmentView
	Previous    string
}

// statusFrom lists, for each status the front desk sets, the statuses it
// may be set from.
var statusFrom = map[string][]string{
	StatusArrived:   {StatusBooked},
	StatusCompleted: {StatusBooked, StatusArrived},
	StatusNoShow:    {StatusBooked, StatusArrived},
}

// MarkAppointmentStatus runs MarkAppointmentStatusTx in a transaction of
// its own.
func MarkAppointmentStatus(ctx context.Context, store *db.DB, acct account.Account, id int64, status string, now time.Time) (StatusChange, error) {
	return db.InTx(ctx, store, func(tx *db.Tx) (StatusChange, error) { return MarkAppointmentStatusTx(ctx, tx, acct, id, status, now) })
}

// MarkAppointmentStatusTx sets status (arrived, completed or no_show) on
// the appointment. arrived is for a booked appointment on its day (the
// time of arrival is kept); no_show for a booked or arrived one whose
// start has passed; completed for an arrived one, or a booked one whose
// start has passed. Its reminders not sent yet are withdrawn, and
// appointment.status_changed goes to the account's webhooks in tx. Anything
// else is a VALIDATION_ERROR; another account's appointment is NOT_FOUND.
func MarkAppointmentStatusTx(ctx context.Context, tx *db.Tx, acct account.Account, id int64, status string, now time.Time) (StatusChange, error) {
	from, ok := statusFrom[status]
	if !ok {
		return StatusChange{}, errs.WithDetails(errs.ValidationError, map[string]any{"field": "status", "value": status},
			"An appointment can be marked arrived, no_show or completed, not %q.", status)
	}
	a, err := GetAppointment(ctx, tx, acct, id)
	if err != nil {
		return StatusChange{}, err
	}
	if !slices.Contains(from, a.Status) {
		return StatusChange{}, errs.WithDetails(errs.ValidationError, map[string]any{"field": "status", "current_status": a.Status, "value": status},
			"This appointment is %s: it cannot be marked %s.", a.Status, status)
	}
	loc := acct.Location()
	switch {
	case status == StatusArrived && !sameDay(a.StartAt, now, loc):
		return StatusChange{}, ErrNotToday
	case status != StatusArrived && a.Status == StatusBooked && a.StartAt.After(now):
		return StatusChange{}, ErrNotStarted
	}
	set, args := `arrived_at = arrived_at`, []any{status, db.Micros(now), db.Micros(now)}
	if status == StatusArrived {
		set, args = `arrived_at = ?`, append(args, db.Micros(now))
	}
	if err := setStatus(ctx, tx, acct, a.ID, a.Status, set, args...); err != nil {
		return StatusChange{}, err
	}
	if err := cancelNotifications(ctx, tx, acct, id, now); err != nil {
		return StatusChange{}, err
	}
	return emitStatus(ctx, tx, acct, a, status, now)
}

// UndoAppointmentStatus runs UndoAppointmentStatusTx in a transaction of
// its own.
func UndoAppointmentStatus(ctx context.Context, store *db.DB, acct account.Account, id int64, now time.Time) (StatusChange, error) {
	return db.InTx(ctx, store, func(tx *db.Tx) (StatusChange, error) { return UndoAppointmentStatusTx(ctx, tx, acct, id, now) })
}

// UndoAppointmentStatusTx puts the appointment back to the status it had
// before its last change: arrived goes back to booked; completed and
// no_show go back to arrived when the patient had arrived, to booked if
// not. Only on the day of the change (ErrUndoTooLate after); withdrawn
// reminders stay withdrawn. appointment.status_changed goes out as for a
// change.
func UndoAppointmentStatusTx(ctx context.Context, tx *db.Tx, acct account.Account, id int64, now time.Time) (StatusChange, error) {
	a, err := GetAppointment(ctx, tx, acct, id)
	if err != nil {
		return StatusChange{}, err
	}
	if _, ok := statusFrom[a.Status]; !ok {
		return StatusChange{}, errs.WithDetails(errs.ValidationError, map[string]any{"field": "status", "current_status": a.Status},
			"This appointment is %s: there is no change to undo.", a.Status)
	}
	if !CanUndoStatus(a, now, acct.Location()) {
		return StatusChange{}, ErrUndoTooLate
	}
	back, set := StatusBooked, `arrived_at = NULL`
	if a.Status != StatusArrived && !a.ArrivedAt.IsZero() {
		back, set = StatusArrived, `arrived_at = arrived_at`
	}
	if err := setStatus(ctx, tx, acct, a.ID, a.Status, set, back, db.Micros(now), db.Micros(now)); err != nil {
		return StatusChange{}, err
	}
	return emitStatus(ctx, tx, acct, a, back, now)
}

// CanMarkStatus says whether a may be marked status now (the rule of
// MarkAppointmentStatusTx), for a door that offers only what is allowed.
func CanMarkStatus(a AppointmentView, status string, now time.Time, loc *time.Location) bool {
	if !slices.Contains(statusFrom[status], a.Status) {
		return false
	}
	if status == StatusArrived {
		return sameDay(a.StartAt, now, loc)
	}
	return a.Status == StatusArrived || !a.StartAt.After(now)
}

// CanUndoStatus says whether a's last status change may be undone now:
// the front desk made it, on today's date in loc.
func CanUndoStatus(a AppointmentView, now time.Time, loc *time.Location) bool {
	_, ok := statusFrom[a.Status]
	return ok && !a.StatusChangedAt.IsZero() && sameDay(a.StatusChangedAt, now, loc)
}

// setStatus moves the appointment from status from to args[0] (args: the
// status, updated_at, status_changed_at, then set's own). The status in
// the WHERE clause makes a concurrent change that committed first win:
// this one then changes nothing and says so.
func setStatus(ctx context.Context, tx *db.Tx, acct account.Account, id int64, from, set string, args ...any) error {
	res, err := tx.Exec(ctx, `UPDATE appointments SET status = ?, updated_at = ?, status_changed_at = ?, `+set+`
		WHERE account_id = ? AND id = ? AND status = ?`, append(args, acct.ID, id, from)...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return errs.New(errs.ValidationError, "The appointment changed meanwhile; reload and try again.")
	}
	return nil
}

// emitStatus sends appointment.status_changed (the fields of
// appointment.booked plus status, previous_status and by) in tx.
func emitStatus(ctx context.Context, tx *db.Tx, acct account.Account, a AppointmentView, status string, now time.Time) (StatusChange, error) {
	data := appointmentEvent(a)
	data["status"], data["previous_status"], data["by"] = status, a.Status, ByStaff
	out := StatusChange{Appointment: a, Previous: a.Status}
	out.Appointment.Status = status
	return out, jobs.Emit(ctx, tx, acct, now, jobs.Event{Type: jobs.EventAppointmentStatusChanged, SourceID: a.ID, Data: data})
}

// sameDay says whether a and b fall on the same date in loc.
func sameDay(a, b time.Time, loc *time.Location) bool {
	ay, am, ad := a.In(loc).Date()
	by, bm, bd := b.In(loc).Date()
	return ay == by && am == bm && ad == bd
}

// The refusals of the day's rule.
var (
	// ErrNotStarted refuses the outcome of a booked appointment that has
	// not started yet.
	ErrNotStarted = errs.New(errs.ValidationError, "The appointment has not started yet: mark it once its start has passed.")
	// ErrNotToday refuses an arrival on another day than the appointment's.
	ErrNotToday = errs.New(errs.ValidationError, "A patient can be marked arrived only on the day of the appointment.")
	// ErrUndoTooLate refuses to undo a change made on an earlier day.
	ErrUndoTooLate = errs.New(errs.ValidationError, "A change can be undone only on the day it was made.")
)
