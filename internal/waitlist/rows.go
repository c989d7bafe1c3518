package waitlist

import (
	"fmt"
	"strings"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// Limits on values (docs/contract.md, Limits).
const (
	MaxNameLen  = contact.MaxNameLen
	MaxEmailLen = 255
	MaxNotesLen = 2000
	MaxPhoneLen = 64
	// MaxServiceNameLen bounds a service name sent by a caller.
	MaxServiceNameLen = 255
	// MaxReasonLen bounds a removal reason.
	MaxReasonLen = 255
	// MaxBatchRows is the most rows one batch may carry.
	MaxBatchRows = 500
	// MaxServices is the most service_ids, and the most service_names, one
	// add or batch row names: far more than an account has services.
	MaxServices = 500
)

// Row is one batch row as read from the request. Problems with its values
// are the row's errors, never the request's.
type Row struct {
	Index        int
	Phone        phone.Number // zero when absent or invalid
	Email        string       // trimmed; "" when absent
	FirstName    string
	LastName     string
	ServiceIDs   []int64
	ServiceNames []string
	Prefs        Prefs

	phoneText string // as sent, trimmed
	emailSent bool   // a string e-mail was sent (the response echoes it)
	errors    []string
}

// ParseRow reads one batch row (an object: the envelope check already made
// sure). region is the batch's default_region, else the account's.
func ParseRow(index int, raw map[string]any, region string) Row {
	rep := &valid.Report{}
	o := rep.Object(raw, "model_type")
	r := Row{Index: index}
	if s, ok := o.Str("phone", MaxPhoneLen); ok {
		r.phoneText = strings.TrimSpace(s)
	}
	if s, ok := o.Str("email", 0); ok {
		r.emailSent = true
		r.Email = strings.TrimSpace(s)
		if len([]rune(r.Email)) > MaxEmailLen {
			rep.Add(o.Loc("email"), "string_too_long", fmt.Sprintf("String should have at most %d characters", MaxEmailLen))
		}
	}
	r.FirstName, _ = o.Str("first_name", MaxNameLen)
	r.LastName, _ = o.Str("last_name", MaxNameLen)
	r.FirstName, r.LastName = strings.TrimSpace(r.FirstName), strings.TrimSpace(r.LastName)
	r.ServiceIDs, _ = o.Ints("service_ids", 0, MaxServices)
	r.ServiceNames, _ = o.Strings("service_names", 0, MaxServices, MaxServiceNameLen)
	r.Prefs = ReadPrefs(o)

	for _, p := range rep.Problems {
		r.errors = append(r.errors, describe(p))
	}
	if r.Email != "" && len([]rune(r.Email)) <= MaxEmailLen && !validEmail(r.Email) {
		r.errors = append(r.errors, "email is not a valid e-mail address")
	}
	if r.phoneText != "" {
		n, err := phone.ParseWithRegion(r.phoneText, region)
		if err != nil {
			r.errors = append(r.errors, "phone: "+err.Error())
		} else {
			r.Phone = n
		}
	} else if r.Email == "" && !hasProblemAt(rep, "phone") && !hasProblemAt(rep, "email") {
		r.errors = append(r.errors, "a row needs a phone or an email")
	}
	if len(r.ServiceIDs) == 0 && len(r.ServiceNames) == 0 && !hasProblemAt(rep, "service_ids") && !hasProblemAt(rep, "service_names") {
		r.errors = append(r.errors, "a row needs service_ids or service_names")
	}
	if p := r.Prefs; p.EarliestDate != nil && p.LatestDate != nil && *p.LatestDate < *p.EarliestDate {
		r.errors = append(r.errors, "latest_date is before earliest_date")
	}
	return r
}

// ReadPrefs reads the preference fields shared by the single add and batch
// rows; problems go to o's report.
func ReadPrefs(o *valid.Object) Prefs {
	var p Prefs
	if n, ok := o.IntRange("priority", 0, 3); ok {
		v := int(n)
		p.Priority = &v
	}
	if n, ok := o.Int("preferred_professional_id"); ok {
		p.PreferredProfessionalID = &n
	}
	if s, ok := o.Date("earliest_date"); ok {
		p.EarliestDate = &s
	}
	if s, ok := o.Date("latest_date"); ok {
		p.LatestDate = &s
	}
	if s, ok := o.Enum("time_preference", TimePreferences...); ok {
		p.TimePreference = &s
	}
	if s, ok := o.Str("notes", MaxNotesLen); ok {
		p.Notes = &s
	}
	return p
}

// describe turns a schema problem into a plain-English row error:
// "priority: Input should be less than or equal to 3".
func describe(p valid.Problem) string {
	var b strings.Builder
	for _, part := range p.Loc {
		switch v := part.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(v)
		case int:
			fmt.Fprintf(&b, "[%d]", v)
		}
	}
	if b.Len() == 0 {
		return p.Msg
	}
	return b.String() + ": " + p.Msg
}

func hasProblemAt(rep *valid.Report, field string) bool {
	for _, p := range rep.Problems {
		if len(p.Loc) > 0 && p.Loc[0] == field {
			return true
		}
	}
	return false
}
