package dashboard

// Settings › Rooms and equipment (docs/rooms.md), through the calendar
// area, audited: add, rename, retire.

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
)

// resourcesView is the rooms and equipment page.
type resourcesView struct {
	Resources []calendar.ResourceDetail
}

func (resourcesView) isPage() {}

// resourcesSettings handles "GET /app/settings/resources".
func (d *Dashboard) resourcesSettings(w http.ResponseWriter, r *http.Request, s *session) error {
	list, err := calendar.CatalogResources(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_resources", "Rooms and equipment", "settings-resources",
		resourcesView{Resources: list})
	return nil
}

func resourceInput(r *http.Request) calendar.ResourceInput {
	return calendar.ResourceInput{Name: r.PostForm.Get("name"), Kind: r.PostForm.Get("kind"), Active: formBool(r, "active")}
}

// createResource handles "POST /app/settings/resources".
func (d *Dashboard) createResource(w http.ResponseWriter, r *http.Request, s *session) error {
	in := resourceInput(r)
	if _, err := d.change(r.Context(), s, "created", "resource", func(tx *db.Tx) (string, []string, error) {
		id, err := calendar.CreateResource(r.Context(), tx, s.Account, in, db.Micros(d.clock.Now()))
		return idString(id), []string{in.Kind + " " + strconv.Quote(strings.TrimSpace(in.Name))}, err
	}); err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/resources", "ok", s.Translate("Room or equipment added. A service needs it through the workspace file."))
	return nil
}

// saveResource handles "POST /app/settings/resources/{resource_id}".
func (d *Dashboard) saveResource(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "resource_id")
	if err != nil {
		return err
	}
	changed, err := d.change(r.Context(), s, "updated", "resource", func(tx *db.Tx) (string, []string, error) {
		changes, err := calendar.UpdateResource(r.Context(), tx, s.Account, id, resourceInput(r))
		return idString(id), changes, err
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/resources", "ok", savedMessage(s, changed))
	return nil
}
