package bookingpage

// The booking page (/book/{account_slug}, docs/booking-page.md "What the
// patient sees"): a service (and a professional or any), a slot of a week
// of free slots, phone and names, the code sent to the phone, booked. The
// steps before the details are links; the details and the code are forms.

import (
	"net/http"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
)

// progress is the booking step the patient is at: 1 service, 2 time,
// 3 details (and code), 4 done (the partial "progress" names them).
type progress int

// servicesView is the first step: the services the clinic books online.
type servicesView struct {
	Steps    progress
	Action   string
	Carry    carry
	Services []serviceItem
	Chosen   int64
}

func (servicesView) isPage() {}

// openPage opens r's booking page and sets its frame policy; on failure
// it has answered (the translated 404 for an unknown slug or a page that
// is off).
func (p *Page) openPage(w http.ResponseWriter, r *http.Request) (bookingPage, lang, bool) {
	bp, err := p.openBooking(r.Context(), r.PathValue("slug"))
	if err != nil {
		p.fail(w, r, pickLanguage(r, ""), err)
		return bookingPage{}, "", false
	}
	frameAncestors(w.Header(), bp.EmbedOrigins)
	return bp, pickLanguage(r, bp.Language), true
}

// handleServices handles "GET /book/{slug}".
func (p *Page) handleServices(w http.ResponseWriter, r *http.Request) {
	bp, l, ok := p.openPage(w, r)
	if !ok {
		return
	}
	p.showServices(w, r, bp, l, http.StatusOK, nil)
}

func (p *Page) showServices(w http.ResponseWriter, r *http.Request, bp bookingPage, l lang, status int, n *notice) {
	c := carried(r)
	chosen, _ := decodeService(r.URL.Query().Get("service"))
	p.render(w, r, l, status, "services", "Book an appointment", bp.Name, n, servicesView{
		Steps: 1, Action: bp.path("/slots"), Carry: c, Services: bp.Services, Chosen: chosen,
	})
}

// slotsView is the second step: a professional (or any) and a week of
// free slots of the chosen service.
type slotsView struct {
	Steps          progress
	Loc            *time.Location
	Service        serviceItem
	ProfessionalID int64
	Action         string // the professional form (GET)
	Carry          carry
	Week           week
	Week1          string // the week's first day, kept by the professional form
	Back           string
}

func (slotsView) isPage() {}

// handleSlots handles "GET /book/{slug}/slots?service=&professional=&week=".
func (p *Page) handleSlots(w http.ResponseWriter, r *http.Request) {
	bp, l, ok := p.openPage(w, r)
	if !ok {
		return
	}
	p.showSlots(w, r, bp, l, http.StatusOK, nil)
}

func (p *Page) showSlots(w http.ResponseWriter, r *http.Request, bp bookingPage, l lang, status int, n *notice) {
	q := r.URL.Query()
	id, okService := decodeService(q.Get("service"))
	svc, found := bp.service(id)
	if !okService || !found {
		p.showServices(w, r, bp, l, http.StatusBadRequest, &notice{Kind: "error", Text: l.Translate("Choose one of the services.")})
		return
	}
	prof, okProf := decodeProfessional(q.Get("professional"))
	if !okProf || (prof != 0 && !svc.has(prof)) {
		prof = 0
	}
	now := p.clock.Now()
	loc := bp.Location
	first := weekStart(decodeWeek(q.Get("week")), now, loc)
	list, err := p.freeSlots(r.Context(), bp, svc.ID, prof, first.Format(time.DateOnly))
	if err != nil {
		if e, ok := refusal(err); ok && statusOf(e.Code) != http.StatusNotFound {
			p.showServices(w, r, bp, l, statusOf(e.Code), &notice{Kind: "error", Text: say(l, e)})
			return
		}
		p.fail(w, r, l, err)
		return
	}
	c := carried(r)
	profParam := ""
	if prof != 0 {
		profParam = itoa(prof)
	}
	days := groupSlots(list, loc, prof == 0, func(s calendar.OpenSlot) string {
		return c.Link(bp.path("/details"), "service", itoa(svc.ID), "professional", profParam, "start", s.StartAt)
	})
	wk := weekOf(first, now, loc, days, list.HasMore, func(day string) string {
		return c.Link(bp.path("/slots"), "service", itoa(svc.ID), "professional", profParam, "week", day)
	})
	p.render(w, r, l, status, "slots", "Choose a time", bp.Name, n, slotsView{
		Steps: 2, Loc: loc, Service: svc, ProfessionalID: prof, Action: bp.path("/slots"), Carry: c,
		Week: wk, Week1: first.Format(time.DateOnly), Back: c.Link(bp.path(""), "service", itoa(svc.ID)),
	})
}
