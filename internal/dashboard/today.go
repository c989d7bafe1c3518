package dashboard

// Today: the day's grid per professional (or a professional's week), the
// free slots of a service as "Book" links, booking from a slot, marking an
// appointment no-show or completed, and rescheduling by picking another
// free slot (issue 22, parts 1-2). Every rule is the calendar's: booking is
// calendar.Book (the API's booking, with the dashboard as source and a free
// slot required), the outcome is calendar.MarkAppointmentStatus and the
// move calendar.RescheduleAppointment.

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// todayRoutes registers this part's pages and actions.
func (d *Dashboard) todayRoutes() {
	d.page("GET "+Prefix+"today", d.todayPage)
	d.page("GET "+Prefix+"book", d.bookPage)
	d.action("POST "+Prefix+"book", d.book)
	d.action("POST "+Prefix+"appointments/{appointment_id}/status", d.markStatus)
	d.page("GET "+Prefix+"appointments/{appointment_id}/reschedule", d.reschedulePage)
}

// The grid has a row every gridStep minutes; hour labels every 30 minutes.
const gridStep = 15

// grid is a day or a week laid out as a CSS grid: column 1 holds the times,
// then each column (a professional on a day) takes as many grid columns as
// it needs lanes for overlapping items; row 1 holds the headings, then a
// row per gridStep minutes from First.
type grid struct {
	First, Last int // minutes from midnight of the first and last row edge
	Columns     []*gridColumn
	Times       []gridTime
	Rows        int // time rows
	Cols        int // grid columns after the time column
}

type gridTime struct {
	Row  int
	Text string
}

// gridColumn is one professional on one day.
type gridColumn struct {
	Day     time.Time // midnight in the account's zone
	ProID   int64
	ProName string
	Col     int // first grid column line
	Lanes   int
	Work    []gridSpan // working hours
	Off     []gridSpan // time off
	Items   []*gridItem

	work, off []calendar.TimeRange // what Work and Off show, laid out by layout
}

type gridSpan struct{ Row, RowEnd int }

// gridItem is an appointment, a held slot or a free slot: exactly one of
// Appt, Hold and BookURL is set.
type gridItem struct {
	Start, End  time.Time
	Row, RowEnd int
	Col         int
	lane        int
	Appt        *calendar.AppointmentView
	CanMark     bool // booked and started: no-show or completed may be marked
	Hold        *waitlist.OfferedSlot
	BookURL     string
	ProName     string
	ServiceName string
}

// minuteOf is t's wall-clock minute counted from day (midnight), so an
// item running past midnight ends after 24*60.
func minuteOf(day, t time.Time, loc *time.Location) int {
	lt := t.In(loc)
	if lt.Year() == day.Year() && lt.YearDay() == day.YearDay() {
		return lt.Hour()*60 + lt.Minute()
	}
	if lt.Before(day) {
		return 0
	}
	return 24*60 + lt.Hour()*60 + lt.Minute()
}

// layout places the columns' items on rows and lanes, and sizes the grid to
// the working hours and items of all columns (09:00-18:00 when empty).
func (g *grid) layout(loc *time.Location) {
	lo, hi := 24*60, 0
	widen := func(day, s, e time.Time) {
		a := minuteOf(day, s, loc)
		b := a + int(e.Sub(s).Minutes())
		lo, hi = min(lo, a), max(hi, b)
	}
	for _, c := range g.Columns {
		for _, it := range c.Items {
			widen(c.Day, it.Start, it.End)
		}
		for _, r := range c.work {
			widen(c.Day, r.Start, r.End)
		}
	}
	if lo >= hi {
		lo, hi = 9*60, 18*60
	}
	lo = max(lo/30*30, 0)
	hi = min((hi+29)/30*30, 48*60)
	g.First, g.Last = lo, hi
	g.Rows = (hi - lo) / gridStep
	row := func(m int) int { return 2 + (min(max(m, lo), hi)-lo)/gridStep }
	rowEnd := func(m int) int { return 2 + (min(max(m, lo), hi)-lo+gridStep-1)/gridStep }
	span := func(day, s, e time.Time) (int, int) {
		a := minuteOf(day, s, loc)
		b := a + int(e.Sub(s).Minutes())
		r, re := row(a), rowEnd(b)
		if re <= r {
			re = r + 1
		}
		return r, re
	}
	col := 2
	for _, c := range g.Columns {
		slices.SortStableFunc(c.Items, func(a, b *gridItem) int { return a.Start.Compare(b.Start) })
		var laneEnd []int // the row each lane is busy until
		for _, it := range c.Items {
			it.Row, it.RowEnd = span(c.Day, it.Start, it.End)
			it.lane = -1
			for i, e := range laneEnd {
				if e <= it.Row {
					it.lane = i
					break
				}
			}
			if it.lane < 0 {
				it.lane = len(laneEnd)
				laneEnd = append(laneEnd, 0)
			}
			laneEnd[it.lane] = it.RowEnd
		}
		c.Lanes = max(len(laneEnd), 1)
		c.Col = col
		for _, it := range c.Items {
			it.Col = col + it.lane
		}
		col += c.Lanes
	}
	g.Cols = col - 2
	for _, c := range g.Columns {
		c.Work, c.Off = g.spans(c, loc, c.work), g.spans(c, loc, c.off)
	}
	for m := lo; m < hi; m += 30 {
		g.Times = append(g.Times, gridTime{Row: row(m), Text: fmt.Sprintf("%02d:%02d", m/60%24, m%60)})
	}
}

// spans turns time ranges of a column's day into grid rows.
func (g *grid) spans(c *gridColumn, loc *time.Location, rs []calendar.TimeRange) []gridSpan {
	var out []gridSpan
	for _, r := range rs {
		a := minuteOf(c.Day, r.Start, loc)
		b := a + int(r.End.Sub(r.Start).Minutes())
		a, b = max(a, g.First), min(b, g.Last)
		if a < b {
			out = append(out, gridSpan{2 + (a-g.First)/gridStep, 2 + (b-g.First+gridStep-1)/gridStep})
		}
	}
	return out
}

// dayOf is the midnight starting t's day in loc.
func dayOf(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// within keeps the ranges of rs inside [from, to).
func within(rs []calendar.TimeRange, from, to time.Time) []calendar.TimeRange {
	var out []calendar.TimeRange
	for _, r := range rs {
		if r.End.After(from) && r.Start.Before(to) {
			out = append(out, calendar.TimeRange{Start: maxTime(r.Start, from), End: minTime(r.End, to)})
		}
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// todayPage handles "GET /app/today?date=&view=day|week&service=&professional=":
// the day's appointments on a time grid with a column per active
// professional, or (view=week) one professional's week with a column per
// day, which stays readable on a phone. Free slots of the chosen service
// (the account's first by default) are "Book" links; slots held by
// waiting-list seat offers are marked; cancelled appointments are left out
// (and counted).
func (d *Dashboard) todayPage(w http.ResponseWriter, r *http.Request, s *session) error {
	ctx := r.Context()
	loc := s.Account.Location()
	q := r.URL.Query()
	nowUTC := d.clock.Now()
	today := dayOf(nowUTC, loc)
	day := today
	if v := q.Get("date"); v != "" {
		t, ok := calendar.ParseDate(v, loc)
		if !ok {
			return errs.New(errs.ValidationError, "%s", s.T("The date must be a day from %s to %s (YYYY-MM-DD).", calendar.FirstDate, calendar.LastDate))
		}
		day = t
	}
	view := "day"
	if q.Get("view") == "week" {
		view = "week"
	}
	services, err := calendar.ListServices(ctx, d.db, s.Account)
	if err != nil {
		return err
	}
	var svc *calendar.Service
	if len(services) > 0 {
		svc = &services[0]
	}
	if v := q.Get("service"); v != "" {
		id, _ := strconv.ParseInt(v, 10, 64)
		svc = nil
		for i := range services {
			if services[i].ID == id {
				svc = &services[i]
			}
		}
		if svc == nil {
			return errs.New(errs.NotFound, "service %s not found", v)
		}
	}
	from, days := day, 1
	if view == "week" {
		from = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7)) // Monday
		days = calendar.DaysWithin(from, 7)                       // the last week of 9999 is short
	}
	to := from.AddDate(0, 0, days)
	scheds, err := calendar.Schedules(ctx, d.db, s.Account, from, to)
	if err != nil {
		return err
	}
	var proID int64
	var pro *calendar.ProfessionalSchedule
	if view == "week" {
		if len(scheds) == 0 {
			view = "day"
			from, days, to = day, 1, day.AddDate(0, 0, 1)
		} else {
			pro = &scheds[0]
			if v := q.Get("professional"); v != "" {
				id, _ := strconv.ParseInt(v, 10, 64)
				pro = nil
				for i := range scheds {
					if scheds[i].ID == id {
						pro = &scheds[i]
					}
				}
				if pro == nil {
					return errs.New(errs.NotFound, "professional %s not found", v)
				}
			}
			proID = pro.ID
		}
	}

	// The columns: a professional per column for a day, a day per column
	// for a professional's week.
	g := &grid{}
	byKey := map[string]*gridColumn{}
	key := func(day time.Time, pro int64) string {
		return day.Format("2006-01-02") + "/" + strconv.FormatInt(pro, 10)
	}
	addColumn := func(day time.Time, id int64, name string) *gridColumn {
		c := &gridColumn{Day: day, ProID: id, ProName: name}
		g.Columns = append(g.Columns, c)
		byKey[key(day, id)] = c
		return c
	}
	var work = map[*gridColumn]*calendar.ProfessionalSchedule{}
	if view == "week" {
		for i := range days {
			dd := from.AddDate(0, 0, i)
			work[addColumn(dd, pro.ID, pro.Name)] = pro
		}
	} else {
		for i := range scheds {
			work[addColumn(day, scheds[i].ID, scheds[i].Name)] = &scheds[i]
		}
	}
	column := func(t time.Time, id int64, name string) *gridColumn {
		dd := dayOf(t, loc)
		if c := byKey[key(dd, id)]; c != nil {
			return c
		}
		if view == "day" && dd.Equal(day) { // an inactive professional's appointment
			return addColumn(dd, id, name)
		}
		return nil
	}

	appts, err := calendar.ListAppointments(ctx, d.db, s.Account, calendar.AppointmentFilter{From: from, To: to, ProfessionalID: proID})
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for i := range appts {
		a := &appts[i]
		counts[a.Status]++
		if a.Status == calendar.StatusCancelled {
			continue
		}
		if c := column(a.StartAt, a.ProfessionalID, a.ProfessionalName); c != nil {
			c.Items = append(c.Items, &gridItem{Start: a.StartAt, End: a.EndAt, Appt: a,
				CanMark: a.Status == calendar.StatusBooked && !a.StartAt.After(nowUTC)})
		}
	}
	holds, err := waitlist.OfferedSlots(ctx, d.db, s.Account, waitlist.OfferFilter{From: from, To: to, ProfessionalID: proID, HeldAt: nowUTC})
	if err != nil {
		return err
	}
	for i := range holds {
		h := &holds[i]
		if c := column(h.Start, h.ProfessionalID, h.ProfessionalName); c != nil {
			c.Items = append(c.Items, &gridItem{Start: h.Start, End: h.End, Hold: h})
		}
	}
	free := 0
	if svc != nil && (proID == 0 || slices.ContainsFunc(svc.Professionals, func(p calendar.Ref) bool { return p.ID == proID })) {
		sq := calendar.SlotsQuery{ServiceID: svc.ID, StartDate: from.Format("2006-01-02"), Days: days, Limit: calendar.SlotLimitMax}
		if proID != 0 {
			sq.ProfessionalIDs = []int64{proID}
		}
		slots, err := calendar.ListFreeSlots(ctx, d.db, s.Account, sq, nowUTC)
		if err != nil {
			return err
		}
		for _, sl := range slots.Slots {
			start, err1 := time.Parse(time.RFC3339, sl.StartAtUTC)
			end, err2 := time.Parse(time.RFC3339, sl.EndAtUTC)
			if err1 != nil || err2 != nil {
				continue
			}
			if c := column(start, sl.Professional.ID, sl.Professional.Name); c != nil {
				v := url.Values{"professional_id": {strconv.FormatInt(sl.Professional.ID, 10)}, "service_id": {strconv.FormatInt(svc.ID, 10)},
					"start": {start.UTC().Format(time.RFC3339)}}
				c.Items = append(c.Items, &gridItem{Start: start, End: end, BookURL: Prefix + "book?" + v.Encode(),
					ProName: sl.Professional.Name, ServiceName: svc.Name})
				free++
			}
		}
	}
	for c, p := range work {
		nextDay := c.Day.AddDate(0, 0, 1)
		c.work, c.off = within(p.Work, c.Day, nextDay), within(p.Off, c.Day, nextDay)
	}
	g.layout(loc)
	unread, err := chat.UnreadCount(ctx, d.db, s.Account)
	if err != nil {
		return err
	}
	step := 1
	if view == "week" {
		step = 7
	}
	link := func(date time.Time) string {
		if calendar.DaysWithin(date, 1) == 0 || date.Year() < 1 {
			return "" // no day to show
		}
		v := url.Values{"date": {date.Format("2006-01-02")}}
		if view == "week" {
			v.Set("view", "week")
			v.Set("professional", strconv.FormatInt(proID, 10))
		}
		if svc != nil {
			v.Set("service", strconv.FormatInt(svc.ID, 10))
		}
		return Prefix + "today?" + v.Encode()
	}
	var svcID int64
	if svc != nil {
		svcID = svc.ID
	}
	d.render(w, r, s, http.StatusOK, "today", "Today", "today", map[string]any{
		"Grid": g, "View": view, "Day": day, "From": from, "IsToday": day.Equal(today), "Date": day.Format("2006-01-02"),
		"Services": services, "Service": svc, "ServiceID": svcID, "Pros": scheds, "ProID": proID,
		"Prev": link(day.AddDate(0, 0, -step)), "Next": link(day.AddDate(0, 0, step)), "TodayURL": link(today),
		"DayURL": viewLink(day, "day", svcID), "WeekURL": viewLink(day, "week", svcID),
		"Booked": counts[calendar.StatusBooked], "Cancelled": counts[calendar.StatusCancelled],
		"Done": counts[calendar.StatusCompleted] + counts[calendar.StatusNoShow],
		"Held": len(holds), "Free": free, "Unread": unread, "Zone": loc.String(), "Back": r.URL.RequestURI(),
	})
	return nil
}

// viewLink is Today's address for day in view (day or week).
func viewLink(day time.Time, view string, svc int64) string {
	v := url.Values{"date": {day.Format("2006-01-02")}}
	if view == "week" {
		v.Set("view", "week")
	}
	if svc != 0 {
		v.Set("service", strconv.FormatInt(svc, 10))
	}
	return Prefix + "today?" + v.Encode()
}

// bookForm is the booking form's values, kept when a refusal shows it again.
type bookForm struct {
	ProfessionalID, ServiceID, EventTypeID int64
	Start                                  time.Time
	ClientID                               string // an id, or "new"
	Phone, FirstName, LastName, Notes, Q   string
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
	StartValue   string // Form.Start as RFC 3339, for the hidden field
}

// bookingChoices checks the slot's professional and service against the
// account's bookable catalog: an unknown id (another account's among them)
// is NOT_FOUND; a professional of the account not offering the service is
// a refusal.
func (d *Dashboard) bookingChoices(r *http.Request, s *session, f bookForm) (bookView, error) {
	services, err := calendar.ListServices(r.Context(), d.db, s.Account)
	if err != nil {
		return bookView{}, err
	}
	v := bookView{Form: f, StartValue: f.Start.UTC().Format(time.RFC3339)}
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
		return v, errs.New(errs.ValidationError, "%s", s.T("%s does not offer %s.", v.Professional.Name, v.Service.Name))
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
		return f, errs.New(errs.ValidationError, "%s", s.T("Choose a free slot on Today to book."))
	}
	if f.ClientID == "" {
		f.ClientID = "new"
	}
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

func (d *Dashboard) searchBookingClients(r *http.Request, s *session, v *bookView) error {
	q, err := searchTerm(v.Form.Q)
	if err != nil || q == "" {
		return err
	}
	v.Matches, _, err = contact.SearchClients(r.Context(), d.db, s.Account, q, 20)
	v.Searched = true
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
			return d.bookRefused(w, r, s, v, errs.New(errs.ValidationError, "%s", s.T("%s has no phone number: add one on the client's page, then book.", c.Name())))
		}
		in = calendar.ClientInput{Phone: c.Phone.E164(), FirstName: c.FirstName, LastName: c.LastName}
	} else if f.Phone == "" {
		return d.bookRefused(w, r, s, v, errs.New(errs.ValidationError, "%s", s.T("Enter the new client's phone number, or choose an existing client.")))
	}
	switch {
	case utf8.RuneCountInString(in.FirstName) > calendar.MaxNameLen || utf8.RuneCountInString(in.LastName) > calendar.MaxNameLen:
		return d.bookRefused(w, r, s, v, errs.New(errs.ValidationError, "%s", s.T("A name may have at most %d characters.", calendar.MaxNameLen)))
	case utf8.RuneCountInString(f.Notes) > calendar.MaxNotesLen:
		return d.bookRefused(w, r, s, v, errs.New(errs.ValidationError, "%s", s.T("Notes may have at most %d characters.", calendar.MaxNotesLen)))
	case f.EventTypeID <= 0:
		return d.bookRefused(w, r, s, v, errs.New(errs.ValidationError, "%s", s.T("Choose the type of visit.")))
	}
	start := f.Start.In(loc)
	end := start.Add(time.Duration(v.Service.DefaultDurationMinutes) * time.Minute)
	startWall, _ := calendar.ParseWallTime(start.Format("2006-01-02T15:04:05"))
	endWall, _ := calendar.ParseWallTime(end.Format("2006-01-02T15:04:05"))
	b, err := calendar.Book(r.Context(), d.db, s.Account, calendar.BookRequest{Client: in,
		ServiceID: &f.ServiceID, ProfessionalID: &f.ProfessionalID, EventTypeID: &f.EventTypeID,
		StartAt: startWall, EndAt: endWall, Timezone: loc.String(), Notes: f.Notes, Source: Source, FreeSlotOnly: true}, d.clock.Now())
	if err != nil {
		return d.bookRefused(w, r, s, v, err)
	}
	a := b.Appointment
	msg := s.T("Booked %s for %s on %s with %s.", a.Client.Name, a.Service.Name, formatTime(s.Lang, start, "Mon 2 Jan 15:04"), a.CalendarProfile.Name)
	if b.ClientCreated {
		msg += " " + s.T("New client created.")
	}
	d.redirect(w, r, fmt.Sprintf("%stoday?date=%s&service=%d#appt-%d", Prefix, start.Format("2006-01-02"), f.ServiceID, a.ID), "ok", msg)
	return nil
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
		v.Error = s.T("This slot is no longer free: it was booked, a waiting-list offer holds it, or it is outside working hours. Pick another slot on Today.")
	case err == calendar.ErrSlotPast:
		v.Error = s.T("This slot has already started. Pick another slot on Today.")
	case e.Code == errs.InvalidPhone:
		v.Error = s.T("The phone number %s is not valid.", v.Form.Phone)
	case e.Code == errs.NameRequired:
		v.Error = s.T("The phone number is new: enter the client's first or last name to create the client.")
	case e.Code == errs.EventTypeNotFound:
		v.Error = s.T("%s is not offered with that type of visit.", v.Service.Name)
	case e.Code == errs.ProfessionalNotFound:
		v.Error = s.T("%s does not offer %s.", v.Professional.Name, v.Service.Name)
	default:
		v.Error = e.Message
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

// markStatus handles "POST /app/appointments/{appointment_id}/status" with
// status no_show or completed.
func (d *Dashboard) markStatus(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "appointment_id")
	if err != nil {
		return err
	}
	status := r.PostForm.Get("status")
	a, err := calendar.MarkAppointmentStatus(r.Context(), d.db, s.Account, id, status, d.clock.Now())
	if err != nil {
		return statusRefusal(s, err)
	}
	when := formatTime(s.Lang, a.StartAt.In(s.Account.Location()), "Mon 2 Jan 15:04")
	msg := s.T("Appointment of %s on %s marked completed.", a.ClientName, when)
	if status == calendar.StatusNoShow {
		msg = s.T("Appointment of %s on %s marked no-show.", a.ClientName, when)
	}
	d.redirect(w, r, backTo(r, Prefix+"today"), "ok", msg)
	return nil
}

// statusRefusal says MarkAppointmentStatus's refusals in the user's
// language (the area's details name what was refused).
func statusRefusal(s *session, err error) error {
	var e *errs.Error
	if err == calendar.ErrNotStarted {
		return errs.New(errs.ValidationError, "%s", s.T("The appointment has not started yet: mark it once its start has passed."))
	}
	if !errors.As(err, &e) || e.Code != errs.ValidationError {
		return err
	}
	if d, ok := e.Details.(map[string]any); ok {
		if cur, ok := d["current_status"].(string); ok {
			return errs.New(errs.ValidationError, "%s", s.T("Only booked appointments can be marked; this one is %s.", s.TC("appointment", statusWords[cur])))
		}
		if _, ok := d["value"]; ok {
			return errs.New(errs.ValidationError, "%s", s.T("Choose no-show or completed."))
		}
	}
	return err
}

// statusWords names appointment statuses in messages.
var statusWords = map[string]string{calendar.StatusBooked: "booked", calendar.StatusCancelled: "cancelled",
	calendar.StatusNoShow: "no-show", calendar.StatusCompleted: "completed"}

// slotDay is one day of free slots on the reschedule page.
type slotDay struct {
	Day   time.Time
	Slots []rescheduleSlot
}

type rescheduleSlot struct {
	Start, End   time.Time
	Value        string // the reschedule form's start: datetime-local in the account's zone
	Professional calendar.Ref
	Current      bool // the appointment's own professional
}

// reschedulePage handles "GET /app/appointments/{appointment_id}/reschedule":
// the free slots of the appointment's service over the next 7 days, with any
// professional offering it; each posts to the reschedule action.
func (d *Dashboard) reschedulePage(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "appointment_id")
	if err != nil {
		return err
	}
	a, err := calendar.GetAppointment(r.Context(), d.db, s.Account, id)
	if err != nil {
		return err
	}
	if a.Status != calendar.StatusBooked {
		return errs.New(errs.ValidationError, "%s", s.T("Only booked appointments can be rescheduled."))
	}
	loc := s.Account.Location()
	now := d.clock.Now()
	slots, err := calendar.ListFreeSlots(r.Context(), d.db, s.Account, calendar.SlotsQuery{ServiceID: a.ServiceID,
		StartDate: now.In(loc).Format("2006-01-02"), Days: 7, Limit: calendar.SlotLimitMax}, now)
	var e *errs.Error
	if errors.As(err, &e) && e.Code == errs.ServiceNotFound {
		return errs.New(errs.ValidationError, "%s", s.T("%s is no longer bookable: it has no free slots to move to.", a.ServiceName))
	}
	if err != nil {
		return err
	}
	var days []slotDay
	for _, sl := range slots.Slots {
		start, err1 := time.Parse(time.RFC3339, sl.StartAtUTC)
		end, err2 := time.Parse(time.RFC3339, sl.EndAtUTC)
		if err1 != nil || err2 != nil {
			continue
		}
		dd := dayOf(start, loc)
		if n := len(days); n == 0 || !days[n-1].Day.Equal(dd) {
			days = append(days, slotDay{Day: dd})
		}
		days[len(days)-1].Slots = append(days[len(days)-1].Slots, rescheduleSlot{Start: start, End: end,
			Value: start.In(loc).Format("2006-01-02T15:04"), Professional: sl.Professional, Current: sl.Professional.ID == a.ProfessionalID})
	}
	d.render(w, r, s, http.StatusOK, "reschedule", "Reschedule", "today", map[string]any{"Appt": a, "Days": days, "More": slots.HasMore})
	return nil
}
