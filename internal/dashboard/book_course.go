package dashboard

// Booking a course from the grid (docs/series.md): the booking form's
// "repeat" books a weekly series. Its sessions are checked and shown first,
// each with what is wrong with its time (calendar.PreviewSeries, the
// booking's own rules in a transaction rolled back), then booked at once
// (calendar.BookSeries): all sessions or none.

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/locale"
)

// courseView is a course's sessions as the form shows them before booking.
type courseView struct {
	Sessions  []courseSession
	Conflicts int // sessions with a problem
}

// courseSession is one session of a course: its start and what is wrong
// with that time, in the user's language (none: a free slot).
type courseSession struct {
	Start    time.Time
	Problems []string
}

// courseIntervals are the form's "every N weeks" choices.
func courseIntervals() []int {
	out := make([]int, 0, calendar.MaxSeriesInterval)
	for n := calendar.MinSeriesInterval; n <= calendar.MaxSeriesInterval; n++ {
		out = append(out, n)
	}
	return out
}

// courseRecurrence reads the form's course, refused in the user's words.
func courseRecurrence(s *session, f bookForm) (calendar.Recurrence, error) {
	n, err := strconv.Atoi(f.Sessions)
	rec := calendar.Recurrence{Frequency: "weekly", Interval: f.Repeat, Count: n}
	switch {
	case f.Repeat < calendar.MinSeriesInterval || f.Repeat > calendar.MaxSeriesInterval:
		return rec, errs.New(errs.ValidationError, "%s", s.Translate("Choose how often the course repeats."))
	case err != nil || n < calendar.MinSeriesCount || n > calendar.MaxSeriesCount:
		return rec, errs.New(errs.ValidationError, "%s", s.Translate("A course has from %d to %d sessions.", calendar.MinSeriesCount, calendar.MaxSeriesCount))
	}
	return rec, calendar.CheckRecurrence(rec)
}

// bookCourse books the form's course. Without confirm_course it shows the
// form again with every session and its problems; with it, it books them
// all, each with its warnings (a course is never refused for one busy
// week: the receptionist saw the conflicts first), and says the problems
// in an amber flash.
func (d *Dashboard) bookCourse(w http.ResponseWriter, r *http.Request, s *session, v bookView, req calendar.BookRequest) error {
	rec, err := courseRecurrence(s, v.Form)
	if err != nil {
		return d.bookRefused(w, r, s, v, err)
	}
	req.FreeSlotOnly = false
	if r.PostForm.Get("confirm_course") != "1" {
		series, err := calendar.PreviewSeries(r.Context(), d.db, s.Account, req, rec, d.clock.Now())
		if err != nil {
			return d.bookRefused(w, r, s, v, err)
		}
		v.Course = courseSessions(s, series, v.Professional.Name)
		if err := d.searchBookingClients(r, s, &v); err != nil {
			return err
		}
		d.render(w, r, s, http.StatusOK, "book", "Book an appointment", "today", v)
		return nil
	}
	b, err := calendar.BookSeries(r.Context(), d.db, s.Account, req, rec, d.clock.Now())
	if err != nil {
		return d.bookRefused(w, r, s, v, err)
	}
	a, loc := b.Appointment, s.Account.Location()
	course := courseSessions(s, b.Series, a.CalendarProfile.Name)
	first := course.Sessions[0].Start
	msg := s.Translate("Booked a course of %d sessions for %s: %s with %s, from %s.", len(course.Sessions), a.Client.Name,
		a.Service.Name, a.CalendarProfile.Name, sayDate(s.Lang, first.In(loc), locale.ShortTime))
	kind := "ok"
	for _, ses := range course.Sessions {
		for _, p := range ses.Problems {
			kind = "warn"
			msg += " " + sayDate(s.Lang, ses.Start.In(loc), locale.DayMonthTime) + ": " + p
		}
	}
	d.redirect(w, r, fmt.Sprintf("%stoday?date=%s&service=%d#appt-%d", Prefix, first.In(loc).Format(time.DateOnly), v.Form.ServiceID, a.ID), kind, msg)
	return nil
}

// courseSessions says a series' sessions and their warnings.
func courseSessions(s *session, series calendar.Series, pro string) *courseView {
	out := &courseView{}
	for _, o := range series.Occurrences {
		start, _ := time.Parse(time.RFC3339, o.StartAt)
		ses := courseSession{Start: start}
		for _, warn := range o.Warnings {
			ses.Problems = append(ses.Problems, warningText(s, warn, pro))
		}
		if len(ses.Problems) > 0 {
			out.Conflicts++
		}
		out.Sessions = append(out.Sessions, ses)
	}
	return out
}
