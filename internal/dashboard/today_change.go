package dashboard

// Changing an appointment from the grid: its outcome (no-show, completed)
// and a move to another free slot.

import (
	"errors"
	"net/http"
	"time"

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
	msg := s.T("Appointment of %s on %s marked completed.", a.ClientName, when)
	if status == calendar.StatusNoShow {
		msg = s.T("Appointment of %s on %s marked no-show.", a.ClientName, when)
	}
	d.redirect(w, r, backTo(r, Prefix+"today"), "ok", msg)
	return nil
}

// statusRefusal says MarkAppointmentStatus's refusals in the user's
// language (the area's details name what was refused).
func statusRefusal(s *session, err error) error {
	var e *errs.Error
	if err == calendar.ErrNotStarted {
		return errs.New(errs.ValidationError, "%s", s.T("The appointment has not started yet: mark it once its start has passed."))
	}
	if !errors.As(err, &e) || e.Code != errs.ValidationError {
		return err
	}
	if d, ok := e.Details.(map[string]any); ok {
		if cur, ok := d["current_status"].(string); ok {
			return errs.New(errs.ValidationError, "%s", s.T("Only booked appointments can be marked; this one is %s.", statusWord(s, cur)))
		}
		if _, ok := d["value"]; ok {
			return errs.New(errs.ValidationError, "%s", s.T("Choose no-show or completed."))
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

// slotDay is one day of free slots on the reschedule page.
type slotDay struct {
	Day   time.Time
	Slots []rescheduleSlot
}

type rescheduleSlot struct {
	Start, End   time.Time
	Value        string // the reschedule form's start: datetime-local in the account's zone
	Professional calendar.Ref
	Current      bool // the appointment's own professional
}

// reschedulePage handles "GET /app/appointments/{appointment_id}/reschedule":
// the free slots of the appointment's service over the next 7 days, with any
// professional offering it; each posts to the reschedule action.
func (d *Dashboard) reschedulePage(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "appointment_id")
	if err != nil {
		return err
	}
	a, err := calendar.GetAppointment(r.Context(), d.db, s.Account, id)
	if err != nil {
		return err
	}
	if a.Status != calendar.StatusBooked {
		return errs.New(errs.ValidationError, "%s", s.T("Only booked appointments can be rescheduled."))
	}
	loc := s.Account.Location()
	now := d.clock.Now()
	slots, err := calendar.ListFreeSlots(r.Context(), d.db, s.Account, calendar.SlotsQuery{ServiceID: a.ServiceID,
		StartDate: now.In(loc).Format("2006-01-02"), Days: 7, Limit: calendar.SlotLimitMax}, now)
	var e *errs.Error
	if errors.As(err, &e) && e.Code == errs.ServiceNotFound {
		return errs.New(errs.ValidationError, "%s", s.T("%s is no longer bookable: it has no free slots to move to.", a.ServiceName))
	}
	if err != nil {
		return err
	}
	var days []slotDay
	for _, sl := range slots.Slots {
		start, err1 := time.Parse(time.RFC3339, sl.StartAtUTC)
		end, err2 := time.Parse(time.RFC3339, sl.EndAtUTC)
		if err1 != nil || err2 != nil {
			continue
		}
		dd := dayOf(start, loc)
		if n := len(days); n == 0 || !days[n-1].Day.Equal(dd) {
			days = append(days, slotDay{Day: dd})
		}
		days[len(days)-1].Slots = append(days[len(days)-1].Slots, rescheduleSlot{Start: start, End: end,
			Value: start.In(loc).Format("2006-01-02T15:04"), Professional: sl.Professional, Current: sl.Professional.ID == a.ProfessionalID})
	}
	d.render(w, r, s, http.StatusOK, "reschedule", "Reschedule", "today", map[string]any{"Appt": a, "Days": days, "More": slots.HasMore})
	return nil
}
