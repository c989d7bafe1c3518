package dashboard

// Settings › Event types (in person, video…), through the calendar area,
// audited.

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
)

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
	d.redirect(w, r, Prefix+"settings/event-types", "ok", s.Translate("Event type created. Offer it on a service's page."))
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
