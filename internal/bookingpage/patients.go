package bookingpage

// The calls the page makes to the areas, each the function the patient
// API calls for the same thing (package patients for booking; package
// manage for a manage link, in manage.go), and the page's own view of
// their answers.

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/manage"
	"github.com/frontdesk/frontdesk/internal/patients"
)

// bookingPage is an account's published booking page as the page shows
// it.
type bookingPage struct {
	page         patients.Page
	Slug         string
	Name         string
	Language     string
	Location     *time.Location
	VerifyPhone  bool
	EmbedOrigins []string
	Services     []serviceItem
}

// serviceItem is a service of the page.
type serviceItem struct {
	ID              int64
	Name            string
	DurationMinutes int
	Professionals   []calendar.Ref
	// AllowSeries: the details step offers "Repeat weekly" (the service's
	// booking rule allow_series, docs/series.md).
	AllowSeries bool
}

// has reports whether the professional with id offers the service.
func (s serviceItem) has(id int64) bool { return s.professionalName(id) != "" }

// professionalName is the name of the service's professional with id (""
// for none, or any).
func (s serviceItem) professionalName(id int64) string {
	for _, p := range s.Professionals {
		if p.ID == id {
			return p.Name
		}
	}
	return ""
}

// service is the page's service with id.
func (b bookingPage) service(id int64) (serviceItem, bool) {
	for _, s := range b.Services {
		if s.ID == id {
			return s, true
		}
	}
	return serviceItem{}, false
}

// path is an address of the page: path("/slots") is /book/{slug}/slots.
func (b bookingPage) path(suffix string) string { return "/book/" + b.Slug + suffix }

// scope is what the page's form tokens and sealed code steps are good
// for; bookedScope, its confirmations.
func (b bookingPage) scope() string       { return "book:" + b.Slug }
func (b bookingPage) bookedScope() string { return "booked:" + b.Slug }

// openBooking opens the published page of slug (patients.Open): NOT_FOUND
// for an unknown slug or a page that is off.
func (p *Page) openBooking(ctx context.Context, slug string) (bookingPage, error) {
	pg, err := patients.Open(ctx, p.db, slug)
	if err != nil {
		return bookingPage{}, err
	}
	out := bookingPage{page: pg, Slug: pg.Account.Slug, Name: pg.Account.Name, Language: pg.Language, Location: pg.Account.Location(),
		VerifyPhone: pg.Settings.VerifyPhone, EmbedOrigins: pg.Settings.EmbedOrigins}
	for _, s := range pg.Services {
		out.Services = append(out.Services, serviceItem{ID: s.ID, Name: s.Name, DurationMinutes: s.DurationMinutes, Professionals: s.Professionals,
			AllowSeries: s.AllowSeries})
	}
	return out, nil
}

// freeSlots lists a week of the service's free slots from first
// (patients.Slots), of one professional or (0) all.
func (p *Page) freeSlots(ctx context.Context, b bookingPage, serviceID, professionalID int64, first string) (calendar.SlotList, error) {
	q := patients.SlotQuery{ServiceID: serviceID, StartDate: first, Days: weekDays}
	if professionalID != 0 {
		q.ProfessionalID = &professionalID
	}
	return patients.Slots(ctx, p.db, b.page, q, p.clock.Now())
}

// sendCode sends a verification code to phone (patients.RequestCode).
func (p *Page) sendCode(ctx context.Context, b bookingPage, phone, address string) error {
	_, err := patients.RequestCode(ctx, p.db, b.page, phone, address, p.clock.Now())
	return err
}

// bookedStep is what the confirmation shows.
type bookedStep struct {
	AppointmentID int64     `json:"id"`
	Service       string    `json:"svc"`
	Professional  string    `json:"pro"`
	Start         time.Time `json:"at"`
	End           time.Time `json:"end"`
	ManageURL     string    `json:"m,omitempty"`
	// Sessions are the starts of every session of a weekly course, the
	// first included; none for one appointment.
	Sessions []time.Time `json:"s,omitempty"`
}

// book books d (patients.Book) with code.
func (p *Page) book(ctx context.Context, b bookingPage, d draft, code string) (bookedStep, error) {
	start, _ := decodeStart(d.Slot.Start)
	in := patients.BookInput{ServiceID: d.Slot.ServiceID, StartAt: start, Code: code,
		Client: calendar.ClientInput{Phone: d.Details.Phone, FirstName: d.Details.FirstName, LastName: d.Details.LastName, Email: d.Details.Email}}
	if d.Slot.ProfessionalID != 0 {
		id := d.Slot.ProfessionalID
		in.ProfessionalID = &id
	}
	if d.Details.Sessions > 1 { // a weekly course: patients.Book applies the service's allow_series
		in.Recurrence = &calendar.Recurrence{Frequency: "weekly", Interval: 1, Count: d.Details.Sessions}
	}
	done, err := patients.Book(ctx, p.db, b.page, in, p.clock.Now())
	if err != nil {
		return bookedStep{}, err
	}
	if done.ManageURL == "" { // the link every message about it carries
		if done.ManageURL, err = manage.URL(ctx, p.db, b.page.Account, done.Appointment.ID); err != nil {
			return bookedStep{}, err
		}
	}
	svc, _ := b.service(d.Slot.ServiceID)
	at, _ := start.In(b.Location)
	out := bookedStep{AppointmentID: done.Appointment.ID, Service: svc.Name, Professional: done.Appointment.CalendarProfile.Name,
		Start: at, End: at.Add(time.Duration(svc.DurationMinutes) * time.Minute), ManageURL: done.ManageURL}
	if done.Series != nil {
		for _, o := range done.Series.Occurrences {
			s, err := time.Parse(time.RFC3339Nano, o.StartAt)
			if err != nil {
				return bookedStep{}, err
			}
			out.Sessions = append(out.Sessions, s.In(b.Location))
		}
	}
	return out, nil
}

// clinic is what a manage page shows and obeys of its account.
type clinic struct {
	Name         string
	Language     string
	EmbedOrigins []string
}

// clinicOf reads acct's language and embedding origins (the manage page
// opens whether or not the booking page is on).
func (p *Page) clinicOf(ctx context.Context, acct account.Account) (clinic, error) {
	lang, err := account.Language(ctx, p.db, acct)
	if err != nil {
		return clinic{}, err
	}
	st, err := patients.LoadSettings(ctx, p.db, acct)
	if err != nil {
		return clinic{}, err
	}
	return clinic{Name: acct.Name, Language: lang, EmbedOrigins: st.EmbedOrigins}, nil
}

// clientAddress is the address a request came from, which the code limits
// count: the host of RemoteAddr, as the patient API reads it.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
