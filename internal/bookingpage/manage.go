package bookingpage

// The manage page (/m/{token}, docs/booking-page.md "The manage page"):
// one appointment as its patient sees it, with what they may still do —
// confirm or decline it, cancel it (a confirm step, an optional reason),
// move it to a listed slot — or why they no longer can. Every action is
// the manage area's function the manage API calls.

import (
	"net/http"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/manage"
)

// manageView is the manage page.
type manageView struct {
	Loc         *time.Location
	Appointment manage.Appointment
	FirstName   string
	Start, End  time.Time
	// Booked, Cancelled: the appointment's state; Past: it has started.
	Booked, Cancelled, Past bool
	// Confirmed / Declined: the patient's answer to the confirmation
	// request so far.
	Confirmed, Declined bool
	CanChange           bool
	CutoffAt            time.Time
	Form                formBase
	ConfirmURL          string // POST
	DeclineURL          string // POST
	CancelURL           string // the confirm step (GET)
	RescheduleURL       string // the slots (GET)
	CalendarURL         string // the .ics file
}

func (manageView) isPage() {}

// formBase is what every form of a page carries: its token and the
// page's language and embedding.
type formBase struct {
	Token string
	Carry carry
}

// manageOpen is an opened manage link: its account as the page shows it
// and the appointment's view.
type manageOpen struct {
	token  string
	acct   account.Account
	clinic clinic
	view   manage.View
	lang   lang
}

// openManage opens the link of r's token; on failure it has answered (a
// translated 404, or an error page).
func (p *Page) openManage(w http.ResponseWriter, r *http.Request) (manageOpen, bool) {
	token := r.PathValue("token")
	acct, v, err := manage.Open(r.Context(), p.db, token, p.clock.Now())
	if err != nil {
		p.fail(w, r, pickLanguage(r, ""), err)
		return manageOpen{}, false
	}
	c, err := p.clinicOf(r.Context(), acct)
	if err != nil {
		p.fail(w, r, pickLanguage(r, ""), err)
		return manageOpen{}, false
	}
	frameAncestors(w.Header(), c.EmbedOrigins)
	return manageOpen{token: token, acct: acct, clinic: c, view: v, lang: pickLanguage(r, c.Language)}, true
}

// scope is what a manage form's token is good for.
func (m manageOpen) scope() string { return "m:" + m.token }

func (m manageOpen) path(suffix string) string { return "/m/" + m.token + suffix }

// handleManage handles "GET /m/{token}".
func (p *Page) handleManage(w http.ResponseWriter, r *http.Request) {
	m, ok := p.openManage(w, r)
	if !ok {
		return
	}
	var n *notice
	switch r.URL.Query().Get("done") {
	case "confirmed":
		n = &notice{Kind: "ok", Text: m.lang.Translate("Thank you: your appointment is confirmed.")}
	case "declined":
		n = &notice{Kind: "ok", Text: m.lang.Translate("Thank you for letting us know you cannot come.")}
	case "cancelled":
		n = &notice{Kind: "ok", Text: m.lang.Translate("Your appointment is cancelled.")}
	case "rescheduled":
		n = &notice{Kind: "ok", Text: m.lang.Translate("Your appointment has been moved.")}
	}
	p.showManage(w, r, m, http.StatusOK, n)
}

func (p *Page) showManage(w http.ResponseWriter, r *http.Request, m manageOpen, status int, n *notice) {
	loc := m.acct.Location()
	v := m.view
	c := carried(r)
	now := p.clock.Now()
	page := manageView{Loc: loc, Appointment: v.Appointment, FirstName: v.Client.FirstName,
		Start: v.Appointment.StartAt.In(loc), End: v.Appointment.EndAt.In(loc),
		Booked: v.Appointment.Status == calendar.StatusBooked, Cancelled: v.Appointment.Status == calendar.StatusCancelled,
		Past:      !now.Before(v.Appointment.StartAt),
		Confirmed: v.Appointment.ConfirmationStatus == calendar.ConfirmationConfirmed,
		Declined:  v.Appointment.ConfirmationStatus == calendar.ConfirmationDeclined,
		CanChange: v.CanCancel || v.CanReschedule, CutoffAt: v.CancelCutoffAt.In(loc),
		Form:       formBase{Token: p.keys.issue(m.scope(), now), Carry: c},
		ConfirmURL: c.Link(m.path("/confirm")), DeclineURL: c.Link(m.path("/decline")),
		CancelURL: c.Link(m.path("/cancel")), RescheduleURL: c.Link(m.path("/reschedule")),
		CalendarURL: m.path("/appointment.ics"),
	}
	p.render(w, r, m.lang, status, "manage", "Your appointment", m.clinic.Name, n, page)
}

// handleManageAnswer handles "POST /m/{token}/confirm" and
// "POST /m/{token}/decline": the patient's answer to the confirmation
// request.
func (p *Page) handleManageAnswer(confirm bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		m, ok := p.openManage(w, r)
		if !ok {
			return
		}
		p.act(w, r, m.lang, m.scope(), func() (string, error) {
			now := p.clock.Now()
			var err error
			done := "confirmed"
			if confirm {
				_, err = manage.Confirm(r.Context(), p.db, m.token, now)
			} else {
				_, err = manage.Decline(r.Context(), p.db, m.token, now)
				done = "declined"
			}
			return carried(r).Link(m.path(""), "done", done), err
		}, func(status int, n *notice) { p.showManage(w, r, m, status, n) })
	}
}
