package dashboard

// Settings › Services: the catalogue's services, created and edited by
// owners through the calendar area, audited.

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
)

type servicesView struct {
	Services      []calendar.ServiceDetail
	Professionals map[int64]string
	EventTypes    map[int64]string
}

func (servicesView) isPage() {}

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
	dur, err := formInt(s, r, "duration", s.Translate("The duration must be a whole number of minutes."))
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
	d.redirect(w, r, Prefix+"settings/services/"+idString(id), "ok", s.Translate("Service created. Choose who offers it and its event types: it is bookable once it has both."))
	return nil
}

type serviceView struct {
	Service       calendar.ServiceDetail
	Professionals []calendar.ProfessionalDetail
	EventTypes    []calendar.EventTypeDetail
	BookingRules  []ruleField // what the service sets over the account's rules
}

func (serviceView) isPage() {}

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
	set, err := calendar.ServiceRuleSet(ctx, d.db, s.Account, id)
	if err != nil {
		return err
	}
	acctSet, err := calendar.AccountRuleSet(ctx, d.db, s.Account)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_service", "Service", "settings-services", serviceView{Service: svc, Professionals: pros, EventTypes: types,
		BookingRules: ruleFields(s, set, acctSet.Over(calendar.Rules{}))})
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
		return s.Translate("Saved.")
	}
	return s.Translate("Nothing changed.")
}
