package calendar

// Conflicts when a schedule changes (docs/schedule-conflicts.md): time off
// and working hours are saved as given, and the booked appointments the new
// schedule no longer covers are named, so someone moves them or tells the
// patient.

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// MaxScheduleConflicts is the most conflicts ScheduleConflicts names;
// Truncated says more exist.
const MaxScheduleConflicts = 200

// ScheduleConflict is a booked appointment, not yet started, that its
// professional's schedule no longer covers: it runs outside their working
// hours, or into their time off, or both.
type ScheduleConflict struct {
	Appointment  AppointmentView
	OutsideHours bool
	TimeOff      bool
}

// ScheduleConflicts lists a professional's schedule conflicts at now: their
// booked (neither cancelled nor checked in) appointments starting at or
// after now that are not entirely within their working hours (the same
// test as booking's outside_working_hours warning) or that overlap a
// time-off range, by start. At most MaxScheduleConflicts are returned;
// more says whether there are others. A professional of another account is
// errs.NotFound, and only the account's own appointments are read.
func ScheduleConflicts(ctx context.Context, q db.Querier, acct account.Account, professionalID int64, now time.Time) (out []ScheduleConflict, more bool, err error) {
	var hoursDoc, offDoc string
	err = q.QueryRow(ctx, `SELECT working_hours, time_off FROM professionals WHERE account_id = ? AND id = ?`,
		acct.ID, professionalID).Scan(&hoursDoc, &offDoc)
	if db.IsNoRows(err) {
		return nil, false, errs.New(errs.NotFound, "Professional %d not found.", professionalID)
	}
	if err != nil {
		return nil, false, err
	}
	hours, offs := parseWeekHours(hoursDoc), normalize(parseTimeOff(offDoc))
	loc := acct.Location()
	rows, err := q.Query(ctx, appointmentSelect+` WHERE a.account_id = ? AND a.professional_id = ? AND a.status = ? AND a.start_at >= ?
		ORDER BY a.start_at, a.id`, acct.ID, professionalID, StatusBooked, db.Micros(now))
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out = []ScheduleConflict{}
	for rows.Next() {
		a, err := scanAppointment(rows)
		if err != nil {
			return nil, false, err
		}
		lo, hi := db.Micros(a.StartAt), db.Micros(a.EndAt)
		c := ScheduleConflict{Appointment: a,
			OutsideHours: !covers(normalize(workIntervals(&hours, loc, a.StartAt, a.EndAt)), lo, hi)}
		for _, off := range offs {
			if off.start < hi && off.end > lo {
				c.TimeOff = true
				break
			}
		}
		if !c.OutsideHours && !c.TimeOff {
			continue
		}
		if len(out) == MaxScheduleConflicts {
			return out, true, nil
		}
		out = append(out, c)
	}
	return out, false, rows.Err()
}
