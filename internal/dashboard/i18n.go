package dashboard

// The dashboard speaks Spanish and English: the user's own choice, else the
// account's language (account.Session.Language). Templates write English
// text through the template function t and handlers through
// session.Translate; the other languages' texts live in the product's
// catalogue (package locale: one file per language, keyed by the English
// text). TestEveryTextHasSpanish reads the sources to prove no text is
// missing from es.toml. Dates and times are shown in the account's zone
// with the language's day and month names.

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
)

// Languages the dashboard speaks, the default first.
var Languages = []string{"es", "en"}

// catalogue holds every language's texts by key (the English text, or
// "context|text"): the product's one catalogue, package locale, read at
// its first use.
func catalogue() map[string]map[string]string { return locale.Catalogue() }

// language reads a stored language code into one the dashboard speaks.
func language(code string) string {
	if strings.HasPrefix(strings.ToLower(code), "en") {
		return "en"
	}
	return "es"
}

// requestLanguage is the language of a page shown before sign-in: the
// browser's first preference among ours (Accept-Language), else Spanish.
func requestLanguage(r *http.Request) string {
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag := strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
		switch {
		case strings.HasPrefix(tag, "es"):
			return "es"
		case strings.HasPrefix(tag, "en"):
			return "en"
		}
	}
	return "es"
}

// missHook, when set, hears every text a page in a language other than
// English asked the catalogue for and did not find (English files hold
// only what reads differently from its key). Tests set it
// (export_test.go) to prove a Spanish page has no English left.
var missHook atomic.Pointer[func(lang, key string)]

// missed tells the hook, if any, that lang has no text for key.
func missed(lang, key string) {
	if lang == "en" || key == "" {
		return
	}
	if f := missHook.Load(); f != nil {
		(*f)(lang, key)
	}
}

// translate returns text in lang, formatted with args when there are any.
func translate(lang, text string, args ...any) string {
	if t, ok := catalogue()[lang][text]; ok {
		text = t
	} else {
		missed(lang, text)
	}
	if len(args) > 0 {
		return fmt.Sprintf(text, args...)
	}
	return text
}

// translateIn translates text said in a context (a word whose Spanish
// depends on what it describes: an appointment is "reservada", a message
// "enviado"): the Spanish is registered under "context|text", and English
// shows text.
func translateIn(lang, context, text string, args ...any) string {
	if t, ok := catalogue()[lang][context+"|"+text]; ok {
		text = t
	} else if t, ok := catalogue()[lang][text]; ok {
		text = t
	} else {
		missed(lang, context+"|"+text)
	}
	if len(args) > 0 {
		return fmt.Sprintf(text, args...)
	}
	return text
}

// Translate translates a handler's text (a flash message, an error page)
// into the user's language.
func (s *session) Translate(text string, args ...any) string {
	return translate(string(s.language()), text, args...)
}

// language is the user's language; without a session, Spanish.
func (s *session) language() lang {
	if s == nil {
		return "es"
	}
	return lang(s.Lang)
}

// lang is a language code with the translator's Translate method, for pages
// shown with or without a session.
type lang string

// Translate translates text (and formats it with args) into l.
func (l lang) Translate(text string, args ...any) string { return translate(string(l), text, args...) }

// TC translates text said in a context (see translateIn).
func (l lang) TC(context, text string, args ...any) string {
	return translateIn(string(l), context, text, args...)
}

// langOf is the signed-in user's language, else the browser's.
func langOf(r *http.Request, s *session) lang {
	if s != nil {
		return lang(s.Lang)
	}
	return lang(requestLanguage(r))
}

// sayDate says t (already in the account's zone) in lang's style
// (locale.FormatDate: templates' date and the booking page say dates the
// same way).
func sayDate(lang string, t time.Time, style locale.DateStyle) string {
	return locale.FormatDate(lang, t, style)
}

// TC is T for a text said in a context (see translateIn).
func (s *session) TC(context, text string, args ...any) string {
	return translateIn(string(s.language()), context, text, args...)
}

// Err says an area's refusal in l: its key (the English format string)
// from the catalogue, formatted with its arguments, which are said in l
// too when they are texts of their own (errs.Text).
func (l lang) Err(e *errs.Error) string {
	return e.Localize(func(key string) string { return translate(string(l), key) })
}

// Say says an area's text (errs.Text) in l.
func (l lang) Say(t errs.Text) string {
	return t.Localize(func(key string) string { return translate(string(l), key) })
}

// Err says an area's refusal in the user's language (see lang.Err).
func (s *session) Err(e *errs.Error) string { return s.language().Err(e) }

// Say says an area's text (errs.Text) in the user's language.
func (s *session) Say(t errs.Text) string { return s.language().Say(t) }
