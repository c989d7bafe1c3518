package dashboard

// Changing an appointment from the grid: its status (arrived, no-show,
// completed, and undoing that). Moves are move_page.go's.

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
)

// markStatus handles "POST /app/appointments/{appointment_id}/status" with
// status arrived, no_show or completed, and undoStatus
// "POST /app/appointments/{appointment_id}/undo" (docs/check-in.md). Each
// change is audited in its transaction.
func (d *Dashboard) markStatus(w http.ResponseWriter, r *http.Request, s *session) error {
	status := r.PostForm.Get("status")
	return d.statusChange(w, r, s, false, func(tx *db.Tx, id int64) (calendar.StatusChange, error) {
		return calendar.MarkAppointmentStatusTx(r.Context(), tx, s.Account, id, status, d.clock.Now())
	})
}

func (d *Dashboard) undoStatus(w http.ResponseWriter, r *http.Request, s *session) error {
	return d.statusChange(w, r, s, true, func(tx *db.Tx, id int64) (calendar.StatusChange, error) {
		return calendar.UndoAppointmentStatusTx(r.Context(), tx, s.Account, id, d.clock.Now())
	})
}

func (d *Dashboard) statusChange(w http.ResponseWriter, r *http.Request, s *session, undo bool, fn func(tx *db.Tx, id int64) (calendar.StatusChange, error)) error {
	id, err := pathID(r, "appointment_id")
	if err != nil {
		return err
	}
	var c calendar.StatusChange
	err = d.db.Transact(r.Context(), func(tx *db.Tx) error {
		if c, err = fn(tx, id); err != nil {
			return err
		}
		return audit.Record(r.Context(), tx, s.Account, audit.Actor{UserID: s.UserID, UserName: s.UserName}, "updated", "appointment",
			strconv.FormatInt(id, 10), "status: "+c.Previous+" → "+c.Appointment.Status, d.clock.Now())
	})
	if err != nil {
		return statusRefusal(s, err)
	}
	a := c.Appointment
	when := sayDate(s.Lang, a.StartAt.In(s.Account.Location()), locale.ShortTime)
	var msg string
	switch {
	case undo:
		msg = s.Translate("Undone: the appointment of %s on %s is %s again.", a.ClientName, when, statusWord(s, a.Status))
	case a.Status == calendar.StatusArrived:
		msg = s.Translate("%s has arrived for the appointment on %s: in the waiting room.", a.ClientName, when)
	case a.Status == calendar.StatusNoShow:
		msg = s.Translate("Appointment of %s on %s marked no-show.", a.ClientName, when)
	default:
		msg = s.Translate("Appointment of %s on %s marked completed.", a.ClientName, when)
	}
	d.redirect(w, r, backTo(r, Prefix+"today"), "ok", msg)
	return nil
}

// statusRefusal says the status rule's refusals in the user's language
// (the area's details name what was refused).
func statusRefusal(s *session, err error) error {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.ValidationError {
		return err
	}
	if d, ok := e.Details.(map[string]any); ok {
		cur, hasCur := d["current_status"].(string)
		value, hasValue := d["value"].(string)
		switch {
		case hasCur && hasValue:
			return errs.New(errs.ValidationError, "%s", s.Translate("This appointment is %s: it cannot be marked %s.", statusWord(s, cur), statusWord(s, value)))
		case hasCur:
			return errs.New(errs.ValidationError, "%s", s.Translate("This appointment is %s: there is no change to undo.", statusWord(s, cur)))
		case hasValue:
			return errs.New(errs.ValidationError, "%s", s.Translate("Choose arrived, no-show or completed."))
		}
	}
	return localize(s, err)
}

// statusWord names an appointment status in a message, in the user's
// language.
func statusWord(s *session, status string) string {
	switch status {
	case calendar.StatusBooked:
		return s.TC("appointment", "booked")
	case calendar.StatusArrived:
		return s.TC("appointment", "arrived")
	case calendar.StatusCancelled:
		return s.TC("appointment", "cancelled")
	case calendar.StatusNoShow:
		return s.TC("appointment", "no-show")
	case calendar.StatusCompleted:
		return s.TC("appointment", "completed")
	}
	return status
}
