package calendar

import (
	"context"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// MoveSeriesFrom moves "this and the following" (docs/series.md): the
// appointment of req as MoveAppointmentTx moves it (refused without
// req.Override when its new time is not free), and every booked
// occurrence of its series that starts after it by the same change of
// wall clock in the account's zone: as many days later or earlier, at the
// new time of day, with the new professional. The later sessions are
// staff's moves of a course and are never refused: each carries its
// warnings. Each session gets its own reminders and its own
// appointment.rescheduled; the patient is asked once, in one confirmation
// request listing the new dates. An appointment of no series moves alone.
// The result is in start order. The caller rolls tx back on an error.
func MoveSeriesFrom(ctx context.Context, tx *db.Tx, acct account.Account, req MoveRequest, now time.Time) ([]Moved, error) {
	a, err := GetAppointment(ctx, tx, acct, req.AppointmentID)
	if err != nil {
		return nil, err
	}
	if a.SeriesID == 0 {
		m, err := MoveAppointmentTx(ctx, tx, acct, req, now)
		return []Moved{m}, err
	}
	loc := acct.Location()
	from, to := a.StartAt.In(loc), req.Start.In(loc)
	days := civilDay(to) - civilDay(from)
	following, err := followingSessions(ctx, tx, acct, a)
	if err != nil {
		return nil, err
	}
	steps := []session{{a.ID, req.Start}}
	for _, f := range following {
		l := f.start.In(loc)
		steps = append(steps, session{f.id, time.Date(l.Year(), l.Month(), l.Day()+days, to.Hour(), to.Minute(), to.Second(), 0, loc).UTC()})
	}
	// A course moved later moves its last session first, so no session
	// lands on a sibling's time that is about to be freed.
	if req.Start.After(a.StartAt) {
		slices.Reverse(steps)
	}
	out := make([]Moved, 0, len(steps))
	for _, st := range steps {
		r := req
		r.AppointmentID, r.Start, r.noConfirmation = st.id, st.start, true
		r.Override = req.Override || st.id != a.ID
		m, err := MoveAppointmentTx(ctx, tx, acct, r, now)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(x, y Moved) int { return x.Appointment.StartAt.Compare(y.Appointment.StartAt) })
	first := out[0].Appointment
	starts := make([]time.Time, len(out))
	for i, m := range out {
		starts[i] = m.Appointment.StartAt
	}
	return out, jobs.QueueSeriesConfirmation(ctx, tx, acct, jobs.Booking{AppointmentID: first.ID, ClientID: first.ClientID,
		Recipient: first.ClientPhone, ClientName: firstWord(first.ClientName), ServiceName: first.ServiceName,
		Professional: first.ProfessionalName, StartAt: first.StartAt, Location: loc}, starts, now)
}

// civilDay numbers t's calendar day (in t's zone) so that consecutive days
// differ by one whatever daylight saving does.
func civilDay(t time.Time) int {
	return int(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// LaterSessions counts the booked sessions of a's course that start after
// it: what "this and the following" would move or cancel besides a.
func LaterSessions(ctx context.Context, q db.Querier, acct account.Account, a AppointmentView) (int, error) {
	following, err := followingSessions(ctx, q, acct, a)
	return len(following), err
}
