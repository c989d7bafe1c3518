package dashboard

// Clients: create, the client's whole page, adding to a waiting list.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// clientsView is the clients page: the search and the clients found.
type clientsView struct {
	Q       string
	Clients []contact.Client
	Total   int
	Single  bool // a search found exactly one client: its link has the focus, Enter opens it
}

func (clientsView) isPage() {}

// clientsPage handles "GET /app/clients?q=": the one client search
// (contact.SearchClients, docs/patient-search.md).
func (d *Dashboard) clientsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	q, err := searchTerm(r.URL.Query().Get("q"))
	if err != nil {
		return err
	}
	list, total, err := contact.SearchClients(r.Context(), d.db, s.Account, q, 100)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "clients", "Clients", "clients", clientsView{Q: q, Clients: list, Total: total, Single: q != "" && total == 1})
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

// clientView is a client's page: the editable record, and what every area
// holds about the client.
type clientView struct {
	Client          contact.Client
	Tags            []contact.Tag
	DataJSON        string
	Lead            string
	Phone           *string
	Upcoming, Past  []calendar.AppointmentView
	Attendance      calendar.Attendance
	Entries         []waitlist.ClientEntry
	Cards           []pipeline.ClientCard
	Conversations   []chat.Conversation
	Consent         []channels.ChannelConsent
	Lists           []waitlist.ListChoice
	Services        []waitlist.Service
	TimePreferences []string
	NotesMax        int
	Label           func(string) string
}

func (clientView) isPage() {}

// clientPage handles "GET /app/clients/{client_id}": the editable details
// and tags, then everything the account holds about the client, each list
// read by its own area: appointments (calendar), waiting-list entries
// (waitlist), cards (pipeline), conversations (chat) and consent per
// channel (channels); and the form that adds the client to a waiting list.
func (d *Dashboard) clientPage(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	ctx, acct, now := r.Context(), s.Account, d.clock.Now()
	c, err := contact.GetClient(ctx, d.db, acct, id)
	if err != nil {
		return err
	}
	tags, err := contact.ClientTags(ctx, d.db, acct, id)
	if err != nil {
		return err
	}
	upcoming, past, err := calendar.ClientAppointments(ctx, d.db, acct, id, now)
	if err != nil {
		return err
	}
	attendance, err := calendar.ClientAttendance(ctx, d.db, acct, id)
	if err != nil {
		return err
	}
	entries, err := waitlist.ClientEntries(ctx, d.db, acct, id, now)
	if err != nil {
		return err
	}
	cards, err := pipeline.ClientCards(ctx, d.db, acct, id)
	if err != nil {
		return err
	}
	convs, err := chat.ClientConversations(ctx, d.db, acct, id)
	if err != nil {
		return err
	}
	consent, err := channels.ClientConsent(ctx, d.db, acct, id)
	if err != nil {
		return err
	}
	lists, services, err := waitlist.ListChoices(ctx, d.db, acct)
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(c.Data, "", "  ")
	lead := ""
	if c.LeadValue != nil {
		lead = strconv.FormatFloat(*c.LeadValue, 'f', -1, 64)
	}
	d.renderTitled(w, r, s, http.StatusOK, "client", c.Name(), "clients", clientView{
		Client: c, Tags: tags, DataJSON: string(data), Lead: lead, Phone: c.PhoneE164(),
		Upcoming: upcoming, Past: past, Attendance: attendance, Entries: entries, Cards: cards, Conversations: convs, Consent: consent,
		Lists: lists, Services: services, TimePreferences: waitlist.TimePreferences, NotesMax: waitlist.MaxNotesLen,
		Label: valueLabel(s),
	})
	return nil
}

// saveClient handles "POST /app/clients/{client_id}": the whole record;
// an emptied field is cleared.
func (d *Dashboard) saveClient(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	f := r.PostForm
	u := contact.ClientUpdate{FirstName: f.Get("first_name"), LastName: f.Get("last_name"), Email: f.Get("email"),
		Company: f.Get("company"), Timezone: f.Get("timezone"), LeadValue: f.Get("lead_value")}
	if raw := strings.TrimSpace(f.Get("data")); raw != "" {
		if err := json.Unmarshal([]byte(raw), &u.Data); err != nil || u.Data == nil {
			return errs.New(errs.ValidationError, "%s", s.Translate("Custom fields must be a JSON object, e.g. {\"plan\": \"gold\"}."))
		}
	}
	if err := contact.UpdateClient(r.Context(), d.db, s.Account, id, u, d.clock.Now()); err != nil {
		return err
	}
	d.redirect(w, r, fmt.Sprintf("%sclients/%d", Prefix, id), "ok", s.Translate("Client saved."))
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
