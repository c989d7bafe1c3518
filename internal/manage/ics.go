package manage

import (
	"context"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/ics"
)

// CalendarFile is the appointment as an iCalendar file's content, for the
// patient's "add to calendar" (/m/{token}/appointment.ics): its service
// with its professional at the clinic, the manage link as its URL, marked
// cancelled once cancelled. The UID stays the appointment's, so a calendar
// that holds it already updates its copy.
func CalendarFile(ctx context.Context, store *db.DB, token string, now time.Time) (ics.Calendar, error) {
	acct, a, err := find(ctx, store, token, now)
	if err != nil {
		return ics.Calendar{}, err
	}
	link, err := URL(ctx, store, acct, a.ID)
	if err != nil {
		return ics.Calendar{}, err
	}
	return ics.Calendar{Events: []ics.Event{{
		UID:   ics.AppointmentUID(acct.Slug, a.ID),
		Start: a.StartAt, End: a.EndAt,
		Summary:  a.ServiceName + " · " + a.ProfessionalName,
		Location: acct.Name, URL: link,
		Cancelled: a.Status == calendar.StatusCancelled, Updated: a.updatedAt,
	}}}, nil
}
