package dashboard

// A client's page: the editable record (with the DNI/NIE and insurer,
// docs/patient-fields.md), what every area holds about the client, and what
// staff do from it: move or cancel an appointment, book, message.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/privacy"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

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
	// What staff do from the page: book for the client (Today with the
	// client chosen), message them, and the page to come back to.
	BookURL, MessageURL, Back string
	InsurerMax, PolicyMax     int
	// ErasedAt is when the client's personal data was erased (nil: never;
	// docs/data-rights.md).
	ErasedAt *time.Time
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
	erased, err := privacy.ErasedAt(ctx, d.db, acct, id)
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(c.Data, "", "  ")
	lead := ""
	if c.LeadValue != nil {
		lead = strconv.FormatFloat(*c.LeadValue, 'f', -1, 64)
	}
	title := c.Name()
	if erased != nil {
		title = s.Translate("Erased client %d", id)
	}
	d.renderTitled(w, r, s, http.StatusOK, "client", title, "clients", clientView{
		ErasedAt: erased,
		Client:   c, Tags: tags, DataJSON: string(data), Lead: lead, Phone: c.PhoneE164(),
		Upcoming: upcoming, Past: past, Attendance: attendance, Entries: entries, Cards: cards, Conversations: convs, Consent: consent,
		Lists: lists, Services: services, TimePreferences: waitlist.TimePreferences, NotesMax: waitlist.MaxNotesLen,
		Label: valueLabel(s), BookURL: bookForClientURL(id), MessageURL: fmt.Sprintf("%sconversations/patient/%d", Prefix, id),
		Back: fmt.Sprintf("%sclients/%d#appointments", Prefix, id), InsurerMax: contact.MaxInsurerLen, PolicyMax: contact.MaxPolicyLen,
	})
	return nil
}

// saveClient handles "POST /app/clients/{client_id}": the whole record;
// an emptied field is cleared. The DNI/NIE and insurer follow
// contact.NationalID and contact.Insurance, as the workspace file does.
func (d *Dashboard) saveClient(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	f := r.PostForm
	u := contact.ClientUpdate{FirstName: f.Get("first_name"), LastName: f.Get("last_name"), Email: f.Get("email"),
		Company: f.Get("company"), Timezone: f.Get("timezone"), LeadValue: f.Get("lead_value"),
		NationalID: f.Get("national_id"), Insurer: f.Get("insurer"), InsurancePolicy: f.Get("insurance_policy")}
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
