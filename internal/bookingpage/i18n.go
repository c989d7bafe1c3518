package bookingpage

// The page speaks the account's language (Spanish or English), or the one
// a link asks for with ?lang= (docs/booking-page.md, "Languages").
// Templates write English through the template function t, handlers
// through lang.Translate; the other languages live in the product's
// catalogue (package locale, keyed by the English text). Area refusals are
// said with lang.Err. TestEveryPageTextHasSpanish reads the sources.

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
)

// languages the page speaks, the default first.
var languages = []string{"es", "en"}

// lang is a language code the page speaks.
type lang string

// pickLanguage is the language of a request: ?lang= (also a form's hidden
// lang field) when it names one the page speaks, else the account's.
func pickLanguage(r *http.Request, accountLanguage string) lang {
	if asked, ok := askedLanguage(r); ok {
		return asked
	}
	return normalLanguage(accountLanguage)
}

// askedLanguage is the language the request asks for, if it names one.
func askedLanguage(r *http.Request) (lang, bool) {
	asked := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("lang")))
	if asked == "" && r.Method == http.MethodPost {
		asked = strings.ToLower(strings.TrimSpace(r.PostFormValue("lang")))
	}
	for _, l := range languages {
		if asked == l {
			return lang(l), true
		}
	}
	return "", false
}

// normalLanguage reads a stored language into one the page speaks.
func normalLanguage(code string) lang {
	if strings.HasPrefix(strings.ToLower(code), "en") {
		return "en"
	}
	return "es"
}

// translate returns text in l, formatted with args when there are any.
func translate(l lang, text string, args ...any) string {
	if t, ok := locale.Text(string(l), text); ok {
		text = t
	}
	if len(args) > 0 {
		return fmt.Sprintf(text, args...)
	}
	return text
}

// Translate translates a handler's text into l.
func (l lang) Translate(text string, args ...any) string { return translate(l, text, args...) }

// Err says an area's refusal in l (its key from the catalogue, formatted
// with its arguments).
func (l lang) Err(e *errs.Error) string {
	return e.Localize(func(key string) string { return translate(l, key) })
}

// moment is a day and time as the page writes it in l ("lunes, 7 de
// diciembre de 2026, 10:00"; "Monday, 7 December 2026, 10:00").
func (l lang) moment(t time.Time) string { return locale.FormatDate(string(l), t, locale.LongTime) }

// day is a day as a list of slots heads it ("lunes, 7 de diciembre").
func (l lang) day(t time.Time) string { return locale.FormatDate(string(l), t, locale.DayMonth) }
