package manage

import (
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// MaxReasonLen is the longest cancellation reason taken.
const MaxReasonLen = 500

// DecodeCancel reads a cancel body {reason} (optional; a string of at most
// MaxReasonLen). Every door that cancels through a manage link calls it.
func DecodeCancel(o *valid.Object) (reason string) {
	reason, _ = o.Str("reason", MaxReasonLen)
	return reason
}

// RescheduleInput is a schema-valid reschedule body.
type RescheduleInput struct {
	Start          calendar.WallTime
	ProfessionalID *int64 // nil: the first professional free at Start
}

// DecodeReschedule reads a reschedule body {start_at, professional_id}:
// start_at is required (a wall clock in the account's zone, as the slots
// list it, or with an offset), professional_id an optional integer.
func DecodeReschedule(o *valid.Object) RescheduleInput {
	var in RescheduleInput
	o.Require("start_at")
	in.Start = calendar.ReadWallTime(o, "start_at")
	if id, ok := o.Int("professional_id"); ok {
		in.ProfessionalID = &id
	}
	return in
}
