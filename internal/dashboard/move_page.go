package dashboard

// Moving an appointment (docs/moving-appointments.md): a day of free
// slots at a time, filtered by professional, with a confirm step; and
// another time, which when it is not free shows its warnings first and
// needs a second, explicit "move anyway" submit (the override).

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
)

type rescheduleSlot struct {
	Start, End   time.Time
	Value        string // the move form's start: datetime-local in the account's zone
	Professional calendar.Ref
	Current      bool // the appointment's own professional
	Pick         string
}

// movePick is a time chosen and not yet confirmed: a free slot picked
// (Refused empty) or a time refused, with its warnings said.
type movePick struct {
	Start        time.Time
	Value        string
	Professional calendar.ProfessionalRef
	Refused      bool
	Warnings     []string
}

// rescheduleView is the move page: the appointment, one day of the free
// slots it can move to, the professional filter, and the time picked.
type rescheduleView struct {
	Appt       calendar.AppointmentView
	Day        time.Time
	Date       string
	Prev, Next string // "" when there is no such day to show
	Slots      []rescheduleSlot
	More       bool
	Pros       []calendar.ProfessionalRef
	ProID      int64
	Return     string
	NotOffered bool // the professional filtered on does not offer the service
	Pick       *movePick
	OtherValue string
	OtherProID int64
	Later      int    // booked sessions of its course after it (docs/series.md)
	Scope      string // "following": move this session and the later ones
}

func (rescheduleView) isPage() {}

// reschedulePage handles "GET /app/appointments/{appointment_id}/reschedule"
// with date (YYYY-MM-DD, default today), professional_id (the filter),
// return (today, calendar or client) and, for the confirm step, start and with
// (a slot picked).
func (d *Dashboard) reschedulePage(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "appointment_id")
	if err != nil {
		return err
	}
	q := r.URL.Query()
	v, err := d.moveView(r, s, id, q.Get("date"), q.Get("professional_id"), q.Get("return"))
	if err != nil {
		return err
	}
	if start, ok := parseLocal(q.Get("start"), s.Account.Location()); ok {
		with, _ := strconv.ParseInt(q.Get("with"), 10, 64)
		v.Pick = &movePick{Start: start, Value: q.Get("start"), Professional: proRef(v.Pros, with)}
	}
	d.render(w, r, s, http.StatusOK, "reschedule", "Reschedule", "today", v)
	return nil
}

// moveView loads the page for one day and filter.
func (d *Dashboard) moveView(r *http.Request, s *session, id int64, date, proParam, ret string) (rescheduleView, error) {
	a, err := calendar.GetAppointment(r.Context(), d.db, s.Account, id)
	if err != nil {
		return rescheduleView{}, err
	}
	if a.Status != calendar.StatusBooked {
		return rescheduleView{}, errs.New(errs.ValidationError, "%s", s.Translate("Only booked appointments can be rescheduled."))
	}
	loc := s.Account.Location()
	now := d.clock.Now()
	today := dayOf(now, loc)
	day, ok := calendar.ParseDate(date, loc)
	if !ok || day.Before(today) {
		day = today
	}
	pros, err := calendar.ProfessionalRefs(r.Context(), d.db, s.Account)
	if err != nil {
		return rescheduleView{}, err
	}
	proID, _ := strconv.ParseInt(proParam, 10, 64)
	if ret != "calendar" && ret != "client" {
		ret = "today"
	}
	v := rescheduleView{Appt: a, Day: day, Date: day.Format(time.DateOnly), Pros: pros, ProID: proID, Return: ret,
		Next: calendarDate(day.AddDate(0, 0, 1)), OtherValue: a.StartAt.In(loc).Format("2006-01-02T15:04"), OtherProID: a.ProfessionalID}
	if day.After(today) {
		v.Prev = calendarDate(day.AddDate(0, 0, -1))
	}
	if v.Later, err = calendar.LaterSessions(r.Context(), d.db, s.Account, a); err != nil {
		return v, err
	}
	sq := calendar.SlotsQuery{ServiceID: a.ServiceID, StartDate: v.Date, Days: 1, Limit: calendar.SlotLimitMax}
	if proID != 0 {
		sq.ProfessionalIDs = []int64{proID}
	}
	slots, err := calendar.ListFreeSlots(r.Context(), d.db, s.Account, sq, now)
	var e *errs.Error
	switch {
	case errors.As(err, &e) && e.Code == errs.ServiceNotFound:
		return v, errs.New(errs.ValidationError, "%s", s.Translate("%s is no longer bookable: it has no free slots to move to.", a.ServiceName))
	case errors.As(err, &e) && e.Code == errs.ProfessionalNotFound:
		v.NotOffered = true
		return v, nil
	case err != nil:
		return v, err
	}
	v.More = slots.HasMore
	for _, sl := range slots.Slots {
		value := sl.StartAtUTC.In(loc).Format("2006-01-02T15:04")
		pick := url.Values{"date": {v.Date}, "return": {ret}, "start": {value}, "with": {strconv.FormatInt(sl.Professional.ID, 10)}}
		if proID != 0 {
			pick.Set("professional_id", strconv.FormatInt(proID, 10))
		}
		v.Slots = append(v.Slots, rescheduleSlot{Start: sl.StartAtUTC, End: sl.EndAtUTC, Value: value, Professional: sl.Professional,
			Current: sl.Professional.ID == a.ProfessionalID, Pick: "?" + pick.Encode()})
	}
	return v, nil
}

// reschedule handles "POST /app/appointments/{appointment_id}/reschedule"
// with start (a datetime-local in the account's zone), professional_id
// (none: the appointment's own), return (today or calendar) and override
// (1: move there even when the time is not free). A time that is not free,
// without override, shows the page again (409) with its warnings and the
// "move anyway" button that sends the override.
func (d *Dashboard) reschedule(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "appointment_id")
	if err != nil {
		return err
	}
	loc := s.Account.Location()
	raw := strings.TrimSpace(r.PostForm.Get("start"))
	start, ok := parseLocal(raw, loc)
	if !ok {
		return errs.New(errs.ValidationError, "%s", s.Translate("Choose the new date and time."))
	}
	pro, _ := strconv.ParseInt(r.PostForm.Get("professional_id"), 10, 64)
	req := calendar.MoveRequest{AppointmentID: id, Start: start.UTC(), ProfessionalID: pro, Change: calendar.Change{By: calendar.ByStaff},
		Override: r.PostForm.Get("override") == "1"}
	scope := r.PostForm.Get("scope")
	moves, err := db.InTx(r.Context(), d.db, func(tx *db.Tx) ([]calendar.Moved, error) {
		if scope == "following" { // this session of a course and the later ones (docs/series.md)
			return calendar.MoveSeriesFrom(r.Context(), tx, s.Account, req, d.clock.Now())
		}
		m, err := calendar.MoveAppointmentTx(r.Context(), tx, s.Account, req, d.clock.Now())
		return []calendar.Moved{m}, err
	})
	var refused *calendar.MoveRefused
	if errors.As(err, &refused) {
		v, err := d.moveView(r, s, id, start.In(loc).Format(time.DateOnly), r.PostForm.Get("filter"), r.PostForm.Get("return"))
		if err != nil {
			return err
		}
		if pro == 0 {
			pro = v.Appt.ProfessionalID
		}
		v.Pick = &movePick{Start: start, Value: raw, Professional: proRef(v.Pros, pro), Refused: true}
		for _, warn := range refused.Warnings {
			v.Pick.Warnings = append(v.Pick.Warnings, warningText(s, warn, v.Pick.Professional.Name))
		}
		v.OtherValue, v.OtherProID, v.Scope = raw, pro, scope
		d.render(w, r, s, http.StatusConflict, "reschedule", "Reschedule", "today", v)
		return nil
	}
	if err != nil {
		return err
	}
	a := moves[0].Appointment
	for _, m := range moves {
		if m.Appointment.ID == id {
			a = m.Appointment
		}
	}
	to := fmt.Sprintf("%scalendar?date=%s", Prefix, a.StartAt.In(loc).Format("2006-01-02"))
	switch r.PostForm.Get("return") {
	case "today":
		to = fmt.Sprintf("%stoday?date=%s#appt-%d", Prefix, a.StartAt.In(loc).Format("2006-01-02"), a.ID)
	case "client": // the client's page (client_page.go)
		to = fmt.Sprintf("%sclients/%d#appointments", Prefix, a.ClientID)
	}
	msg := s.Translate("Appointment of %s moved to %s with %s.", a.ClientName, sayDate(s.Lang, a.StartAt.In(loc), locale.ShortTime), a.ProfessionalName)
	if len(moves) > 1 {
		msg = s.Translate("%d sessions of the course of %s moved, from %s with %s.", len(moves), a.ClientName, sayDate(s.Lang, a.StartAt.In(loc), locale.ShortTime), a.ProfessionalName)
	}
	kind := "ok"
	for _, m := range moves {
		for _, warn := range m.Warnings {
			kind = "warn"
			if len(moves) > 1 {
				msg += " " + sayDate(s.Lang, m.Appointment.StartAt.In(loc), locale.DayMonthTime) + ":"
			}
			msg += " " + warningText(s, warn, m.Appointment.ProfessionalName)
		}
	}
	d.redirect(w, r, to, kind, msg)
	return nil
}

// warningText says a move's warning in the user's language.
func warningText(s *session, warn calendar.Warning, pro string) string {
	loc := s.Account.Location()
	when := func(v string) string {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return v
		}
		return sayDate(s.Lang, t.In(loc), locale.ShortTime)
	}
	switch warn.Code {
	case calendar.WarnInThePast:
		return s.Translate("The new time is in the past.")
	case calendar.WarnOutsideWorkingHours:
		return s.Translate("%s does not work at that time.", pro)
	case calendar.WarnTimeOff:
		return s.Translate("%s is on time off from %s to %s.", pro, when(warn.From), when(warn.To))
	case calendar.WarnOverlap:
		return s.Translate("It overlaps another appointment of %s (%s to %s).", pro, when(warn.StartAt), when(warn.EndAt))
	case calendar.WarnBreaksBookingRule:
		return s.Say(warn.Text)
	case calendar.WarnHeldSlot:
		return s.Translate("A waiting-list offer holds this time; booking takes it and releases the offer.")
	case calendar.WarnNoResourceFree:
		return s.Translate("No room or equipment the service needs is free at that time; the appointment keeps none.")
	}
	return warn.Message
}

// parseLocal reads a datetime-local value in loc.
func parseLocal(raw string, loc *time.Location) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, strings.TrimSpace(raw), loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// proRef is the professional of id among pros (a bare id when absent).
func proRef(pros []calendar.ProfessionalRef, id int64) calendar.ProfessionalRef {
	for _, p := range pros {
		if p.ID == id {
			return p
		}
	}
	return calendar.ProfessionalRef{ID: id}
}
