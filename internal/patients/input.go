package patients

import (
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// MaxCodeLen bounds a sent code (a real one has six digits).
const MaxCodeLen = 32

// DecodeBookInput reads a patient's booking body from o, reporting every
// schema problem to o's report at once in the contract's 422 shape:
// service_id, start_at and client.phone are required; professional_id is
// optional; start_at is a date-time (datetime_parsing); the texts have the
// booking's limits; recurrence is the API's, read by the same decoder
// (docs/series.md). Every door that takes a patient's booking calls it.
func DecodeBookInput(o *valid.Object) BookInput {
	var in BookInput
	o.Require("service_id", "start_at", "client")
	in.ServiceID, _ = o.Int("service_id")
	if id, ok := o.Int("professional_id"); ok {
		in.ProfessionalID = &id
	}
	if s, ok := o.Str("start_at", 0); ok {
		t, ok := calendar.ParseWallTime(s)
		if !ok {
			o.Report().Add(o.Loc("start_at"), "datetime_parsing", "Input should be a valid datetime (ISO 8601, e.g. 2026-12-01T10:00:00 or 2026-12-01T10:00:00+01:00)")
		}
		in.StartAt = t
	}
	if c := o.Sub("client"); c != nil {
		c.Require("phone")
		in.Client.Phone, _ = c.Str("phone", calendar.MaxRefNameLen)
		in.Client.FirstName, _ = c.Str("first_name", calendar.MaxNameLen)
		in.Client.LastName, _ = c.Str("last_name", calendar.MaxNameLen)
		in.Client.Email, _ = c.Str("email", calendar.MaxEmailLen)
	}
	in.Code, _ = o.Str("code", MaxCodeLen)
	in.Notes, _ = o.Str("notes", calendar.MaxNotesLen)
	in.Recurrence = calendar.DecodeRecurrence(o, in.StartAt)
	return in
}

// DecodeCodeRequest reads a verification request's body: {phone}.
func DecodeCodeRequest(o *valid.Object) string {
	o.Require("phone")
	p, _ := o.Str("phone", calendar.MaxRefNameLen)
	return p
}
