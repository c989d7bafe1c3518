package dashboard

// Clients: the search, create, tags, adding to a waiting list. The
// client's own page is client_page.go, the header's type-ahead
// clients_suggest.go.

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// clientsView is the clients page: the search and the clients found.
type clientsView struct {
	Q       string
	Clients []contact.Client
	Total   int
}

func (clientsView) isPage() {}

// clientsPage handles "GET /app/clients?q=": the one client search
// (contact.SearchClients, docs/patient-search.md); the header's search
// form sends it too. A query that finds exactly one client opens that
// client's page.
func (d *Dashboard) clientsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	q, err := searchTerm(r.URL.Query().Get("q"))
	if err != nil {
		return err
	}
	list, total, err := contact.SearchClients(r.Context(), d.db, s.Account, q, 100)
	if err != nil {
		return err
	}
	// One client found: the receptionist was looking for that patient, so
	// their page opens (docs/patient-search.md).
	if q != "" && total == 1 && len(list) == 1 {
		http.Redirect(w, r, fmt.Sprintf("%sclients/%d", Prefix, list[0].ID), http.StatusSeeOther)
		return nil
	}
	d.render(w, r, s, http.StatusOK, "clients", "Clients", "clients", clientsView{Q: q, Clients: list, Total: total})
	return nil
}

// newClientForm is what the "New client" form sends, shown again when the
// client is refused.
type newClientForm struct {
	FirstName, LastName, Phone, Email, Company, Notes, Tags string
}

// newClientView is the "New client" form: what was typed and, after a
// refusal, why, with the client who already holds the phone or e-mail.
type newClientView struct {
	Form         newClientForm
	Error        string
	Existing     *contact.Duplicate
	ExistingName string
}

func (newClientView) isPage() {}

// newClientPage handles "GET /app/clients/new".
func (d *Dashboard) newClientPage(w http.ResponseWriter, r *http.Request, s *session) error {
	d.render(w, r, s, http.StatusOK, "client_new", "New client", "clients", newClientView{})
	return nil
}

// createClient handles "POST /app/clients": contact.CreateClient's rules
// (the phone read with the account's default region, a phone or e-mail
// that already belongs to a client refused). A refusal shows the form
// again with what was typed, the reason, and a link to the client who
// holds the phone or e-mail; success goes to the new client's page.
func (d *Dashboard) createClient(w http.ResponseWriter, r *http.Request, s *session) error {
	f := r.PostForm
	form := newClientForm{FirstName: f.Get("first_name"), LastName: f.Get("last_name"), Phone: f.Get("phone"),
		Email: f.Get("email"), Company: f.Get("company"), Notes: f.Get("notes"), Tags: f.Get("tags")}
	in := contact.ClientInput{FirstName: form.FirstName, LastName: form.LastName, Phone: form.Phone, Email: form.Email,
		Company: form.Company, Notes: form.Notes, Tags: strings.Split(form.Tags, ",")}
	c, err := contact.CreateClient(r.Context(), d.db, s.Account, in, d.clock.Now())
	var e *errs.Error
	if errors.As(err, &e) && e.Code != errs.NotFound {
		data := newClientView{Form: form, Error: s.Err(e)}
		if dup, ok := e.Details.(contact.Duplicate); ok {
			data.Existing = &dup
			name := dup.ClientName
			if name == "" {
				name = s.Translate("Client %d", dup.ClientID)
			}
			if dup.Field == "email" {
				data.Error = s.Translate("The e-mail %s already belongs to %s.", strings.TrimSpace(form.Email), name)
			} else {
				data.Error = s.Translate("The phone %s already belongs to %s.", strings.TrimSpace(form.Phone), name)
			}
			data.ExistingName = name
		}
		d.render(w, r, s, http.StatusUnprocessableEntity, "client_new", "New client", "clients", data)
		return nil
	}
	if err != nil {
		return err
	}
	d.redirect(w, r, fmt.Sprintf("%sclients/%d", Prefix, c.ID), "ok", s.Translate("Client %s created.", c.Name()))
	return nil
}

// addTag handles "POST /app/clients/{client_id}/tags".
func (d *Dashboard) addTag(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	if err := contact.AddClientTag(r.Context(), d.db, s.Account, id, r.PostForm.Get("name"), d.clock.Now()); err != nil {
		return err
	}
	d.redirect(w, r, fmt.Sprintf("%sclients/%d#tags", Prefix, id), "ok", s.Translate("Tag added."))
	return nil
}

// removeTag handles "POST /app/clients/{client_id}/tags/remove".
func (d *Dashboard) removeTag(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	tag, err := formID(r, "tag_id", "tag")
	if err != nil {
		return err
	}
	if err := contact.RemoveClientTag(r.Context(), d.db, s.Account, id, tag); err != nil {
		return err
	}
	d.redirect(w, r, fmt.Sprintf("%sclients/%d#tags", Prefix, id), "ok", s.Translate("Tag removed."))
	return nil
}

// addToWaitlist handles "POST /app/clients/{client_id}/waitlist" with
// waitlist_id (empty: each service goes to the active list holding it),
// service_id (one or more), priority, time_preference and notes. It is
// waitlist.Add, the use case of the API's POST /calendar/waitlist/entries,
// so the same rules apply and waitlist.entry_created goes to the webhooks;
// a client already waiting for a service keeps its place (the preferences
// sent are written over its entry, as through the API).
func (d *Dashboard) addToWaitlist(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	// An unknown client is a 404 here, not the API's CLIENT_NOT_FOUND
	// refusal: the page's address names it.
	if _, err := contact.GetClient(r.Context(), d.db, s.Account, id); err != nil {
		return err
	}
	back := fmt.Sprintf("%sclients/%d#waitlist", Prefix, id)
	f := r.PostForm
	req := waitlist.AddRequest{ClientID: &id}
	if v := strings.TrimSpace(f.Get("waitlist_id")); v != "" {
		list, err := strconv.ParseInt(v, 10, 64)
		if err != nil || list <= 0 {
			return errs.New(errs.NotFound, "Waiting list %q not found.", v)
		}
		req.WaitlistID = &list
	}
	for _, v := range f["service_id"] {
		sid, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || sid <= 0 {
			return errs.New(errs.ValidationError, "%s", s.Translate("Choose the services the client waits for."))
		}
		req.ServiceIDs = append(req.ServiceIDs, sid)
	}
	if len(req.ServiceIDs) == 0 {
		return errs.New(errs.ValidationError, "%s", s.Translate("Choose the services the client waits for."))
	}
	if v := strings.TrimSpace(f.Get("priority")); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 3 {
			return errs.New(errs.ValidationError, "%s", s.Translate("Choose a priority: urgent, high, normal or low."))
		}
		req.Prefs.Priority = &p
	}
	if v := strings.TrimSpace(f.Get("time_preference")); v != "" {
		if !contains(waitlist.TimePreferences, v) {
			return errs.New(errs.ValidationError, "%s", s.Translate("Choose a time of day: any, morning, afternoon or evening."))
		}
		req.Prefs.TimePreference = &v
	}
	if v := strings.TrimSpace(f.Get("notes")); v != "" {
		if utf8.RuneCountInString(v) > waitlist.MaxNotesLen {
			return errs.New(errs.ValidationError, "%s", s.Translate("Notes may have at most %d characters.", waitlist.MaxNotesLen))
		}
		req.Prefs.Notes = &v
	}
	res, err := waitlist.Add(r.Context(), d.db, s.Account, req, d.clock.Now())
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) && e.Code != errs.NotFound {
			d.redirect(w, r, back, "error", waitlistRefusal(s, e))
			return nil
		}
		return err
	}
	var added, waiting []string
	for _, e := range res.Entries {
		if e.Created != nil && *e.Created {
			added = append(added, e.Service.Name)
		} else {
			waiting = append(waiting, e.Service.Name)
		}
	}
	var msg []string
	if len(added) > 0 {
		msg = append(msg, s.Translate("Added to the waiting list for %s.", strings.Join(added, ", ")))
	}
	if len(waiting) > 0 {
		msg = append(msg, s.Translate("Already waiting for %s: the entry keeps its place and takes the preferences sent.", strings.Join(waiting, ", ")))
	}
	d.redirect(w, r, back, "ok", strings.Join(msg, " "))
	return nil
}

// waitlistRefusal says why waitlist.Add refused, in the user's language:
// the refusals a receptionist can meet on the client's page by their code,
// anything else in the area's own words.
func waitlistRefusal(s *session, e *errs.Error) string {
	switch e.Code {
	case errs.WaitlistInactive:
		return s.Translate("That waiting list is paused: entries cannot be added to it.")
	case errs.ServiceNotInWaitlist:
		return s.Translate("That waiting list does not hold this service: choose another list, or let each service go to the list that holds it.")
	case errs.NoActiveWaitlist:
		return s.Translate("No active waiting list holds this service.")
	case errs.ServiceNotFound:
		return s.Translate("That service does not exist or is no longer offered.")
	}
	return s.Err(e)
}
