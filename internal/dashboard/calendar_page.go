package dashboard

// The calendar page (a week or a day of appointments and held seat
// offers) and its actions: reschedule, cancel.

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// calendarDay is one day of the calendar: its appointments and the slots
// seat offers hold, together by start.
type calendarDay struct {
	Date    time.Time
	Entries []calendarEntry
}

// calendarEntry is an appointment or a held slot: exactly one is set.
type calendarEntry struct {
	Start       time.Time
	Appointment *calendar.AppointmentView
	Hold        *heldBlock
}

// heldBlock is a slot a waiting-list seat offer holds, shown on the
// calendar apart from appointments.
type heldBlock struct {
	waitlist.OfferedSlot
	Until string // when the hold ends, in the account's zone
}

// calendarView is the calendar page: a day or a week of appointments and
// held slots, with its filters and links to the next and previous ones.
type calendarView struct {
	Days          []calendarDay
	View          string
	Date          string
	Pros          []calendar.ProfessionalRef
	ProID         int64
	Confirmation  string
	Confirmations []string
	Prev, Next    string
	Count, Held   int
	Zone          string
}

func (calendarView) isPage() {}

// calendarPage handles "GET /app/calendar?date=&view=day|week&professional=&confirmation=":
// the appointments of a day or week, each with its confirmation status,
// and the slots seat offers hold ("held for <client> until HH:MM").
//
// confirmation is a closed vocabulary (pending, confirmed, declined), like
// the activity page's kind and status: an unknown value can only come from
// a mistyped address, so it is a 400 naming the allowed ones. Filtering by
// confirmation shows appointments only: a held slot has no confirmation.
func (d *Dashboard) calendarPage(w http.ResponseWriter, r *http.Request, s *session) error {
	loc := s.Account.Location()
	q := r.URL.Query()
	nowUTC := d.clock.Now()
	now := nowUTC.In(loc)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	if v := q.Get("date"); v != "" {
		if t, ok := calendar.ParseDate(v, loc); ok {
			day = t
		}
	}
	view := q.Get("view")
	if view != "day" {
		view = "week"
	}
	conf := q.Get("confirmation")
	if conf != "" && !contains(calendar.ConfirmationStatuses, conf) {
		return errs.New(errs.ValidationError, "Unknown confirmation %q: choose one of %s.", conf, strings.Join(calendar.ConfirmationStatuses, ", "))
	}
	from, days := day, 1
	if view == "week" {
		from = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7)) // Monday
		days = calendar.DaysWithin(from, 7)                       // the last week of 9999 is short
	}
	to := from.AddDate(0, 0, days)
	proID, _ := strconv.ParseInt(q.Get("professional"), 10, 64)
	pros, err := calendar.ProfessionalRefs(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	appts, err := calendar.ListAppointments(r.Context(), d.db, s.Account, calendar.AppointmentFilter{From: from, To: to, ProfessionalID: proID, Confirmation: conf})
	if err != nil {
		return err
	}
	var holds []waitlist.OfferedSlot
	if conf == "" {
		holds, err = waitlist.OfferedSlots(r.Context(), d.db, s.Account, waitlist.OfferFilter{From: from, To: to, ProfessionalID: proID, HeldAt: nowUTC})
		if err != nil {
			return err
		}
	}
	cal := make([]calendarDay, days)
	for i := range cal {
		cal[i].Date = from.AddDate(0, 0, i)
	}
	// dayOf is the index of the day t starts on (the +12 h absorbs DST days).
	dayOf := func(t time.Time) int {
		st := t.In(loc)
		return int(time.Date(st.Year(), st.Month(), st.Day(), 0, 0, 0, 0, loc).Sub(from).Hours()+12) / 24
	}
	for i := range appts {
		if n := dayOf(appts[i].StartAt); n >= 0 && n < days {
			cal[n].Entries = append(cal[n].Entries, calendarEntry{Start: appts[i].StartAt, Appointment: &appts[i]})
		}
	}
	for _, h := range holds {
		until := h.ExpiresAt.In(loc)
		b := &heldBlock{OfferedSlot: h, Until: sayDate(s.Lang, until, locale.Clock)}
		if st := h.Start.In(loc); until.YearDay() != st.YearDay() || until.Year() != st.Year() {
			b.Until = sayDate(s.Lang, until, locale.ShortTime)
		}
		// A hold that began before the window (a slot across midnight)
		// shows on the window's first day.
		n := max(dayOf(h.Start), 0)
		if n < days {
			cal[n].Entries = append(cal[n].Entries, calendarEntry{Start: h.Start, Hold: b})
		}
	}
	for i := range cal {
		sort.SliceStable(cal[i].Entries, func(a, b int) bool { return cal[i].Entries[a].Start.Before(cal[i].Entries[b].Start) })
	}
	step := 1
	if view == "week" {
		step = 7
	}
	d.render(w, r, s, http.StatusOK, "calendar", "Calendar", "calendar", calendarView{
		Days: cal, View: view, Date: day.Format("2006-01-02"), Pros: pros, ProID: proID,
		Confirmation: conf, Confirmations: calendar.ConfirmationStatuses,
		Prev: calendarDate(day.AddDate(0, 0, -step)), Next: calendarDate(day.AddDate(0, 0, step)),
		Count: len(appts), Held: len(holds), Zone: loc.String(),
	})
	return nil
}

// calendarDate is day as the calendar's date parameter, "" beyond the
// days the calendar has (calendar.FirstDate to calendar.LastDate).
func calendarDate(day time.Time) string {
	if day.Year() < 1 || calendar.DaysWithin(day, 1) == 0 {
		return ""
	}
	return day.Format("2006-01-02")
}

// cancelAppointment handles "POST /app/appointments/{appointment_id}/cancel".
func (d *Dashboard) cancelAppointment(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "appointment_id")
	if err != nil {
		return err
	}
	change := calendar.Change{By: calendar.ByStaff}
	if r.PostForm.Get("scope") == "following" { // this session of a course and every later one (docs/series.md)
		ids, err := db.InTx(r.Context(), d.db, func(tx *db.Tx) ([]int64, error) {
			return calendar.CancelSeriesFrom(r.Context(), tx, s.Account, id, change, d.clock.Now())
		})
		if err != nil {
			return err
		}
		if len(ids) > 1 {
			d.redirect(w, r, backTo(r, Prefix+"calendar"), "ok", s.Translate("Cancelled %d sessions of the course; their pending reminders are withdrawn.", len(ids)))
			return nil
		}
	} else if err := calendar.CancelAppointment(r.Context(), d.db, s.Account, id, change, d.clock.Now()); err != nil {
		return err
	}
	d.redirect(w, r, backTo(r, Prefix+"calendar"), "ok", s.Translate("Appointment cancelled; its pending reminders are withdrawn."))
	return nil
}
