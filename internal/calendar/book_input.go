package calendar

import "github.com/frontdesk/frontdesk/internal/valid"

// DecodeBooking reads a booking's fields from o (the API's body, MCP's
// arguments, the dashboard's form, each at its own location), reporting
// every schema problem to o's report at once in the contract's 422 shape
// (docs/contract.md, Validation errors and Booking): client.phone,
// start_at, end_at and timezone are required, each of service,
// professional and event type is named by id or name (neither is `missing`
// at KIND_id), the texts have the contract's Limits, and the times are wall
// clock (datetime_parsing). Every door calls it, so all of them check the
// same fields the same way; the business rules (zones, phones, names, the
// catalog) are Book's.
func DecodeBooking(o *valid.Object) BookRequest {
	var req BookRequest
	o.Require("client")
	if c := o.Sub("client"); c != nil {
		c.Require("phone")
		req.Client.Phone, _ = c.Str("phone", 0)
		req.Client.FirstName, _ = c.Str("first_name", MaxNameLen)
		req.Client.LastName, _ = c.Str("last_name", MaxNameLen)
		req.Client.Email, _ = c.Str("email", MaxEmailLen)
	}
	req.ServiceID, req.ServiceName = idOrName(o, "service")
	req.ProfessionalID, req.ProfessionalName = idOrName(o, "professional")
	req.EventTypeID, req.EventTypeName = idOrName(o, "event_type")
	o.Require("start_at", "end_at", "timezone")
	req.StartAt = ReadWallTime(o, "start_at")
	req.EndAt = ReadWallTime(o, "end_at")
	req.Timezone, _ = o.Str("timezone", MaxTimezoneLen)
	req.Notes, _ = o.Str("notes", MaxNotesLen)
	return req
}

// idOrName reads KIND_id / KIND_name; sending neither is `missing` at
// KIND_id (docs/contract.md, Booking).
func idOrName(o *valid.Object, kind string) (*int64, *string) {
	_, hasID := o.Raw(kind + "_id")
	_, hasName := o.Raw(kind + "_name")
	if o.Valid() && !hasID && !hasName {
		o.Report().Add(o.Loc(kind+"_id"), "missing", "Field required")
		return nil, nil
	}
	var (
		id   *int64
		name *string
	)
	if n, ok := o.Int(kind + "_id"); ok {
		id = &n
	}
	if s, ok := o.Str(kind+"_name", MaxRefNameLen); ok {
		name = &s
	}
	return id, name
}

// ReadWallTime reads a booking timestamp (every door that takes one, the
// manage link's reschedule too); an unreadable one is datetime_parsing.
func ReadWallTime(o *valid.Object, name string) WallTime {
	s, ok := o.Str(name, 0)
	if !ok {
		return WallTime{}
	}
	t, ok := ParseWallTime(s)
	if !ok {
		o.Report().Add(o.Loc(name), "datetime_parsing", "Input should be a valid datetime (ISO 8601, e.g. 2026-12-01T10:00:00 or 2026-12-01T10:00:00+01:00)")
	}
	return t
}
