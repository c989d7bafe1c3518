package channels

import (
	"fmt"
	"strings"
	"time"
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
	TextConfirmationRequest = "confirmation_request"
	TextReminder            = "reminder"
	TextSeatOffer           = "seat_offer"
	TextOptOut              = "opt_out"
	TextOptIn               = "opt_in"
	TextConfirmed           = "confirmed"
	TextDeclined            = "declined"
	TextSeatBooked          = "seat_booked"
	TextSeatReleased        = "seat_released"
	TextNoLongerAvailable   = "no_longer_available"
)

// Vars fill the built-in texts.
type Vars struct {
	Name         string // the client's first name (or full name)
	Service      string
	Professional string
	When         time.Time // in the account's zone
	Until        time.Time // a seat offer's hold, in the account's zone
}

var texts = map[string]map[string]string{
	LangES: {
		TextConfirmationRequest: "Hola {name}, ¿confirmas tu cita de {service} con {professional} el {when}? Responde SÍ o NO.",
		TextReminder:            "Recordatorio: {service} con {professional} el {when}.",
		TextSeatOffer:           "Hola {name}, se ha liberado una cita de {service} con {professional} el {when}. ¿La quieres? Responde SÍ o NO antes de las {until}.",
		TextOptOut:              "Has dejado de recibir mensajes por este canal. Responde ALTA para volver a recibirlos.",
		TextOptIn:               "Vuelves a recibir nuestros mensajes por este canal. Responde BAJA para dejar de recibirlos.",
		TextConfirmed:           "¡Gracias! Tu cita queda confirmada.",
		TextDeclined:            "Entendido, hemos anotado que no podrás venir. Llámanos si quieres otra cita.",
		TextSeatBooked:          "¡Hecho! Tu cita de {service} con {professional} es el {when}.",
		TextSeatReleased:        "De acuerdo, se lo ofreceremos a otra persona. Sigues en la lista de espera.",
		TextNoLongerAvailable:   "Lo sentimos, ese hueco ya no está disponible. Sigues en la lista de espera.",
	},
	LangEN: {
		TextConfirmationRequest: "Hi {name}, can you confirm your {service} appointment with {professional} on {when}? Reply YES or NO.",
		TextReminder:            "Reminder: {service} with {professional} on {when}.",
		TextSeatOffer:           "Hi {name}, a {service} slot with {professional} on {when} has opened up. Would you like it? Reply YES or NO by {until}.",
		TextOptOut:              "You will no longer receive messages on this channel. Reply START to receive them again.",
		TextOptIn:               "You will receive our messages on this channel again. Reply STOP to opt out.",
		TextConfirmed:           "Thank you! Your appointment is confirmed.",
		TextDeclined:            "Understood, we have noted that you cannot come. Call us if you would like another appointment.",
		TextSeatBooked:          "Done! Your {service} appointment with {professional} is on {when}.",
		TextSeatReleased:        "All right, we will offer it to someone else. You are still on the waiting list.",
		TextNoLongerAvailable:   "Sorry, that slot is no longer available. You are still on the waiting list.",
	},
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

// Text renders a built-in text in lang.
func Text(lang, kind string, v Vars) string {
	lang = Lang(lang)
	t := texts[lang][kind]
	r := strings.NewReplacer(
		"{name}", v.Name, "{service}", v.Service, "{professional}", v.Professional,
		"{when}", FormatWhen(lang, v.When), "{until}", v.Until.Format("15:04"),
	)
	return r.Replace(t)
}
