// Package texts holds the messages Frontdesk writes to patients itself
// (confirmation requests, reminders, seat offers, the answers to replies),
// in the account's language (es, en): English here, the other languages in
// the product's catalogue (package locale). Stage automations keep their
// own templates. It is a leaf: jobs, offers and channels all write through it.
package texts

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/locale"
)

// Languages with built-in texts; anything else reads as Spanish, the
// product's first market.
const (
	LangES = "es"
	LangEN = "en"
)

// Lang normalises an account language.
func Lang(l string) string {
	if strings.EqualFold(strings.TrimSpace(l), LangEN) {
		return LangEN
	}
	return LangES
}

// Text kinds.
const (
	ConfirmationRequest = "confirmation_request"
	Reminder            = "reminder"
	SeatOffer           = "seat_offer"
	SeatOfferAnySlot    = "seat_offer_any_slot"
	OptOut              = "opt_out"
	OptIn               = "opt_in"
	Confirmed           = "confirmed"
	Declined            = "declined"
	SeatBooked          = "seat_booked"
	SeatReleased        = "seat_released"
	NoLongerAvailable   = "no_longer_available"
	// VerificationCode carries a patient's one-time code (docs/patients.md).
	VerificationCode = "verification_code"
	// ManageLink is the line appended to confirmation requests and
	// reminders when the appointment has a manage link.
	ManageLink = "manage_link"
	// SeriesConfirmationRequest asks once for a whole weekly series, its
	// dates listed one a line (docs/series.md).
	SeriesConfirmationRequest = "series_confirmation_request"
)

// Vars fill the built-in texts.
type Vars struct {
	Name         string // the client's first name (or full name)
	Account      string // the clinic's name
	Service      string
	Professional string
	When         time.Time   // in the account's zone
	Until        time.Time   // a seat offer's hold, in the account's zone
	Link         string      // the appointment's manage link
	Code         string      // a verification code
	Dates        []time.Time // a series' occurrences, in the account's zone
}

// english are the built-in texts in English: each is also the text's key
// in the other languages' catalogue files (package locale).
var english = map[string]string{
	ConfirmationRequest:       "Hi {name}, can you confirm your {service} appointment with {professional} on {when}? Reply YES or NO.",
	Reminder:                  "Reminder: {service} with {professional} on {when}.",
	SeatOffer:                 "Hi {name}, a {service} slot with {professional} on {when} has opened up. Would you like it? Reply YES or NO by {until}.",
	SeatOfferAnySlot:          "Hi {name}, a {service} appointment has opened up. Would you like it? Reply by {until}.",
	OptOut:                    "You will no longer receive messages on this channel. Reply START to receive them again.",
	OptIn:                     "You will receive our messages on this channel again. Reply STOP to opt out.",
	Confirmed:                 "Thank you! Your appointment is confirmed.",
	Declined:                  "Understood, we have noted that you cannot come. Call us if you would like another appointment.",
	SeatBooked:                "Done! Your {service} appointment with {professional} is on {when}.",
	SeatReleased:              "All right, we will offer it to someone else. You are still on the waiting list.",
	NoLongerAvailable:         "Sorry, that slot is no longer available. You are still on the waiting list.",
	VerificationCode:          "Your {account} code is {code}. It expires in 10 minutes.",
	ManageLink:                "Confirm, cancel or change: {link}",
	SeriesConfirmationRequest: "Hi {name}, can you confirm your {service} appointments with {professional} on these dates? Reply YES or NO.\n{dates}",
}

var (
	esDays   = []string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"}
	esMonths = []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}
)

// FormatWhen writes a date and time the way a patient reads it in lang:
// "martes 1 de diciembre a las 10:00" / "Tuesday 1 December at 10:00".
func FormatWhen(lang string, t time.Time) string {
	if Lang(lang) == LangEN {
		return t.Format("Monday 2 January at 15:04")
	}
	return fmt.Sprintf("%s %d de %s a las %s", esDays[t.Weekday()], t.Day(), esMonths[t.Month()-1], t.Format("15:04"))
}

// Render writes a built-in text in lang.
func Render(lang, kind string, v Vars) string {
	lang = Lang(lang)
	t := english[kind]
	if said, ok := locale.Text(lang, t); ok {
		t = said
	}
	dates := make([]string, len(v.Dates))
	for i, d := range v.Dates {
		dates[i] = "- " + FormatWhen(lang, d)
	}
	r := strings.NewReplacer("{dates}", strings.Join(dates, "\n"),
		"{name}", v.Name, "{service}", v.Service, "{professional}", v.Professional,
		"{when}", FormatWhen(lang, v.When), "{until}", v.Until.Format("15:04"),
		"{link}", v.Link, "{code}", v.Code, "{account}", v.Account,
	)
	return r.Replace(t)
}

// Kinds are the built-in texts' kinds, sorted.
func Kinds() []string {
	out := make([]string, 0, len(english))
	for k := range english {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// English is kind's text in English: its key in every catalogue.
func English(kind string) string { return english[kind] }
