package bookingpage

// The form decoders: each reads what a step's link or form sends into a
// typed value, or says which field is wrong in a sentence the form shows
// beside it. They check the form's shape only (present, a number, a date,
// short enough); what a phone, a name or an e-mail must be is the areas'
// rule (package contact, through patients.Book), said back on the form
// when it refuses. FuzzFormDecoders feeds them anything.

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/calendar"
)

// The problems the decoders find, said on the form (catalogue keys).
const (
	msgPhoneRequired = "Enter your phone number."
	msgFirstRequired = "Enter your first name."
	msgLastRequired  = "Enter your last name."
	msgTooLong       = "This is too long."
	msgCode          = "Type the 6-digit code we sent you."
	msgSessions      = "Choose how many weekly sessions."
)

// maxSessions is the most weekly sessions the details step offers (the
// patient API takes up to calendar.MaxSeriesCount).
const maxSessions = 12

// problems are a form's problems: the English text (a catalogue key) the
// form shows beside each field, by the field's name.
type problems map[string]string

// maxField is the longest text a single-line field takes, in characters
// (the areas allow less: names 100, e-mail 255).
const maxField = 300

// maxReason is the longest cancellation reason, in characters.
const maxReason = 1000

// slotChoice is a slot the patient picked: the service, the professional
// (0: any professional free then) and the start, wall clock in the
// account's zone as the slot list writes it.
type slotChoice struct {
	ServiceID      int64  `json:"service"`
	ProfessionalID int64  `json:"professional,omitempty"`
	Start          string `json:"start"`
}

// wallLayout is how the slot list writes a start and how links carry it.
const wallLayout = "2006-01-02T15:04:05"

// decodeService reads a service id; ok is false when it is not one.
func decodeService(v string) (int64, bool) { return positiveID(v) }

// decodeProfessional reads a professional choice: "" or "any" is any
// (0); otherwise an id.
func decodeProfessional(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	if v == "" || v == "any" {
		return 0, true
	}
	return positiveID(v)
}

func positiveID(v string) (int64, bool) {
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return id, err == nil && id > 0
}

// decodeStart reads a slot's start: a wall-clock date-time without offset.
func decodeStart(v string) (calendar.WallTime, bool) {
	if len(v) > 40 {
		return calendar.WallTime{}, false
	}
	w, ok := calendar.ParseWallTime(strings.TrimSpace(v))
	if !ok || w.HasOffset || w.Month < 1 || w.Month > 12 || w.Day < 1 || w.Day > 31 || w.Hour > 23 || w.Minute > 59 || w.Second > 59 {
		return calendar.WallTime{}, false
	}
	return w, true
}

// wallString writes a start as links carry it.
func wallString(w calendar.WallTime) string {
	return time.Date(w.Year, w.Month, w.Day, w.Hour, w.Minute, w.Second, 0, time.UTC).Format(wallLayout)
}

// decodeSlotChoice reads the slot a link or form names.
func decodeSlotChoice(q url.Values) (slotChoice, bool) {
	service, ok := decodeService(q.Get("service"))
	if !ok {
		return slotChoice{}, false
	}
	prof, ok := decodeProfessional(q.Get("professional"))
	if !ok {
		return slotChoice{}, false
	}
	start, ok := decodeStart(q.Get("start"))
	if !ok {
		return slotChoice{}, false
	}
	return slotChoice{ServiceID: service, ProfessionalID: prof, Start: wallString(start)}, true
}

// decodeWeek reads the first day of the week a slot list shows
// (YYYY-MM-DD); "" (today) when absent or not a date.
func decodeWeek(v string) string {
	v = strings.TrimSpace(v)
	if len(v) != len(time.DateOnly) {
		return ""
	}
	if _, err := time.Parse(time.DateOnly, v); err != nil {
		return ""
	}
	return v
}

// details is who books: the phone the code goes to, the names, an
// optional e-mail.
type details struct {
	Phone     string `json:"p"`
	FirstName string `json:"f"`
	LastName  string `json:"l"`
	Email     string `json:"e,omitempty"`
	// Sessions is how many weekly sessions to book, the first included (0
	// or 1: one appointment).
	Sessions int `json:"n,omitempty"`
}

// decodeDetails reads the details form.
func decodeDetails(form url.Values) (details, problems) {
	d := details{Phone: oneLine(form.Get("phone")), FirstName: oneLine(form.Get("first_name")),
		LastName: oneLine(form.Get("last_name")), Email: oneLine(form.Get("email"))}
	bad := problems{}
	required := []struct{ field, value, text string }{
		{"phone", d.Phone, msgPhoneRequired},
		{"first_name", d.FirstName, msgFirstRequired},
		{"last_name", d.LastName, msgLastRequired},
	}
	for _, f := range required {
		if f.value == "" {
			bad[f.field] = f.text
		}
	}
	for field, value := range map[string]string{"phone": d.Phone, "first_name": d.FirstName, "last_name": d.LastName, "email": d.Email} {
		if utf8.RuneCountInString(value) > maxField {
			bad[field] = msgTooLong
		}
	}
	if v := strings.TrimSpace(form.Get("sessions")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxSessions {
			bad["sessions"] = msgSessions
		} else {
			d.Sessions = n
		}
	}
	return d, bad
}

// oneLine is a single-line field's value: trimmed, inner runs of space
// (new lines included) made one space, invalid UTF-8 and control
// characters dropped.
func oneLine(v string) string {
	v = strings.ToValidUTF8(v, "")
	v = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, v)
	return strings.Join(strings.Fields(v), " ")
}

// decodeCode reads the verification code: its digits, spaces and dashes
// left out (a code copied from a message may hold them).
func decodeCode(v string) (string, problems) {
	if len(v) > 64 {
		return "", problems{"code": msgCode}
	}
	var b strings.Builder
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '\t':
		default:
			return "", problems{"code": msgCode}
		}
	}
	if b.Len() != 6 {
		return "", problems{"code": msgCode}
	}
	return b.String(), nil
}

// decodeReason reads a cancellation's optional reason.
func decodeReason(v string) (string, problems) {
	v = strings.TrimSpace(strings.ToValidUTF8(v, ""))
	if utf8.RuneCountInString(v) > maxReason {
		return "", problems{"reason": msgTooLong}
	}
	return v, nil
}
