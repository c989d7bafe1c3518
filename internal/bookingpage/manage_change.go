package bookingpage

// Cancelling and moving from the manage page: each a page of its own
// before the POST (a confirm step with the optional reason; the week of
// slots, then the chosen slot to confirm), so a tap never changes an
// appointment by accident.

import (
	"net/http"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/manage"
)

// cancelView is the cancel confirm step.
type cancelView struct {
	Loc        *time.Location
	Service    string
	Start      time.Time
	Form       formBase
	Action     string
	Back       string
	Reason     string
	ReasonHelp string
	Problem    string // the reason's problem, if any
}

func (cancelView) isPage() {}

// handleCancelStep handles "GET /m/{token}/cancel".
func (p *Page) handleCancelStep(w http.ResponseWriter, r *http.Request) {
	m, ok := p.openManage(w, r)
	if !ok {
		return
	}
	if !m.view.CanCancel {
		p.showManage(w, r, m, http.StatusConflict, p.cannotChange(m))
		return
	}
	p.showCancel(w, r, m, http.StatusOK, nil, "", "")
}

func (p *Page) showCancel(w http.ResponseWriter, r *http.Request, m manageOpen, status int, n *notice, reason, problem string) {
	c := carried(r)
	loc := m.acct.Location()
	p.render(w, r, m.lang, status, "manage_cancel", "Cancel your appointment", m.clinic.Name, n, cancelView{
		Loc: loc, Service: m.view.Appointment.Service.Name, Start: m.view.Appointment.StartAt.In(loc),
		Form: formBase{Token: p.keys.issue(m.scope(), p.clock.Now()), Carry: c}, Action: c.Link(m.path("/cancel")),
		Back: c.Link(m.path("")), Reason: reason, Problem: problem,
	})
}

// cannotChange says why the appointment can no longer be changed online.
func (p *Page) cannotChange(m manageOpen) *notice {
	v := m.view
	loc := m.acct.Location()
	switch {
	case v.Appointment.Status == calendar.StatusCancelled:
		return &notice{Kind: "error", Text: m.lang.Translate("This appointment is cancelled.")}
	case v.Appointment.Status != calendar.StatusBooked || !p.clock.Now().Before(v.Appointment.StartAt):
		return &notice{Kind: "error", Text: m.lang.Translate("This appointment has already started or taken place, so it can no longer be changed online.")}
	}
	return &notice{Kind: "error", Text: m.lang.Translate("Changes online are possible until %s. Please call the clinic to change this appointment.",
		m.lang.moment(v.CancelCutoffAt.In(loc)))}
}

// handleCancel handles "POST /m/{token}/cancel".
func (p *Page) handleCancel(w http.ResponseWriter, r *http.Request) {
	m, ok := p.openManage(w, r)
	if !ok {
		return
	}
	if !m.view.CanCancel { // say why before anything about the form
		p.showManage(w, r, m, http.StatusConflict, p.cannotChange(m))
		return
	}
	reason, bad := decodeReason(r.PostFormValue("reason"))
	if bad != nil {
		p.showCancel(w, r, m, http.StatusBadRequest, nil, r.PostFormValue("reason"), m.lang.Translate(bad["reason"]))
		return
	}
	p.act(w, r, m.lang, m.scope(), func() (string, error) {
		_, err := manage.Cancel(r.Context(), p.db, m.token, reason, p.clock.Now())
		return carried(r).Link(m.path(""), "done", "cancelled"), err
	}, func(status int, n *notice) { p.showCancel(w, r, m, status, n, reason, "") })
}

// rescheduleView is the week of slots the appointment may move to.
type rescheduleView struct {
	Loc     *time.Location
	Service string
	Start   time.Time
	Week    week
	Back    string
}

func (rescheduleView) isPage() {}

// handleReschedule handles "GET /m/{token}/reschedule?week=".
func (p *Page) handleReschedule(w http.ResponseWriter, r *http.Request) {
	m, ok := p.openManage(w, r)
	if !ok {
		return
	}
	p.showReschedule(w, r, m, http.StatusOK, nil)
}

func (p *Page) showReschedule(w http.ResponseWriter, r *http.Request, m manageOpen, status int, n *notice) {
	if !m.view.CanReschedule {
		p.showManage(w, r, m, http.StatusConflict, p.cannotChange(m))
		return
	}
	now := p.clock.Now()
	loc := m.acct.Location()
	c := carried(r)
	first := weekStart(decodeWeek(r.URL.Query().Get("week")), now, loc)
	list, err := manage.Slots(r.Context(), p.db, m.token, first.Format(time.DateOnly), weekDays, now)
	if err != nil {
		if e, ok := refusal(err); ok && statusOf(e.Code) != http.StatusNotFound {
			p.showManage(w, r, m, statusOf(e.Code), &notice{Kind: "error", Text: say(m.lang, e)})
			return
		}
		p.fail(w, r, m.lang, err)
		return
	}
	days := groupSlots(list, loc, false, func(s calendar.OpenSlot) string {
		return c.Link(m.path("/reschedule/confirm"), "start", s.StartAt, "professional", itoa(s.Professional.ID))
	})
	wk := weekOf(first, now, loc, days, list.HasMore, func(day string) string { return c.Link(m.path("/reschedule"), "week", day) })
	p.render(w, r, m.lang, status, "manage_reschedule", "Choose a new time", m.clinic.Name, n, rescheduleView{
		Loc: loc, Service: m.view.Appointment.Service.Name, Start: m.view.Appointment.StartAt.In(loc), Week: wk, Back: c.Link(m.path("")),
	})
}

// moveView is the chosen slot to confirm.
type moveView struct {
	Loc            *time.Location
	Service        string
	From, To       time.Time
	Professional   string
	Start          string
	ProfessionalID int64
	Form           formBase
	Action         string
	Back           string
}

func (moveView) isPage() {}

// handleMoveStep handles "GET /m/{token}/reschedule/confirm?start=&professional=".
func (p *Page) handleMoveStep(w http.ResponseWriter, r *http.Request) {
	m, ok := p.openManage(w, r)
	if !ok {
		return
	}
	p.showMove(w, r, m, http.StatusOK, nil)
}

func (p *Page) showMove(w http.ResponseWriter, r *http.Request, m manageOpen, status int, n *notice) {
	if !m.view.CanReschedule {
		p.showManage(w, r, m, http.StatusConflict, p.cannotChange(m))
		return
	}
	loc := m.acct.Location()
	c := carried(r)
	q := r.URL.Query()
	start, okStart := decodeStart(q.Get("start"))
	prof, okProf := decodeProfessional(q.Get("professional"))
	at, okAt := start.In(loc)
	if !okStart || !okProf || !okAt {
		p.showReschedule(w, r, m, http.StatusBadRequest, &notice{Kind: "error", Text: m.lang.Translate("Choose one of the listed times.")})
		return
	}
	v := moveView{Loc: loc, Service: m.view.Appointment.Service.Name, From: m.view.Appointment.StartAt.In(loc), To: at.In(loc),
		Start: wallString(start), ProfessionalID: prof,
		Form: formBase{Token: p.keys.issue(m.scope(), p.clock.Now()), Carry: c}, Back: c.Link(m.path("/reschedule"), "week", at.In(loc).Format(time.DateOnly)),
	}
	v.Action = c.Link(m.path("/reschedule/confirm"), "start", v.Start, "professional", idParam(prof))
	p.render(w, r, m.lang, status, "manage_move", "Move your appointment", m.clinic.Name, n, v)
}

// handleMove handles "POST /m/{token}/reschedule/confirm?start=&professional=".
func (p *Page) handleMove(w http.ResponseWriter, r *http.Request) {
	m, ok := p.openManage(w, r)
	if !ok {
		return
	}
	if !m.view.CanReschedule {
		p.showManage(w, r, m, http.StatusConflict, p.cannotChange(m))
		return
	}
	start, okStart := decodeStart(r.URL.Query().Get("start"))
	prof, okProf := decodeProfessional(r.URL.Query().Get("professional"))
	if !okStart || !okProf {
		p.showReschedule(w, r, m, http.StatusBadRequest, &notice{Kind: "error", Text: m.lang.Translate("Choose one of the listed times.")})
		return
	}
	p.act(w, r, m.lang, m.scope(), func() (string, error) {
		var who *int64
		if prof != 0 {
			who = &prof
		}
		_, err := manage.Reschedule(r.Context(), p.db, m.token, start, who, p.clock.Now())
		return carried(r).Link(m.path(""), "done", "rescheduled"), err
	}, func(status int, n *notice) { p.showReschedule(w, r, m, status, n) })
}
