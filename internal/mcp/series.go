package mcp

import (
	"context"

	"github.com/frontdesk/frontdesk/internal/calendar"
)

// RecurrenceIn repeats a booking weekly (docs/series.md): the API's
// recurrence object, read by the same decoder.
type RecurrenceIn struct {
	Frequency string `json:"frequency" jsonschema:"weekly (the only frequency)"`
	Interval  *int   `json:"interval" jsonschema:"every that many weeks, 1 to 4"`
	Count     *int   `json:"count,omitempty" jsonschema:"how many occurrences, the first included, 2 to 52; give count or until"`
	Until     string `json:"until,omitempty" jsonschema:"YYYY-MM-DD: the last day an occurrence may start on, at most 366 days after start_at; give count or until"`
}

// bookSeries books a recurring book_appointment (docs/series.md).
func (l *Local) bookSeries(ctx context.Context, req calendar.BookRequest, rec calendar.Recurrence) (BookAppointmentOut, error) {
	b, err := calendar.BookSeries(ctx, l.deps.DB, l.acct, req, rec, l.now())
	if err != nil {
		return BookAppointmentOut{}, err
	}
	return BookAppointmentOut{Appointment: b.Appointment, ClientID: b.ClientID, ClientCreated: b.ClientCreated, Series: &b.Series}, nil
}
