package dashboard

// The day's confirmations on Today (docs/today.md): the tally of the
// appointments' confirmation_status, the patients to call (pending or
// declined), and "confirmed by phone", which sets confirmed through the
// calendar's one confirmation function (calendar.SetConfirmationBy, the
// reply's and the manage link's) with by staff.

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

// callTally counts the shown appointments (cancelled ones left out) by
// confirmation_status, and lists those to call.
type callTally struct {
	Confirmed, Pending, Declined int
	ToCall                       []calendar.AppointmentView
}

func tallyCalls(appts []calendar.AppointmentView) callTally {
	var t callTally
	for _, a := range appts {
		if a.Status == calendar.StatusCancelled {
			continue
		}
		switch a.ConfirmationStatus {
		case calendar.ConfirmationConfirmed:
			t.Confirmed++
		case calendar.ConfirmationDeclined:
			t.Declined++
			t.ToCall = append(t.ToCall, a)
		default:
			t.Pending++
			t.ToCall = append(t.ToCall, a)
		}
	}
	return t
}

// confirmByPhone handles "POST /app/appointments/{appointment_id}/confirm":
// staff called the patient, who confirmed. The confirmation is the
// calendar's (appointment.confirmation_changed with by staff, reminders put
// back after a decline), audited in its transaction; an appointment that is
// no longer booked (cancelled, arrived, done) is refused with the reason.
func (d *Dashboard) confirmByPhone(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "appointment_id")
	if err != nil {
		return err
	}
	now := d.clock.Now()
	var c calendar.ConfirmationChange
	err = d.db.Transact(r.Context(), func(tx *db.Tx) error {
		if c, err = calendar.SetConfirmationBy(r.Context(), tx, s.Account, id, calendar.ConfirmationConfirmed, calendar.ConfirmedByStaff, now); err != nil || !c.Changed {
			return err
		}
		return audit.Record(r.Context(), tx, s.Account, audit.Actor{UserID: s.UserID, UserName: s.UserName}, "updated", "appointment",
			strconv.FormatInt(id, 10), "confirmation: "+c.Previous+" → confirmed (by phone)", now)
	})
	back := backTo(r, Prefix+"today")
	if err != nil {
		if cur, ok := bookedRefusal(err); ok {
			d.redirect(w, r, back, "error", s.Translate("This appointment is %s: it cannot be confirmed.", statusWord(s, cur)))
			return nil
		}
		return err
	}
	a, err := calendar.GetAppointment(r.Context(), d.db, s.Account, id)
	if err != nil {
		return err
	}
	when := sayDate(s.Lang, a.StartAt.In(s.Account.Location()), locale.ShortTime)
	if !c.Changed {
		d.redirect(w, r, back, "ok", s.Translate("The appointment of %s on %s was confirmed already.", a.ClientName, when))
		return nil
	}
	d.redirect(w, r, back, "ok", s.Translate("Confirmed by phone: the appointment of %s on %s.", a.ClientName, when))
	return nil
}

// bookedRefusal reads the appointment's status from the calendar's refusal
// of a confirmation of an appointment no longer booked.
func bookedRefusal(err error) (string, bool) {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.ValidationError {
		return "", false
	}
	d, _ := e.Details.(map[string]any)
	cur, ok := d["current_status"].(string)
	return cur, ok
}
