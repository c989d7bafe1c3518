package dashboard

// A patient's thread (docs/inbox.md): the messages of all the client's
// conversations in one timeline, the patient's card beside it, and a reply
// box that sends on the channel that reaches them (relay.SendToClient),
// optionally resolving the thread in the same click. The rules live in chat
// (threads, read, resolve, quick replies) and relay (where a message to a
// patient goes); these handlers read forms and render.

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/relay"
)

// patientThreadPath is a client's thread in the inbox; other pages (the
// patient's page) link to exactly this.
func patientThreadPath(clientID int64) string {
	return fmt.Sprintf("%sconversations/patient/%d", Prefix, clientID)
}

// patientThreadView is a patient's thread: the merged timeline, the card
// (name, phone, upcoming appointments) and the reply box.
type patientThreadView struct {
	Client   contact.Client
	Phone    string
	Thread   chat.PatientThread
	Upcoming []calendar.AppointmentView
	// Newest is the conversation the handling forms act on (nil: none yet).
	Newest *chat.InboxItem
	Open   bool // some conversation of the thread is open
	// RouteKey is the channel a message goes through; NewConversation says
	// it opens a conversation. Refusal is why nothing can be sent.
	RouteKey        string
	NewConversation bool
	Refusal         string
	Deliveries      map[int64]string
	QuickReplies    []chat.QuickReply
	Draft           string
	Team            []pipeline.UserRef
	Statuses        []string
	StatusLabels    map[string]string
	Nonce           string
	MaxReply        int
	Back            string
}

func (patientThreadView) isPage() {}

// patientThreadPage handles "GET /app/conversations/patient/{client_id}":
// the thread, also for a client without any conversation yet (the first
// message starts one). ?quick= (a quick reply's id) or ?draft= fills the
// reply box, so a quick reply works without JavaScript. Opening it marks
// the client's conversations read. Another account's client is a 404.
func (d *Dashboard) patientThreadPage(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	ctx, acct, now := r.Context(), s.Account, d.clock.Now()
	c, err := contact.GetClient(ctx, d.db, acct, id)
	if err != nil {
		return err
	}
	thread, err := chat.ClientThread(ctx, d.db, acct, id)
	if err != nil {
		return err
	}
	upcoming, _, err := calendar.ClientAppointments(ctx, d.db, acct, id, now)
	if err != nil {
		return err
	}
	quick, err := chat.QuickReplies(ctx, d.db, acct)
	if err != nil {
		return err
	}
	team, err := pipeline.Users(ctx, d.db, acct)
	if err != nil {
		return err
	}
	msgs := make([]chat.Message, len(thread.Messages))
	for i, m := range thread.Messages {
		msgs[i] = m.Message
	}
	deliveries, err := d.replyDeliveries(r, s, msgs)
	if err != nil {
		return err
	}
	if err := chat.MarkClientRead(ctx, d.db, acct, id, now); err != nil {
		return err
	}
	v := patientThreadView{Client: c, Phone: c.Phone.E164(), Thread: thread, Upcoming: upcoming, QuickReplies: quick, Team: team,
		Deliveries: deliveries, Statuses: chat.InboxStatuses, StatusLabels: statusLabels(s), Nonce: randomToken(),
		MaxReply: chat.MaxReplyLength, Back: patientThreadPath(id), Draft: r.URL.Query().Get("draft")}
	for i, cv := range thread.Conversations {
		if i == 0 {
			v.Newest = &thread.Conversations[0]
		}
		if cv.Status != "resolved" && cv.Status != "expired" {
			v.Open = true
		}
	}
	if qid := r.URL.Query().Get("quick"); qid != "" {
		for _, q := range quick {
			if q.ID == qid {
				v.Draft = q.Body
			}
		}
	}
	route, err := relay.RouteToClient(ctx, d.db, acct, id)
	switch {
	case err == nil:
		v.RouteKey, v.NewConversation = route.Channel.Key, route.SessionID == 0
	case relay.ReplyReason(err) != "":
		v.Refusal = patientRefusal(s, err)
	default:
		return err
	}
	d.renderTitled(w, r, s, http.StatusOK, "conversation_patient", s.Translate("Conversation with %s", c.Name()), "conversations", v)
	return nil
}

// replyToPatient handles "POST /app/conversations/patient/{client_id}/reply":
// the text goes to the patient on the channel that reaches them (opening a
// conversation when none does); with resolve=1 ("Send and resolve") the
// thread is resolved too. A refusal comes back as a flash with the text
// kept in the box; nothing is stored.
func (d *Dashboard) replyToPatient(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	ctx, acct, now := r.Context(), s.Account, d.clock.Now()
	if _, err := contact.GetClient(ctx, d.db, acct, id); err != nil {
		return err
	}
	back := patientThreadPath(id)
	body := r.PostForm.Get("body")
	res, _, err := relay.SendToClient(ctx, d.db, acct, relay.ClientReply{ClientID: id, UserID: s.UserID, Body: body, Nonce: r.PostForm.Get("nonce")}, now)
	if err != nil {
		if relay.ReplyReason(err) == "" {
			return err
		}
		if strings.TrimSpace(body) != "" && relay.ReplyReason(err) != relay.ReasonAlreadyRunning {
			back += "?" + url.Values{"draft": {body}}.Encode()
		}
		d.redirect(w, r, back, "error", patientRefusal(s, err))
		return nil
	}
	msg := s.Translate("Reply sent: it is on its way to the client.")
	if res.Repeat {
		msg = s.Translate("This reply was already sent; it was not sent again.")
	}
	if r.PostForm.Get("resolve") == "1" {
		if _, err := chat.ResolveClient(ctx, d.db, acct, id, now); err != nil {
			return err
		}
		msg = s.Translate("Reply sent and conversation resolved.")
	}
	d.redirect(w, r, back, "ok", msg)
	return nil
}

// resolvePatient handles "POST /app/conversations/patient/{client_id}/resolve":
// every open conversation of the client is resolved.
func (d *Dashboard) resolvePatient(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "client_id")
	if err != nil {
		return err
	}
	if _, err := contact.GetClient(r.Context(), d.db, s.Account, id); err != nil {
		return err
	}
	if _, err := chat.ResolveClient(r.Context(), d.db, s.Account, id, d.clock.Now()); err != nil {
		return err
	}
	d.redirect(w, r, patientThreadPath(id), "ok", s.Translate("Conversation resolved."))
	return nil
}

// patientRefusal words a refused message to a patient in the user's
// language.
func patientRefusal(s *session, err error) string {
	switch relay.ReplyReason(err) {
	case relay.ReasonNoPhone:
		return s.Translate("This patient has no phone number, so no channel reaches them. Nothing was sent.")
	case relay.ReasonOptedOut:
		return s.Translate("This patient opted out of every channel that reaches them (they replied STOP). Nothing was sent.")
	case relay.ReasonInactive:
		return s.Translate("The channel that reaches this patient is inactive. Nothing was sent.")
	case relay.ReasonNoChannel:
		return s.Translate("No messaging channel reaches this patient: set a default channel in Settings › Channels. Nothing was sent.")
	case relay.ReasonNoRecipient:
		return s.Translate("There is no address to reply to on this channel. Nothing was sent.")
	}
	return replyRefusal(s, err)
}
