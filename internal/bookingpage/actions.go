package bookingpage

// How a POST form is taken (docs/booking-page.md, "Forms"): its token is
// checked and claimed, the action runs once, and the answer is a redirect
// to where it led (POST-redirect-GET). A refusal of the area is said on
// the form in the page's language with its status; only an unexpected
// error is a 500, on a translated page that shows no internals.

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/errs"
)

// maxForm is the largest form body the page reads.
const maxForm = 64 << 10

// act runs a form's action once for the token the form carries (good for
// scope). action returns where the patient goes next; show shows the form
// again with a notice and a status, after a refusal or for a bad token.
func (p *Page) act(w http.ResponseWriter, r *http.Request, l lang, scope string, action func() (string, error), show func(status int, n *notice)) {
	nonce, err := p.keys.check(r.PostFormValue("form_token"), scope, p.clock.Now())
	if err != nil {
		show(http.StatusBadRequest, &notice{Kind: "error", Text: l.Translate("This form was open too long or was already sent. Please check it and send it again.")})
		return
	}
	o, location, first := p.used.claim(nonce, p.clock.Now())
	if !first {
		if location != "" {
			redirect(w, r, location)
			return
		}
		show(http.StatusConflict, &notice{Kind: "error", Text: l.Translate("This form was open too long or was already sent. Please check it and send it again.")})
		return
	}
	location, err = action()
	if err != nil {
		p.used.finish(nonce, o, "")
		if e, ok := refusal(err); ok && e.Code != errs.NotFound {
			show(statusOf(e.Code), &notice{Kind: "error", Text: say(l, e)})
			return
		}
		p.fail(w, r, l, err)
		return
	}
	p.used.finish(nonce, o, location)
	redirect(w, r, location)
}

// refusal is err as an area's refusal the patient should read, if it is
// one (an internal error is not).
func refusal(err error) (*errs.Error, bool) {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code == errs.Internal {
		return nil, false
	}
	return e, true
}

// say is a refusal as the patient reads it: the patients' own refusals in
// the page's words (the API's messages name fields a patient never saw),
// any other (a phone that cannot be reached, an e-mail that is not one) in
// the area's.
func say(l lang, e *errs.Error) string {
	if dates := refusedDates(l, e); len(dates) > 0 { // a weekly course (docs/series.md)
		if e.Code == errs.BookingLimitReached {
			return l.Translate("The course would give you more upcoming appointments than the clinic takes online, from %s. Please choose fewer sessions or call the clinic.", dates[0])
		}
		return l.Translate("Sorry, some sessions of the course are not free: %s. Please choose another time or fewer sessions.", strings.Join(dates, "; "))
	}
	switch e.Code {
	case errs.SlotNotAvailable:
		return l.Translate("Sorry, that time is no longer free. Please choose another time.")
	case errs.VerificationFailed:
		return l.Translate("That code is not right, or it has expired or was already used. Check it, or ask for a new code.")
	case errs.BookingLimitReached:
		return l.Translate("You already have as many upcoming appointments as the clinic takes online. Please call the clinic to book another.")
	case errs.RateLimited:
		return l.Translate("Too many attempts. Please wait a few minutes and try again.")
	case errs.ChangeNotAllowed:
		return l.Translate("This appointment can no longer be changed online. Please call the clinic.")
	case errs.ServiceNotFound:
		return l.Translate("Choose one of the services.")
	}
	return l.Err(e)
}

// refusedDates are the dates a refused course names (details.dates), as
// the page writes days; none when the refusal names none.
func refusedDates(l lang, e *errs.Error) []string {
	d, _ := e.Details.(map[string]any)
	list, _ := d["dates"].([]string)
	var out []string
	for _, s := range list {
		if t, err := time.Parse(time.DateOnly, s); err == nil {
			out = append(out, l.day(t))
		}
	}
	return out
}

// statusOf is the status a refused form answers with: the patient API's
// for the same refusal.
func statusOf(code string) int {
	switch code {
	case errs.NotFound:
		return http.StatusNotFound
	case errs.ChangeNotAllowed:
		return http.StatusConflict
	case errs.RateLimited:
		return http.StatusTooManyRequests
	}
	return http.StatusBadRequest
}

// errorView is the page for a request the page cannot answer: an unknown
// link or page (404), or an unexpected error (500).
type errorView struct {
	Heading string
	Text    string
}

func (errorView) isPage() {}

// fail answers err on a page of its own: NOT_FOUND as the translated 404
// page, another refusal with its message, anything else as a 500 whose
// cause goes to the log only.
func (p *Page) fail(w http.ResponseWriter, r *http.Request, l lang, err error) {
	if e, ok := refusal(err); ok {
		if e.Code == errs.NotFound {
			p.notFound(w, r, l)
			return
		}
		p.render(w, r, l, statusOf(e.Code), "error", "We could not do that", "", nil,
			errorView{Heading: l.Translate("We could not do that"), Text: say(l, e)})
		return
	}
	p.logger(r.Context()).Error("bookingpage: unexpected error", "path", r.URL.Path, "err", err)
	p.render(w, r, l, http.StatusInternalServerError, "error", "Something went wrong", "", nil,
		errorView{Heading: l.Translate("Something went wrong"), Text: l.Translate("Something went wrong on our side. Please try again.")})
}

// notFound is the translated 404 page: an unknown or disabled booking
// page, an unknown or expired manage link, an unknown address.
func (p *Page) notFound(w http.ResponseWriter, r *http.Request, l lang) {
	p.render(w, r, l, http.StatusNotFound, "error", "Page not found", "", nil,
		errorView{Heading: l.Translate("Page not found"), Text: l.Translate("This page does not exist or is no longer available. Please ask the clinic for a new link.")})
}

// TooManyRequests is the page for a request refused by the per-address
// limit the server puts in front of the pages (429; the server has set
// Retry-After): in the language the request asks for or its browser
// prefers, since the account is not read for a refused request.
func (p *Page) TooManyRequests(w http.ResponseWriter, r *http.Request) {
	privacyHeaders(w.Header())
	l := pickLanguage(r, r.Header.Get("Accept-Language"))
	p.render(w, r, l, http.StatusTooManyRequests, "error", "Too many attempts", "", nil,
		errorView{Heading: l.Translate("Too many attempts"), Text: l.Translate("Too many attempts. Please wait a few minutes and try again.")})
}
