package dashboard

// Settings (owners only): the catalogue — services, professionals with
// working hours and time off, event types, waiting-list schedules (issue 22,
// part 5). The rules and the SQL are calendar's (catalog_admin.go,
// professionals_admin.go) and waitlist's (schedule_admin.go); a handler
// reads the form, runs the change and its audit entry in one transaction
// (change) and goes back with a message. A form that changes nothing writes
// nothing, not even an audit entry.

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// settingsRoutes registers this part's pages and actions.
func (d *Dashboard) settingsRoutes() {
	p := Prefix + "settings/"
	d.ownerPage("GET "+p+"services", d.servicesSettings)
	d.ownerAction("POST "+p+"services", d.createService)
	d.ownerPage("GET "+p+"services/{service_id}", d.serviceSettings)
	d.ownerAction("POST "+p+"services/{service_id}", d.saveService)

	d.ownerPage("GET "+p+"professionals", d.professionalsSettings)
	d.ownerAction("POST "+p+"professionals", d.createProfessional)
	d.ownerPage("GET "+p+"professionals/{professional_id}", d.professionalSettings)
	d.ownerAction("POST "+p+"professionals/{professional_id}", d.saveProfessional)
	d.ownerAction("POST "+p+"professionals/{professional_id}/hours", d.saveWorkingHours)
	d.ownerAction("POST "+p+"professionals/{professional_id}/time-off", d.addTimeOff)
	d.ownerAction("POST "+p+"professionals/{professional_id}/time-off/remove", d.removeTimeOff)

	d.ownerPage("GET "+p+"event-types", d.eventTypesSettings)
	d.ownerAction("POST "+p+"event-types", d.createEventType)
	d.ownerAction("POST "+p+"event-types/{event_type_id}", d.saveEventType)

	d.ownerPage("GET "+p+"waitlists", d.waitlistsSettings)
	d.ownerAction("POST "+p+"waitlists/{waitlist_id}", d.saveWaitlistSchedule)
}

// change runs fn and, when it changed something, its audit entry in one
// transaction: a refused or failed change leaves neither. fn returns the
// object's id (as the audit names it) and what changed, in words.
func (d *Dashboard) change(ctx context.Context, s *session, action, objectType string, fn func(tx *db.Tx) (string, []string, error)) (bool, error) {
	changed := false
	err := d.db.Transact(ctx, func(tx *db.Tx) error {
		id, changes, err := fn(tx)
		if err != nil || len(changes) == 0 {
			return err
		}
		changed = true
		return audit.Record(ctx, tx, s.Account, audit.Actor{UserID: s.UserID, UserName: s.UserName},
			action, objectType, id, strings.Join(changes, "; "), d.clock.Now())
	})
	return changed, localize(s, err)
}

// localize puts an area's refusal into the user's language (the areas write
// English; locales/es.toml holds the Spanish of the settings' refusals).
func localize(s *session, err error) error {
	var e *errs.Error
	if errors.As(err, &e) && e.Code == errs.ValidationError {
		return errs.New(e.Code, "%s", s.T(e.Message))
	}
	return err
}

func idString(id int64) string { return strconv.FormatInt(id, 10) }

// formIDs reads repeated id fields (checkboxes); a malformed one is refused.
func formIDs(s *session, r *http.Request, name string) ([]int64, error) {
	var out []int64
	for _, v := range r.PostForm[name] {
		id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || id <= 0 {
			return nil, errs.New(errs.ValidationError, "%s", s.T("The form sent an id that is not a number. Reload the page and try again."))
		}
		out = append(out, id)
	}
	return out, nil
}

func formInt(s *session, r *http.Request, name, msg string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(r.PostForm.Get(name)))
	if err != nil {
		return 0, errs.New(errs.ValidationError, "%s", msg)
	}
	return n, nil
}

func formBool(r *http.Request, name string) bool { return r.PostForm.Get(name) == "true" }

// --- Services -------------------------------------------------------------

type servicesView struct {
	Services      []calendar.ServiceDetail
	Professionals map[int64]string
	EventTypes    map[int64]string
}

// servicesSettings handles "GET /app/settings/services".
func (d *Dashboard) servicesSettings(w http.ResponseWriter, r *http.Request, s *session) error {
	ctx := r.Context()
	svcs, err := calendar.CatalogServices(ctx, d.db, s.Account)
	if err != nil {
		return err
	}
	v := servicesView{Services: svcs, Professionals: map[int64]string{}, EventTypes: map[int64]string{}}
	pros, err := calendar.CatalogProfessionals(ctx, d.db, s.Account)
	if err != nil {
		return err
	}
	for _, p := range pros {
		v.Professionals[p.ID] = p.Name
	}
	types, err := calendar.CatalogEventTypes(ctx, d.db, s.Account)
	if err != nil {
		return err
	}
	for _, e := range types {
		v.EventTypes[e.ID] = e.Name
	}
	d.render(w, r, s, http.StatusOK, "settings_services", "Services", "settings-services", v)
	return nil
}

func serviceInput(s *session, r *http.Request) (calendar.ServiceInput, error) {
	dur, err := formInt(s, r, "duration", s.T("The duration must be a whole number of minutes."))
	return calendar.ServiceInput{Name: r.PostForm.Get("name"), Color: r.PostForm.Get("color"), DurationMinutes: dur, Active: formBool(r, "active")}, err
}

// createService handles "POST /app/settings/services": the new service
// opens for choosing its professionals and event types.
func (d *Dashboard) createService(w http.ResponseWriter, r *http.Request, s *session) error {
	in, err := serviceInput(s, r)
	if err != nil {
		return err
	}
	var id int64
	if _, err := d.change(r.Context(), s, "created", "service", func(tx *db.Tx) (string, []string, error) {
		var err error
		id, err = calendar.CreateService(r.Context(), tx, s.Account, in)
		return idString(id), []string{"service " + strconv.Quote(strings.TrimSpace(in.Name))}, err
	}); err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/services/"+idString(id), "ok", s.T("Service created. Choose who offers it and its event types: it is bookable once it has both."))
	return nil
}

type serviceView struct {
	Service       calendar.ServiceDetail
	Professionals []calendar.ProfessionalDetail
	EventTypes    []calendar.EventTypeDetail
}

// serviceSettings handles "GET /app/settings/services/{service_id}".
func (d *Dashboard) serviceSettings(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "service_id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	svc, err := calendar.CatalogService(ctx, d.db, s.Account, id)
	if err != nil {
		return err
	}
	pros, err := calendar.CatalogProfessionals(ctx, d.db, s.Account)
	if err != nil {
		return err
	}
	types, err := calendar.CatalogEventTypes(ctx, d.db, s.Account)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_service", "Service", "settings-services", serviceView{Service: svc, Professionals: pros, EventTypes: types})
	return nil
}

// saveService handles "POST /app/settings/services/{service_id}": the
// fields, who offers it and its event types, as one change.
func (d *Dashboard) saveService(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "service_id")
	if err != nil {
		return err
	}
	in, err := serviceInput(s, r)
	if err != nil {
		return err
	}
	pros, err := formIDs(s, r, "professional_id")
	if err != nil {
		return err
	}
	types, err := formIDs(s, r, "event_type_id")
	if err != nil {
		return err
	}
	changed, err := d.change(r.Context(), s, "updated", "service", func(tx *db.Tx) (string, []string, error) {
		ctx := r.Context()
		changes, err := calendar.UpdateService(ctx, tx, s.Account, id, in)
		if err != nil {
			return "", nil, err
		}
		more, err := calendar.SetServiceProfessionals(ctx, tx, s.Account, id, pros)
		if err != nil {
			return "", nil, err
		}
		changes = append(changes, more...)
		more, err = calendar.SetServiceEventTypes(ctx, tx, s.Account, id, types)
		return idString(id), append(changes, more...), err
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/services/"+idString(id), "ok", savedMessage(s, changed))
	return nil
}

func savedMessage(s *session, changed bool) string {
	if changed {
		return s.T("Saved.")
	}
	return s.T("Nothing changed.")
}

// --- Professionals --------------------------------------------------------

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
	d.render(w, r, s, http.StatusOK, "settings_professionals", "Professionals", "settings-professionals", rows)
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
	d.redirect(w, r, Prefix+"settings/professionals/"+idString(id), "ok", s.T("Professional added. Give them working hours, then choose their services on each service's page."))
	return nil
}

// dayRow is one weekday of the working-hours form.
type dayRow struct {
	Key, Label, Text string
}

func dayRows(s *session, p calendar.ProfessionalDetail) []dayRow {
	labels := map[string]string{"mon": s.T("Monday"), "tue": s.T("Tuesday"), "wed": s.T("Wednesday"), "thu": s.T("Thursday"),
		"fri": s.T("Friday"), "sat": s.T("Saturday"), "sun": s.T("Sunday")}
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
}

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
	d.render(w, r, s, http.StatusOK, "settings_professional", "Professional", "settings-professionals", professionalView{
		Professional: p, Days: dayRows(s, p), Today: d.clock.Now().In(s.Account.Location()).Format("2006-01-02")})
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
	d.professionalBack(w, r, id, savedMessage(s, changed))
	return nil
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
			return errs.New(errs.ValidationError, "%s", s.T("The day must be a date (YYYY-MM-DD)."))
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
				return errs.New(errs.ValidationError, "%s", s.T("Give the time off a start and an end (date and time)."))
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
	d.professionalBack(w, r, id, s.T("Time off added."))
	return nil
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
	d.professionalBack(w, r, id, s.T("Time off removed."))
	return nil
}

// --- Event types ----------------------------------------------------------

// eventTypesSettings handles "GET /app/settings/event-types".
func (d *Dashboard) eventTypesSettings(w http.ResponseWriter, r *http.Request, s *session) error {
	types, err := calendar.CatalogEventTypes(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_event_types", "Event types", "settings-event-types", types)
	return nil
}

func eventTypeInput(r *http.Request) calendar.EventTypeInput {
	return calendar.EventTypeInput{Name: r.PostForm.Get("name"), Color: r.PostForm.Get("color"), Active: formBool(r, "active")}
}

// createEventType handles "POST /app/settings/event-types".
func (d *Dashboard) createEventType(w http.ResponseWriter, r *http.Request, s *session) error {
	in := eventTypeInput(r)
	if _, err := d.change(r.Context(), s, "created", "event_type", func(tx *db.Tx) (string, []string, error) {
		id, err := calendar.CreateEventType(r.Context(), tx, s.Account, in)
		return idString(id), []string{"event type " + strconv.Quote(strings.TrimSpace(in.Name))}, err
	}); err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/event-types", "ok", s.T("Event type created. Offer it on a service's page."))
	return nil
}

// saveEventType handles "POST /app/settings/event-types/{event_type_id}".
func (d *Dashboard) saveEventType(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "event_type_id")
	if err != nil {
		return err
	}
	changed, err := d.change(r.Context(), s, "updated", "event_type", func(tx *db.Tx) (string, []string, error) {
		changes, err := calendar.UpdateEventType(r.Context(), tx, s.Account, id, eventTypeInput(r))
		return idString(id), changes, err
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/event-types", "ok", savedMessage(s, changed))
	return nil
}

// --- Waiting-list schedules -----------------------------------------------

// waitlistsSettings handles "GET /app/settings/waitlists".
func (d *Dashboard) waitlistsSettings(w http.ResponseWriter, r *http.Request, s *session) error {
	lists, err := waitlist.Schedules(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_waitlists", "Waiting-list schedules", "settings-waitlists", lists)
	return nil
}

// saveWaitlistSchedule handles "POST /app/settings/waitlists/{waitlist_id}".
func (d *Dashboard) saveWaitlistSchedule(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "waitlist_id")
	if err != nil {
		return err
	}
	msg := s.T("Write whole numbers in every field.")
	horizon, err := formInt(s, r, "horizon_days", msg)
	if err != nil {
		return err
	}
	every, err := formInt(s, r, "run_every_minutes", msg)
	if err != nil {
		return err
	}
	ttl, err := formInt(s, r, "seat_ttl_minutes", msg)
	if err != nil {
		return err
	}
	maxOffers, err := formInt(s, r, "max_offers", msg)
	if err != nil {
		return err
	}
	// Beyond these the area refuses anyway; capping first keeps the
	// durations from overflowing into an accepted value.
	every, ttl = min(every, 1<<20), min(ttl, 1<<20)
	sched := waitlist.Schedule{Active: formBool(r, "active"), HorizonDays: horizon, RunEvery: time.Duration(every) * time.Minute,
		SeatTTL: time.Duration(ttl) * time.Minute, MaxOffers: maxOffers}
	changed, err := d.change(r.Context(), s, "updated", "waitlist", func(tx *db.Tx) (string, []string, error) {
		changes, err := waitlist.UpdateSchedule(r.Context(), tx, s.Account, id, sched, d.clock.Now())
		return idString(id), changes, err
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/waitlists", "ok", savedMessage(s, changed))
	return nil
}
