package bookingpage

// The booking's forms: the patient's details, the code sent to their
// phone (when the page verifies phones), and the confirmation. What a step
// carries to the next is sealed into its address (seal.go).

import (
	"net/http"
	"strings"
	"time"
)

// draft is what the code step carries: the slot and the details.
type draft struct {
	Slot    slotChoice `json:"slot"`
	Details details    `json:"who"`
}

// draftLifetime is how long the code step stays open (a code lives 10
// minutes; a new one may be asked for).
const draftLifetime = time.Hour

// bookedLifetime is how long the confirmation page can be opened again.
const bookedLifetime = 24 * time.Hour

// detailsView is the third step: who books.
type detailsView struct {
	Steps    progress
	Loc      *time.Location
	Service  string
	Who      string // the professional's name; "" any
	At       time.Time
	Form     formBase
	Action   string
	Values   details
	Problems problems
	Verify   bool
	Back     string
	// Repeat offers "Repeat weekly" with these session counts (2 to
	// maxSessions) when the service allows series; Sessions is the choice.
	Repeat   []int
	Sessions int
}

func (detailsView) isPage() {}

// slotOf reads the chosen slot from r's address and checks it names a
// service (and professional) of the page; on failure it has shown the
// slots or services again.
func (p *Page) slotOf(w http.ResponseWriter, r *http.Request, bp bookingPage, l lang) (slotChoice, serviceItem, time.Time, bool) {
	choice, ok := decodeSlotChoice(r.URL.Query())
	svc, found := bp.service(choice.ServiceID)
	if !ok || !found || (choice.ProfessionalID != 0 && !svc.has(choice.ProfessionalID)) {
		p.showServices(w, r, bp, l, http.StatusBadRequest, &notice{Kind: "error", Text: l.Translate("Choose one of the listed times.")})
		return slotChoice{}, serviceItem{}, time.Time{}, false
	}
	start, _ := decodeStart(choice.Start)
	at, ok := start.In(bp.Location)
	if !ok {
		p.showSlots(w, r, bp, l, http.StatusBadRequest, &notice{Kind: "error", Text: l.Translate("Choose one of the listed times.")})
		return slotChoice{}, serviceItem{}, time.Time{}, false
	}
	return choice, svc, at, true
}

// handleDetails handles "GET /book/{slug}/details?service=&professional=&start=".
func (p *Page) handleDetails(w http.ResponseWriter, r *http.Request) {
	bp, l, ok := p.openPage(w, r)
	if !ok {
		return
	}
	choice, svc, at, ok := p.slotOf(w, r, bp, l)
	if !ok {
		return
	}
	p.showDetails(w, r, bp, l, http.StatusOK, nil, choice, svc, at, details{}, nil)
}

func (p *Page) showDetails(w http.ResponseWriter, r *http.Request, bp bookingPage, l lang, status int, n *notice,
	choice slotChoice, svc serviceItem, at time.Time, values details, bad problems) {
	c := carried(r)
	v := detailsView{Steps: 3, Loc: bp.Location, Service: svc.Name, Who: svc.professionalName(choice.ProfessionalID), At: at,
		Form: formBase{Token: p.keys.issue(bp.scope(), p.clock.Now()), Carry: c}, Values: values, Verify: bp.VerifyPhone,
		Action:   c.Link(bp.path("/details"), "service", itoa(choice.ServiceID), "professional", idParam(choice.ProfessionalID), "start", choice.Start),
		Back:     c.Link(bp.path("/slots"), "service", itoa(choice.ServiceID), "professional", idParam(choice.ProfessionalID), "week", at.Format(time.DateOnly)),
		Sessions: values.Sessions,
	}
	if svc.AllowSeries {
		for n := 2; n <= maxSessions; n++ {
			v.Repeat = append(v.Repeat, n)
		}
	}
	if len(bad) > 0 {
		v.Problems = problems{}
		for field := range bad {
			v.Problems[field] = l.Translate(bad[field])
		}
		if n == nil {
			n = &notice{Kind: "error", Text: l.Translate("Please check the fields marked below.")}
		}
	}
	p.render(w, r, l, status, "details", "Your details", bp.Name, n, v)
}

// handleDetailsPost handles "POST /book/{slug}/details?service=&professional=&start=":
// with phone verification a code is sent and the code step follows;
// without, the appointment is booked.
func (p *Page) handleDetailsPost(w http.ResponseWriter, r *http.Request) {
	bp, l, ok := p.openPage(w, r)
	if !ok {
		return
	}
	choice, svc, at, ok := p.slotOf(w, r, bp, l)
	if !ok {
		return
	}
	who, bad := decodeDetails(r.PostForm)
	if len(bad) > 0 {
		p.showDetails(w, r, bp, l, http.StatusBadRequest, nil, choice, svc, at, who, bad)
		return
	}
	d := draft{Slot: choice, Details: who}
	p.act(w, r, l, bp.scope(), func() (string, error) {
		if bp.VerifyPhone {
			if err := p.sendCode(r.Context(), bp, who.Phone, clientAddress(r)); err != nil {
				return "", err
			}
			return carried(r).Link(bp.path("/code"), "d", sealStep(p.keys, bp.scope(), d, p.clock.Now(), draftLifetime)), nil
		}
		return p.bookDraft(r, bp, d, "")
	}, func(status int, n *notice) { p.showDetails(w, r, bp, l, status, n, choice, svc, at, who, nil) })
}

// bookDraft books d (with code when the page verifies phones) and returns
// the confirmation's address.
func (p *Page) bookDraft(r *http.Request, bp bookingPage, d draft, code string) (string, error) {
	done, err := p.book(r.Context(), bp, d, code)
	if err != nil {
		return "", err
	}
	return carried(r).Link(bp.path("/booked"), "b", sealStep(p.keys, bp.bookedScope(), done, p.clock.Now(), bookedLifetime)), nil
}

// codeView is the code step.
type codeView struct {
	Steps   progress
	Loc     *time.Location
	Service string
	Who     string
	At      time.Time
	Phone   string // the last digits only
	Form    formBase
	Again   formBase // the "Send a new code" form's own token
	Action  string   // both forms: the code, and again=1 for a new one
	Problem string
	Back    string
	// Sessions is the weekly sessions asked for (0 or 1: one appointment).
	Sessions int
}

func (codeView) isPage() {}

// draftOf opens the code step r's address carries; on failure it has
// shown the services again, saying the step expired.
func (p *Page) draftOf(w http.ResponseWriter, r *http.Request, bp bookingPage, l lang) (draft, bool) {
	d, err := openStep[draft](p.keys, bp.scope(), r.URL.Query().Get("d"), p.clock.Now())
	if err != nil {
		p.showServices(w, r, bp, l, http.StatusBadRequest, &notice{Kind: "error", Text: l.Translate("This step has expired. Please choose your time again.")})
		return draft{}, false
	}
	return d, true
}

// handleCode handles "GET /book/{slug}/code?d=".
func (p *Page) handleCode(w http.ResponseWriter, r *http.Request) {
	bp, l, ok := p.openPage(w, r)
	if !ok {
		return
	}
	d, ok := p.draftOf(w, r, bp, l)
	if !ok {
		return
	}
	var n *notice
	if r.URL.Query().Get("sent") == "1" {
		n = &notice{Kind: "ok", Text: l.Translate("We sent you a new code.")}
	}
	p.showCode(w, r, bp, l, http.StatusOK, n, d, "")
}

func (p *Page) showCode(w http.ResponseWriter, r *http.Request, bp bookingPage, l lang, status int, n *notice, d draft, problem string) {
	c := carried(r)
	svc, _ := bp.service(d.Slot.ServiceID)
	start, _ := decodeStart(d.Slot.Start)
	at, _ := start.In(bp.Location)
	sealedDraft := r.URL.Query().Get("d")
	p.render(w, r, l, status, "code", "Type the code", bp.Name, n, codeView{
		Steps: 3, Loc: bp.Location, Service: svc.Name, Who: svc.professionalName(d.Slot.ProfessionalID), At: at,
		Phone: lastDigits(d.Details.Phone), Form: formBase{Token: p.keys.issue(bp.scope(), p.clock.Now()), Carry: c},
		Again:  formBase{Token: p.keys.issue(bp.scope(), p.clock.Now()), Carry: c},
		Action: c.Link(bp.path("/code"), "d", sealedDraft), Problem: problem, Sessions: d.Details.Sessions,
		Back: c.Link(bp.path("/slots"), "service", itoa(d.Slot.ServiceID), "professional", idParam(d.Slot.ProfessionalID), "week", at.Format(time.DateOnly)),
	})
}

// handleCodePost handles "POST /book/{slug}/code?d=": books with the
// code, or (the "Send a new code" form: again=1) sends a new one.
func (p *Page) handleCodePost(w http.ResponseWriter, r *http.Request) {
	bp, l, ok := p.openPage(w, r)
	if !ok {
		return
	}
	d, ok := p.draftOf(w, r, bp, l)
	if !ok {
		return
	}
	if r.PostFormValue("again") == "1" {
		p.sendAgain(w, r, bp, l, d)
		return
	}
	code, bad := decodeCode(r.PostFormValue("code"))
	if len(bad) > 0 {
		p.showCode(w, r, bp, l, http.StatusBadRequest, nil, d, l.Translate(bad["code"]))
		return
	}
	p.act(w, r, l, bp.scope(), func() (string, error) { return p.bookDraft(r, bp, d, code) },
		func(status int, n *notice) { p.showCode(w, r, bp, l, status, n, d, "") })
}

// sendAgain sends a new code to the draft's phone.
func (p *Page) sendAgain(w http.ResponseWriter, r *http.Request, bp bookingPage, l lang, d draft) {
	p.act(w, r, l, bp.scope(), func() (string, error) {
		if err := p.sendCode(r.Context(), bp, d.Details.Phone, clientAddress(r)); err != nil {
			return "", err
		}
		return carried(r).Link(bp.path("/code"), "d", r.URL.Query().Get("d"), "sent", "1"), nil
	}, func(status int, n *notice) { p.showCode(w, r, bp, l, status, n, d, "") })
}

// bookedView is the confirmation.
type bookedView struct {
	Steps       progress
	Loc         *time.Location
	Booked      bookedStep
	Start, End  time.Time
	ManageURL   string // the full link, as the messages carry it
	ManagePath  string // the same page on this site
	CalendarURL string
	Again       string
}

func (bookedView) isPage() {}

// handleBooked handles "GET /book/{slug}/booked?b=".
func (p *Page) handleBooked(w http.ResponseWriter, r *http.Request) {
	bp, l, ok := p.openPage(w, r)
	if !ok {
		return
	}
	b, err := openStep[bookedStep](p.keys, bp.bookedScope(), r.URL.Query().Get("b"), p.clock.Now())
	if err != nil {
		p.notFound(w, r, l)
		return
	}
	c := carried(r)
	v := bookedView{Steps: 4, Loc: bp.Location, Booked: b, Start: b.Start.In(bp.Location), End: b.End.In(bp.Location),
		ManageURL: b.ManageURL, Again: c.Link(bp.path(""))}
	if token := manageToken(b.ManageURL); token != "" {
		v.ManagePath = c.Link("/m/" + token)
		v.CalendarURL = "/m/" + token + "/appointment.ics"
	}
	p.render(w, r, l, http.StatusOK, "booked", "You are booked", bp.Name, nil, v)
}

// manageToken is the token of a manage link ("" when there is none).
func manageToken(link string) string {
	i := strings.LastIndex(link, "/m/")
	if i < 0 {
		return ""
	}
	token := link[i+3:]
	if token == "" || strings.ContainsAny(token, "/?#") {
		return ""
	}
	return token
}

// lastDigits shows the end of a phone number only.
func lastDigits(phone string) string {
	var digits []rune
	for _, r := range phone {
		if r >= '0' && r <= '9' {
			digits = append(digits, r)
		}
	}
	if len(digits) > 3 {
		digits = digits[len(digits)-3:]
	}
	return "•••" + string(digits)
}

func idParam(id int64) string {
	if id == 0 {
		return ""
	}
	return itoa(id)
}
