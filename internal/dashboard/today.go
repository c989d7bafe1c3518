package dashboard

// Today: the day's grid per professional (or a professional's week), the
// free slots of a service as "Book" links, booking from a slot, marking an
// appointment no-show or completed, and rescheduling by picking another
// free slot. Every rule is the calendar's: booking is
// calendar.Book (the API's booking, with the dashboard as source and a free
// slot required), the outcome is calendar.MarkAppointmentStatus and the
// move calendar.MoveAppointment.

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// The grid has a row every gridStep minutes, all of one height, so heights
// are proportional to time; hour labels every 30 minutes.
const gridStep = 5

// todayView is the Today page: the grid of a day or of a professional's
// week, its choices (service, professional, view) and links, and the
// day's counts, its confirmation tally and the patients to call.
type todayView struct {
	Grid                             *grid
	View                             string
	Day, From                        time.Time
	IsToday                          bool
	Date                             string
	Services                         []calendar.Service
	Service                          *calendar.Service
	ServiceID                        int64
	Pros                             []calendar.ProfessionalSchedule
	ProID                            int64
	Prev, Next, TodayURL             string
	DayURL, WeekURL                  string
	Booked, Arrived, Cancelled, Done int
	Held, Free, Unread               int
	Zone                             string
	Back                             string // this page, for the actions to return to
	Calls                            callTally
	Freed                            string          // after a cancel from Today: the waiting-list offer of its time
	CancelBack                       string          // Back with freed=, filled in per appointment by the template
	For                              *contact.Client // client_id: the client the "Book" links book for (book_for_client.go)
	// By room (today_rooms.go): HasRooms shows the toggle (the account has
	// an active resource, day view), ByRoom lays the grid by resource, Unroom
	// counts the appointments left to the view by professional.
	HasRooms, ByRoom    bool
	ByProURL, ByRoomURL string
	Unroom              int
}

func (todayView) isPage() {}

// todayPage handles "GET /app/today?date=&view=day|week&service=&professional=&by=room":
// the day's appointments on a time grid with a column per active
// professional, or (view=week) one professional's week with a column per
// day, which stays readable on a phone. Free slots of the chosen service
// (the account's first by default) are "Book" links; slots held by
// waiting-list seat offers are marked; cancelled appointments are left out
// (and counted). by=room lays the day with a column per room and piece of
// equipment instead (today_rooms.go).
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
			return errs.New(errs.ValidationError, "%s", s.Translate("The date must be a day from %s to %s (YYYY-MM-DD).", calendar.FirstDate, calendar.LastDate))
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
	forClient, err := d.bookingFor(r, s)
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

	var rooms []calendar.ResourceSchedule
	if view == "day" {
		if rooms, err = calendar.ResourceSchedules(ctx, d.db, s.Account, from, to); err != nil {
			return err
		}
	}
	byRoom := len(rooms) > 0 && q.Get("by") == "room"

	// The columns: a professional per column for a day, a day per column
	// for a professional's week, a resource per column by room.
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
	} else if !byRoom {
		for i := range scheds {
			work[addColumn(day, scheds[i].ID, scheds[i].Name)] = &scheds[i]
		}
	}
	var rg *roomGrid
	if byRoom {
		if rg, err = newRoomGrid(ctx, d.db, s.Account, g, day, rooms, scheds); err != nil {
			return err
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
	calls := tallyCalls(appts)
	for i := range appts {
		a := &appts[i]
		counts[a.Status]++
		if a.Status == calendar.StatusCancelled {
			continue
		}
		var c *gridColumn
		if rg != nil {
			c = rg.column(a)
		} else {
			c = column(a.StartAt, a.ProfessionalID, a.ProfessionalName)
		}
		if c != nil {
			it := &gridItem{Start: a.StartAt, End: a.EndAt, Appt: a, CanUndo: calendar.CanUndoStatus(*a, nowUTC, loc)}
			for _, st := range calendar.OutcomeStatuses {
				if calendar.CanMarkStatus(*a, st, nowUTC, loc) {
					it.Marks = append(it.Marks, st)
				}
			}
			c.Items = append(c.Items, it)
		}
	}
	holds, err := waitlist.OfferedSlots(ctx, d.db, s.Account, waitlist.OfferFilter{From: from, To: to, ProfessionalID: proID, HeldAt: nowUTC})
	if err != nil {
		return err
	}
	free, unroom := 0, 0
	if rg != nil { // held offers hold no resource; free gaps are a professional's
		rg.finish()
		unroom = rg.Unroom
	} else {
		for i := range holds {
			h := &holds[i]
			if c := column(h.Start, h.ProfessionalID, h.ProfessionalName); c != nil {
				c.Items = append(c.Items, &gridItem{Start: h.Start, End: h.End, Hold: h})
			}
		}
		gaps, err := calendar.FreeGaps(ctx, d.db, s.Account, from, to, proID, nowUTC)
		if err != nil {
			return err
		}
		free = addGaps(gaps, svc, forClient, column)
	}
	for c, p := range work {
		nextDay := c.Day.AddDate(0, 0, 1)
		c.work, c.off = within(p.Work, c.Day, nextDay), within(p.Off, c.Day, nextDay)
	}
	g.layout(loc)
	g.placeNow(nowUTC, today, loc)
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
		if forClient != nil {
			v.Set("client_id", strconv.FormatInt(forClient.ID, 10))
		}
		if byRoom {
			v.Set("by", "room")
		}
		return Prefix + "today?" + v.Encode()
	}
	var svcID int64
	if svc != nil {
		svcID = svc.ID
	}
	dayURL, weekURL := viewLink(day, "day", svcID), viewLink(day, "week", svcID)
	if forClient != nil {
		dayURL += "&client_id=" + strconv.FormatInt(forClient.ID, 10)
		weekURL += "&client_id=" + strconv.FormatInt(forClient.ID, 10)
	}
	d.render(w, r, s, http.StatusOK, "today", "Today", "today", todayView{
		Grid: g, View: view, Day: day, From: from, IsToday: day.Equal(today), Date: day.Format("2006-01-02"),
		Services: services, Service: svc, ServiceID: svcID, Pros: scheds, ProID: proID,
		Prev: link(day.AddDate(0, 0, -step)), Next: link(day.AddDate(0, 0, step)), TodayURL: link(today),
		DayURL: dayURL, WeekURL: weekURL,
		Booked: counts[calendar.StatusBooked], Arrived: counts[calendar.StatusArrived], Cancelled: counts[calendar.StatusCancelled],
		Done: counts[calendar.StatusCompleted] + counts[calendar.StatusNoShow],
		Held: len(holds), Free: free, Unread: unread, Zone: loc.String(), Back: withoutFreed(r.URL), For: forClient,
		Calls: calls, Freed: freedOffer(appts, q.Get("freed"), nowUTC), CancelBack: cancelBack(r.URL),
		HasRooms: len(rooms) > 0, ByRoom: byRoom, ByProURL: byLink(r.URL, ""), ByRoomURL: byLink(r.URL, "room"), Unroom: unroom,
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
