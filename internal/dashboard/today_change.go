package dashboard

// Changing an appointment from the grid: its outcome (no-show, completed).
// Moves are move_page.go's.

import (
	"errors"
	"net/http"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// markStatus handles "POST /app/appointments/{appointment_id}/status" with
// status no_show or completed.
func (d *Dashboard) markStatus(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "appointment_id")
	if err != nil {
		return err
	}
	status := r.PostForm.Get("status")
	a, err := calendar.MarkAppointmentStatus(r.Context(), d.db, s.Account, id, status, d.clock.Now())
	if err != nil {
		return statusRefusal(s, err)
	}
	when := formatTime(s.Lang, a.StartAt.In(s.Account.Location()), "Mon 2 Jan 15:04")
	msg := s.Translate("Appointment of %s on %s marked completed.", a.ClientName, when)
	if status == calendar.StatusNoShow {
		msg = s.Translate("Appointment of %s on %s marked no-show.", a.ClientName, when)
	}
	d.redirect(w, r, backTo(r, Prefix+"today"), "ok", msg)
	return nil
}

// statusRefusal says MarkAppointmentStatus's refusals in the user's
// language (the area's details name what was refused).
func statusRefusal(s *session, err error) error {
	var e *errs.Error
	if err == calendar.ErrNotStarted {
		return errs.New(errs.ValidationError, "%s", s.Translate("The appointment has not started yet: mark it once its start has passed."))
	}
	if !errors.As(err, &e) || e.Code != errs.ValidationError {
		return err
	}
	if d, ok := e.Details.(map[string]any); ok {
		if cur, ok := d["current_status"].(string); ok {
			return errs.New(errs.ValidationError, "%s", s.Translate("Only booked appointments can be marked; this one is %s.", statusWord(s, cur)))
		}
		if _, ok := d["value"]; ok {
			return errs.New(errs.ValidationError, "%s", s.Translate("Choose no-show or completed."))
		}
	}
	return err
}

// statusWord names an appointment status in a message, in the user's
// language.
func statusWord(s *session, status string) string {
	switch status {
	case calendar.StatusBooked:
		return s.TC("appointment", "booked")
	case calendar.StatusCancelled:
		return s.TC("appointment", "cancelled")
	case calendar.StatusNoShow:
		return s.TC("appointment", "no-show")
	case calendar.StatusCompleted:
		return s.TC("appointment", "completed")
	}
	return status
}
