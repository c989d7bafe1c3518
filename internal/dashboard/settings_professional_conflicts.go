package dashboard

// The appointments a professional's schedule no longer covers, on their
// settings page and in the flash after a schedule change
// (docs/schedule-conflicts.md).

import (
	"net/http"

	"github.com/frontdesk/frontdesk/internal/calendar"
)

// scheduleConflicts is the settings page's conflicts panel: the booked
// appointments outside the professional's hours or inside their time off.
type scheduleConflicts struct {
	Rows []calendar.ScheduleConflict
	More bool // more than calendar.MaxScheduleConflicts exist
}

// loadScheduleConflicts reads a professional's conflicts now.
func (d *Dashboard) loadScheduleConflicts(r *http.Request, s *session, id int64) (scheduleConflicts, error) {
	rows, more, err := calendar.ScheduleConflicts(r.Context(), d.db, s.Account, id, d.clock.Now())
	return scheduleConflicts{Rows: rows, More: more}, err
}

// scheduleChanged goes back to the professional's page after a change of
// working hours or time off, saying msg; when booked appointments are
// left outside the schedule the flash is a warning that counts them and
// the page opens at their list.
func (d *Dashboard) scheduleChanged(w http.ResponseWriter, r *http.Request, s *session, id int64, msg string) error {
	c, err := d.loadScheduleConflicts(r, s, id)
	if err != nil {
		return err
	}
	if len(c.Rows) == 0 {
		d.professionalBack(w, r, id, msg)
		return nil
	}
	n := len(c.Rows)
	if c.More {
		n = calendar.MaxScheduleConflicts
	}
	msg += " " + s.Translate("Appointments now outside the schedule: %d. Move them or tell the patients.", n)
	d.redirect(w, r, Prefix+"settings/professionals/"+idString(id)+"#conflicts-h", "warn", msg)
	return nil
}
