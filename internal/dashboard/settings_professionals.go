package dashboard

// Settings › Professionals: their services, working hours and time off,
// through the calendar area, audited.

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// professionalsView is the professionals page.
type professionalsView struct {
	Professionals []professionalRow
}

func (professionalsView) isPage() {}

// professionalsSettings handles "GET /app/settings/professionals".
func (d *Dashboard) professionalsSettings(w http.ResponseWriter, r *http.Request, s *session) error {
	pros, err := calendar.CatalogProfessionals(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	rows := make([]professionalRow, 0, len(pros))
	for _, p := range pros {
		row := professionalRow{ProfessionalDetail: p}
		for _, day := range dayRows(s, p) {
			if day.Text != "" {
				row.Week = append(row.Week, day.Label+" "+day.Text)
			}
		}
		rows = append(rows, row)
	}
	d.render(w, r, s, http.StatusOK, "settings_professionals", "Professionals", "settings-professionals", professionalsView{Professionals: rows})
	return nil
}

type professionalRow struct {
	calendar.ProfessionalDetail
	Week []string // "Monday 09:00-13:00, 15:00-19:00"
}

// createProfessional handles "POST /app/settings/professionals".
func (d *Dashboard) createProfessional(w http.ResponseWriter, r *http.Request, s *session) error {
	name := r.PostForm.Get("name")
	var id int64
	if _, err := d.change(r.Context(), s, "created", "professional", func(tx *db.Tx) (string, []string, error) {
		var err error
		id, err = calendar.CreateProfessional(r.Context(), tx, s.Account, name, formBool(r, "active"))
		return idString(id), []string{"professional " + strconv.Quote(strings.TrimSpace(name))}, err
	}); err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/professionals/"+idString(id), "ok", s.Translate("Professional added. Give them working hours, then choose their services on each service's page."))
	return nil
}

// dayRow is one weekday of the working-hours form.
type dayRow struct {
	Key, Label, Text string
}

func dayRows(s *session, p calendar.ProfessionalDetail) []dayRow {
	labels := map[string]string{"mon": s.Translate("Monday"), "tue": s.Translate("Tuesday"), "wed": s.Translate("Wednesday"), "thu": s.Translate("Thursday"),
		"fri": s.Translate("Friday"), "sat": s.Translate("Saturday"), "sun": s.Translate("Sunday")}
	out := make([]dayRow, 0, 7)
	for _, k := range calendar.Weekdays {
		out = append(out, dayRow{Key: k, Label: labels[k], Text: p.HoursText(k)})
	}
	return out
}

type professionalView struct {
	Professional calendar.ProfessionalDetail
	Days         []dayRow
	Today        string // YYYY-MM-DD in the account's zone, for the day-off field
	Conflicts    scheduleConflicts
}

func (professionalView) isPage() {}

// professionalSettings handles "GET /app/settings/professionals/{professional_id}".
func (d *Dashboard) professionalSettings(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "professional_id")
	if err != nil {
		return err
	}
	p, err := calendar.CatalogProfessional(r.Context(), d.db, s.Account, id)
	if err != nil {
		return err
	}
	conflicts, err := d.loadScheduleConflicts(r, s, id)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_professional", "Professional", "settings-professionals", professionalView{
		Professional: p, Days: dayRows(s, p), Today: d.clock.Now().In(s.Account.Location()).Format("2006-01-02"), Conflicts: conflicts})
	return nil
}

func (d *Dashboard) professionalBack(w http.ResponseWriter, r *http.Request, id int64, msg string) {
	d.redirect(w, r, Prefix+"settings/professionals/"+idString(id), "ok", msg)
}

// saveProfessional handles "POST /app/settings/professionals/{professional_id}".
func (d *Dashboard) saveProfessional(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "professional_id")
	if err != nil {
		return err
	}
	changed, err := d.change(r.Context(), s, "updated", "professional", func(tx *db.Tx) (string, []string, error) {
		changes, err := calendar.UpdateProfessional(r.Context(), tx, s.Account, id, r.PostForm.Get("name"), formBool(r, "active"))
		return idString(id), changes, err
	})
	if err != nil {
		return err
	}
	d.professionalBack(w, r, id, savedMessage(s, changed))
	return nil
}

// saveWorkingHours handles "POST /app/settings/professionals/{professional_id}/hours":
// one field per weekday (hours_mon … hours_sun).
func (d *Dashboard) saveWorkingHours(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "professional_id")
	if err != nil {
		return err
	}
	hours := map[string][]string{}
	for _, day := range calendar.Weekdays {
		spans, err := calendar.ParseDayHours(r.PostForm.Get("hours_" + day))
		if err != nil {
			return localize(s, err)
		}
		hours[day] = spans
	}
	changed, err := d.change(r.Context(), s, "updated", "professional", func(tx *db.Tx) (string, []string, error) {
		changes, err := calendar.SetWorkingHours(r.Context(), tx, s.Account, id, hours)
		for i := range changes {
			changes[i] = "working hours " + changes[i]
		}
		return idString(id), changes, err
	})
	if err != nil {
		return err
	}
	return d.scheduleChanged(w, r, s, id, savedMessage(s, changed))
}

// addTimeOff handles "POST /app/settings/professionals/{professional_id}/time-off":
// a whole day (day, in the account's zone) or a range (from, to: local
// date-times in the account's zone).
func (d *Dashboard) addTimeOff(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "professional_id")
	if err != nil {
		return err
	}
	loc := s.Account.Location()
	var from, to time.Time
	if day := strings.TrimSpace(r.PostForm.Get("day")); day != "" {
		t, ok := calendar.ParseDate(day, loc)
		if !ok {
			return errs.New(errs.ValidationError, "%s", s.Translate("The day must be a date (YYYY-MM-DD)."))
		}
		from, to = t, t.AddDate(0, 0, 1)
	} else {
		for _, f := range []struct {
			name string
			dst  *time.Time
		}{{"from", &from}, {"to", &to}} {
			raw := strings.TrimSpace(r.PostForm.Get(f.name))
			t, err := time.ParseInLocation("2006-01-02T15:04", raw, loc)
			if err != nil {
				return errs.New(errs.ValidationError, "%s", s.Translate("Give the time off a start and an end (date and time)."))
			}
			*f.dst = t
		}
	}
	if _, err := d.change(r.Context(), s, "updated", "professional", func(tx *db.Tx) (string, []string, error) {
		err := calendar.AddTimeOff(r.Context(), tx, s.Account, id, from, to)
		return idString(id), []string{"time off added: " + from.UTC().Format(time.RFC3339) + " – " + to.UTC().Format(time.RFC3339)}, err
	}); err != nil {
		return err
	}
	return d.scheduleChanged(w, r, s, id, s.Translate("Time off added."))
}

// removeTimeOff handles "POST /app/settings/professionals/{professional_id}/time-off/remove".
func (d *Dashboard) removeTimeOff(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "professional_id")
	if err != nil {
		return err
	}
	from, to := r.PostForm.Get("from"), r.PostForm.Get("to")
	if _, err := d.change(r.Context(), s, "updated", "professional", func(tx *db.Tx) (string, []string, error) {
		err := calendar.RemoveTimeOff(r.Context(), tx, s.Account, id, from, to)
		return idString(id), []string{"time off removed: " + from + " – " + to}, err
	}); err != nil {
		return err
	}
	return d.scheduleChanged(w, r, s, id, s.Translate("Time off removed."))
}
