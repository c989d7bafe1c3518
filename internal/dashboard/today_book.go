package dashboard

// Booking from the grid: the form, its choices, and calendar.Book with its
// warnings.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// bookForm is the booking form's values, kept when a refusal shows it again.
type bookForm struct {
	ProfessionalID, ServiceID, EventTypeID int64
	Start                                  time.Time
	ClientID                               string // an id, or "new"
	Phone, FirstName, LastName, Notes, Q   string
	// Repeat is a course's interval in weeks (0: a single booking) and
	// Sessions its number of sessions (book_course.go).
	Repeat   int
	Sessions string
}

// bookView is what book.html shows.
type bookView struct {
	Form         bookForm
	Professional calendar.Ref
	Service      calendar.Service
	Services     []calendar.Service // the ones the professional offers
	EventTypes   []calendar.Ref     // of those services
	Matches      []contact.Client
	Searched     bool
	Error        string
	StartValue   string      // Form.Start as RFC 3339, for the hidden field
	Course       *courseView // a course's sessions checked before booking (book_course.go)
	Repeats      []int       // the intervals a course may have, in weeks
}

func (bookView) isPage() {}

// bookingChoices checks the slot's professional and service against the
// account's bookable catalog: an unknown id (another account's among them)
// is NOT_FOUND; a professional of the account not offering the service is
// a refusal.
func (d *Dashboard) bookingChoices(r *http.Request, s *session, f bookForm) (bookView, error) {
	services, err := calendar.ListServices(r.Context(), d.db, s.Account)
	if err != nil {
		return bookView{}, err
	}
	v := bookView{Form: f, StartValue: f.Start.UTC().Format(time.RFC3339), Repeats: courseIntervals()}
	found, offers := false, false
	seenType := map[int64]bool{}
	for _, svc := range services {
		for _, p := range svc.Professionals {
			if p.ID != f.ProfessionalID {
				continue
			}
			v.Professional = p
			v.Services = append(v.Services, svc)
			for _, et := range svc.EventTypes {
				if !seenType[et.ID] {
					seenType[et.ID] = true
					v.EventTypes = append(v.EventTypes, et)
				}
			}
		}
		if svc.ID == f.ServiceID {
			v.Service, found = svc, true
			offers = slices.ContainsFunc(svc.Professionals, func(p calendar.Ref) bool { return p.ID == f.ProfessionalID })
		}
	}
	if !found {
		return v, notFound("Service", f.ServiceID)
	}
	if v.Professional.ID == 0 {
		return v, notFound("Professional", f.ProfessionalID)
	}
	if !offers {
		return v, errs.New(errs.ValidationError, "%s", s.Translate("%s does not offer %s.", v.Professional.Name, v.Service.Name))
	}
	return v, nil
}

// readBookForm reads the slot (professional_id, service_id, start) and the
// rest of the booking form from r.Form.
func readBookForm(r *http.Request, s *session) (bookForm, error) {
	f := bookForm{ClientID: strings.TrimSpace(r.Form.Get("client_id")), Phone: strings.TrimSpace(r.Form.Get("phone")),
		FirstName: strings.TrimSpace(r.Form.Get("first_name")), LastName: strings.TrimSpace(r.Form.Get("last_name")),
		Notes: strings.TrimSpace(r.Form.Get("notes")), Q: strings.TrimSpace(r.Form.Get("q"))}
	var err error
	if f.ProfessionalID, err = strconv.ParseInt(r.Form.Get("professional_id"), 10, 64); err != nil || f.ProfessionalID <= 0 {
		return f, errs.New(errs.NotFound, "no professional")
	}
	if f.ServiceID, err = strconv.ParseInt(r.Form.Get("service_id"), 10, 64); err != nil || f.ServiceID <= 0 {
		return f, errs.New(errs.NotFound, "no service")
	}
	f.EventTypeID, _ = strconv.ParseInt(r.Form.Get("event_type_id"), 10, 64)
	if f.Start, err = time.Parse(time.RFC3339, strings.TrimSpace(r.Form.Get("start"))); err != nil {
		return f, errs.New(errs.ValidationError, "%s", s.Translate("Choose a free slot on Today to book."))
	}
	if f.ClientID == "" {
		f.ClientID = "new"
	}
	f.Repeat, _ = strconv.Atoi(r.Form.Get("repeat"))
	f.Sessions = strings.TrimSpace(r.Form.Get("sessions"))
	return f, nil
}

// bookPage handles "GET /app/book?professional_id=&service_id=&start=&q=":
// the booking form for a free slot. q searches the clients to book for.
func (d *Dashboard) bookPage(w http.ResponseWriter, r *http.Request, s *session) error {
	f, err := readBookForm(r, s)
	if err != nil {
		return err
	}
	v, err := d.bookingChoices(r, s, f)
	if err != nil {
		return err
	}
	if len(v.Service.EventTypes) > 0 && f.EventTypeID == 0 {
		v.Form.EventTypeID = v.Service.EventTypes[0].ID
	}
	if err := d.searchBookingClients(r, s, &v); err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "book", "Book an appointment", "today", v)
	return nil
}

// searchBookingClients finds the clients of the form's q with the one
// client search (contact.SearchClients). When the form has no client
// chosen yet and exactly one client matches, that client is chosen, so
// "Book" books for the client found without another click.
func (d *Dashboard) searchBookingClients(r *http.Request, s *session, v *bookView) error {
	q, err := searchTerm(v.Form.Q)
	if err != nil || q == "" {
		if err == nil {
			err = d.chosenClient(r, s, v)
		}
		return err
	}
	v.Matches, _, err = contact.SearchClients(r.Context(), d.db, s.Account, q, 20)
	v.Searched = true
	if err == nil && len(v.Matches) == 1 && r.Form.Get("client_id") == "" {
		v.Form.ClientID = strconv.FormatInt(v.Matches[0].ID, 10)
	}
	if err == nil {
		err = d.chosenClient(r, s, v)
	}
	return err
}

// book handles "POST /app/book": calendar.Book, as the API books (the
// confirmation request and reminders, waiting-list resolution,
// appointment.booked), with the dashboard as source and only if the slot
// is still free. A refusal shows the form again with the reason and what
// was typed.
func (d *Dashboard) book(w http.ResponseWriter, r *http.Request, s *session) error {
	f, err := readBookForm(r, s)
	if err != nil {
		return err
	}
	v, err := d.bookingChoices(r, s, f)
	if err != nil {
		return d.bookRefused(w, r, s, v, err)
	}
	loc := s.Account.Location()
	in := calendar.ClientInput{Phone: f.Phone, FirstName: f.FirstName, LastName: f.LastName}
	if f.ClientID != "new" {
		id, err := strconv.ParseInt(f.ClientID, 10, 64)
		if err != nil || id <= 0 {
			return notFound("Client", f.ClientID)
		}
		c, err := contact.GetClient(r.Context(), d.db, s.Account, id)
		if err != nil {
			return err
		}
		if c.Phone.IsZero() {
			return d.bookRefused(w, r, s, v, errs.New(errs.ValidationError, "%s", s.Translate("%s has no phone number: add one on the client's page, then book.", c.Name())))
		}
		in = calendar.ClientInput{Phone: c.Phone.E164(), FirstName: c.FirstName, LastName: c.LastName}
	} else if f.Phone == "" {
		return d.bookRefused(w, r, s, v, errs.New(errs.ValidationError, "%s", s.Translate("Enter the new client's phone number, or choose an existing client.")))
	}
	start := f.Start.In(loc)
	req, err := bookingRequest(s, f, in, start, start.Add(time.Duration(v.Service.DefaultDurationMinutes)*time.Minute))
	if err != nil {
		return d.bookRefused(w, r, s, v, err)
	}
	if f.Repeat != 0 {
		return d.bookCourse(w, r, s, v, req)
	}
	b, err := calendar.Book(r.Context(), d.db, s.Account, req, d.clock.Now())
	if err != nil {
		return d.bookRefused(w, r, s, v, err)
	}
	a := b.Appointment
	msg := s.Translate("Booked %s for %s on %s with %s.", a.Client.Name, a.Service.Name, sayDate(s.Lang, start, locale.ShortTime), a.CalendarProfile.Name)
	if b.ClientCreated {
		msg += " " + s.Translate("New client created.")
	}
	// A broken booking rule never stops staff (docs/booking-rules.md): the
	// booking is made and each rule it breaks is said in an amber flash.
	kind := "ok"
	for _, warn := range a.Warnings {
		if warn.Code == calendar.WarnBreaksBookingRule {
			kind = "warn"
			msg += " " + s.Say(warn.Text)
		}
	}
	d.redirect(w, r, fmt.Sprintf("%stoday?date=%s&service=%d#appt-%d", Prefix, start.Format("2006-01-02"), f.ServiceID, a.ID), kind, msg)
	return nil
}

// bookingRequest reads the form's booking with calendar.DecodeBooking, the
// decoder of every door (so the form's limits are the API's and MCP's), and
// words its refusals for the form.
func bookingRequest(s *session, f bookForm, in calendar.ClientInput, start, end time.Time) (calendar.BookRequest, error) {
	const wall = "2006-01-02T15:04:05"
	id := func(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }
	rep := &valid.Report{}
	req := calendar.DecodeBooking(rep.Object(map[string]any{
		"client":     map[string]any{"phone": in.Phone, "first_name": in.FirstName, "last_name": in.LastName},
		"service_id": id(f.ServiceID), "professional_id": id(f.ProfessionalID), "event_type_id": id(f.EventTypeID),
		"start_at": start.Format(wall), "end_at": end.Format(wall), "timezone": start.Location().String(), "notes": f.Notes,
	}, "model_type", "form"))
	for _, p := range rep.Problems {
		switch p.Field() {
		case "first_name", "last_name":
			return req, errs.New(errs.ValidationError, "%s", s.Translate("A name may have at most %d characters.", calendar.MaxNameLen))
		case "notes":
			return req, errs.New(errs.ValidationError, "%s", s.Translate("Notes may have at most %d characters.", calendar.MaxNotesLen))
		default:
			return req, errs.New(errs.ValidationError, "%s: %s", p.Field(), p.Msg)
		}
	}
	if f.EventTypeID <= 0 {
		return req, errs.New(errs.ValidationError, "%s", s.Translate("Choose the type of visit."))
	}
	req.Source, req.FreeSlotOnly = Source, true
	return req, nil
}

// bookRefused shows the booking form again with the reason of a refusal
// (422); NOT_FOUND and unexpected errors go to the error page.
func (d *Dashboard) bookRefused(w http.ResponseWriter, r *http.Request, s *session, v bookView, err error) error {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code == errs.NotFound {
		return err
	}
	switch {
	case err == calendar.ErrSlotTaken:
		v.Error = s.Translate("This slot is no longer free: it was booked, a waiting-list offer holds it, or it is outside working hours. Pick another slot on Today.")
	case err == calendar.ErrSlotPast:
		v.Error = s.Translate("This slot has already started. Pick another slot on Today.")
	case e.Code == errs.InvalidPhone:
		v.Error = s.Translate("The phone number %s is not valid.", v.Form.Phone)
	case e.Code == errs.NameRequired:
		v.Error = s.Translate("The phone number is new: enter the client's first or last name to create the client.")
	case e.Code == errs.EventTypeNotFound:
		v.Error = s.Translate("%s is not offered with that type of visit.", v.Service.Name)
	case e.Code == errs.ProfessionalNotFound:
		v.Error = s.Translate("%s does not offer %s.", v.Professional.Name, v.Service.Name)
	default:
		v.Error = s.Err(e)
	}
	if err := d.searchBookingClients(r, s, &v); err != nil {
		return err
	}
	if v.Professional.ID == 0 {
		return err
	}
	d.render(w, r, s, http.StatusUnprocessableEntity, "book", "Book an appointment", "today", v)
	return nil
}
