package dashboard

// Inbox: unread conversations, assignment, status, replies through the
// conversation's channel (docs/api-notes.md, "The dashboard"). The rules live in chat
// (unread, assignment, status) and relay (a reply joins the conversation
// and leaves through the outbox); these handlers read forms and render.

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/relay"
)

// conversationBack is where a conversation's action returns: the form's
// "back" dashboard path, else the conversation. (Not the referring page: an
// action taken on a conversation shows its outcome there.)
func conversationBack(r *http.Request, id int64) string {
	if p := localPath(r.PostForm.Get("back"), r.Host); p != "" {
		return p
	}
	return fmt.Sprintf("%sconversations/%d", Prefix, id)
}

// statusLabels are the conversation statuses in the user's language.
func statusLabels(s *session) map[string]string {
	return map[string]string{
		"new":            s.Translate("New"),
		"ai_handling":    s.Translate("AI handling"),
		"human_handling": s.Translate("Team handling"),
		"resolved":       s.Translate("Resolved"),
		"expired":        s.Translate("Expired"),
	}
}

// inboxTab is one of the inbox's views, as a link.
type inboxTab struct {
	Show, Label, Href string
}

// inboxView is the inbox: one view's conversations with the filters.
type inboxView struct {
	List         []chat.InboxItem
	Total        int
	Unread       int
	Q            url.Values
	Show         string
	Tabs         []inboxTab
	Dispositions []chat.DispositionRef
	SortBy       string
	Sorts        []string
	Statuses     []string
	StatusLabels map[string]string
	Next         string
}

func (inboxView) isPage() {}

// inboxPage handles "GET /app/conversations": the conversations of one view
// (all, unread, mine, unassigned) with the API's filters, newest activity
// first.
func (d *Dashboard) inboxPage(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	search, err := searchTerm(q.Get("search"))
	if err != nil {
		return err
	}
	page, err := pageNumber(q.Get("page"))
	if err != nil {
		return err
	}
	f := chat.InboxFilter{Filter: chat.Filter{Search: search, Limit: 50}, UserID: s.UserID}
	if v := q.Get("show"); contains(chat.InboxShows, v) {
		f.Show = v
	}
	if v := q.Get("status"); contains(chat.Statuses, v) {
		f.Status = v
	}
	if v := q.Get("direction"); contains(chat.Directions, v) {
		f.Direction = v
	}
	sortBy := q.Get("sort_by")
	if !contains(chat.SortValues(), sortBy) {
		sortBy = "-last_message_at"
	}
	f.SortBy, f.Desc = chat.ParseSort(sortBy)
	if id, err := strconv.ParseInt(q.Get("disposition"), 10, 64); err == nil && id > 0 {
		f.DispositionTagIDs = []int64{id}
	}
	f.Offset = (page - 1) * f.Limit
	list, total, err := chat.Inbox(r.Context(), d.db, s.Account, f)
	if err != nil {
		return err
	}
	unread, err := chat.UnreadCount(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	disp, err := chat.Dispositions(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	next := ""
	if f.Offset+len(list) < total {
		v := q
		v.Set("page", strconv.Itoa(page+1))
		next = Prefix + "conversations?" + v.Encode()
	}
	// The view tabs keep the other filters; the page starts over.
	var tabs []inboxTab
	for _, t := range []struct{ show, label string }{
		{chat.ShowAll, s.Translate("All")}, {chat.ShowUnread, s.Translate("Unread (%d)", unread)}, {chat.ShowMine, s.Translate("Assigned to me")}, {chat.ShowUnassigned, s.Translate("Unassigned")},
	} {
		v := r.URL.Query()
		v.Del("page")
		v.Del("show")
		if t.show != "" {
			v.Set("show", t.show)
		}
		href := Prefix + "conversations"
		if len(v) > 0 {
			href += "?" + v.Encode()
		}
		tabs = append(tabs, inboxTab{Show: t.show, Label: t.label, Href: href})
	}
	d.render(w, r, s, http.StatusOK, "conversations", "Inbox", "conversations", inboxView{
		List: list, Total: total, Unread: unread, Q: q, Show: f.Show, Tabs: tabs, Dispositions: disp,
		SortBy: sortBy, Sorts: chat.SortValues(), Statuses: chat.Statuses, StatusLabels: statusLabels(s), Next: next,
	})
	return nil
}

// conversationView is a conversation's page: the transcript, who handles
// it, its status and the reply box.
type conversationView struct {
	ID           int64
	Conv         chat.InboxItem
	Who          string
	Page         chat.MessagePage
	Deliveries   map[int64]string
	Team         []pipeline.UserRef
	Statuses     []string
	StatusLabels map[string]string
	Nonce        string
	MaxReply     int
	Back         string
}

func (conversationView) isPage() {}

// conversationPage handles "GET /app/conversations/{session_id}": the
// transcript, who handles it, its status and the reply box. Opening it
// marks the conversation read.
func (d *Dashboard) conversationPage(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	conv, err := chat.InboxConversation(r.Context(), d.db, s.Account, id)
	if err != nil {
		return err
	}
	// The newest messages, oldest first: the reply box is under them.
	msgs, err := chat.ListMessages(r.Context(), d.db, s.Account, id, chat.MaxMessagesLimit, 0, true)
	if err != nil {
		return err
	}
	slices.Reverse(msgs.Messages)
	deliveries, err := d.replyDeliveries(r, s, msgs.Messages)
	if err != nil {
		return err
	}
	if err := chat.MarkRead(r.Context(), d.db, s.Account, id, d.clock.Now()); err != nil {
		return err
	}
	team, err := pipeline.Users(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	title := conv.CustomerPhoneNumber
	if conv.Client != nil && conv.Client.Name != "" {
		title = conv.Client.Name
	}
	d.renderTitled(w, r, s, http.StatusOK, "conversation", s.Translate("Conversation with %s", title), "conversations", conversationView{
		ID: id, Conv: conv, Who: title, Page: msgs, Deliveries: deliveries, Team: team, Statuses: chat.InboxStatuses, StatusLabels: statusLabels(s),
		Nonce: randomToken(), MaxReply: chat.MaxReplyLength, Back: fmt.Sprintf("%sconversations/%d", Prefix, id),
	})
	return nil
}

// assignConversation handles "POST /app/conversations/{session_id}/assign":
// user_id names a team member, empty or 0 unassigns.
func (d *Dashboard) assignConversation(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	var userID int64
	if v := strings.TrimSpace(r.PostForm.Get("user_id")); v != "" && v != "0" {
		if userID, err = strconv.ParseInt(v, 10, 64); err != nil || userID <= 0 {
			return errs.New(errs.ValidationError, "%s", s.Translate("Choose a team member."))
		}
	}
	if err := chat.Assign(r.Context(), d.db, s.Account, id, userID); err != nil {
		if errs.Is(err, errs.ValidationError) {
			return errs.New(errs.ValidationError, "%s", s.Translate("That person is not an active member of this team."))
		}
		return err
	}
	msg := s.Translate("Nobody is assigned to the conversation now.")
	switch userID {
	case 0:
	case s.UserID:
		msg = s.Translate("The conversation is assigned to you.")
	default:
		msg = s.Translate("Conversation assigned.")
	}
	d.redirect(w, r, conversationBack(r, id), "ok", msg)
	return nil
}

// setConversationStatus handles "POST /app/conversations/{session_id}/status"
// through the admin API's write (same webhook: chat.conversation_updated).
func (d *Dashboard) setConversationStatus(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	status := r.PostForm.Get("status")
	if !contains(chat.InboxStatuses, status) {
		// An unknown conversation is a 404 whatever the form says.
		if _, err := chat.InboxConversation(r.Context(), d.db, s.Account, id); err != nil {
			return err
		}
		return errs.New(errs.ValidationError, "%s", s.Translate("Choose a status."))
	}
	if _, err := chat.UpdateConversation(r.Context(), d.db, s.Account, id, chat.Change{Status: &status}, d.clock.Now()); err != nil {
		return err
	}
	d.redirect(w, r, conversationBack(r, id), "ok", s.Translate("Status changed to %s.", statusLabels(s)[status]))
	return nil
}

// replyToConversation handles "POST /app/conversations/{session_id}/reply":
// the text joins the conversation as the signed-in member's message and
// goes to the client through the conversation's channel. The form's nonce
// makes a second submission of the same form send nothing more.
func (d *Dashboard) replyToConversation(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "session_id")
	if err != nil {
		return err
	}
	back := conversationBack(r, id)
	res, err := relay.SendReply(r.Context(), d.db, s.Account, relay.TeamReply{SessionID: id, UserID: s.UserID,
		Body: r.PostForm.Get("body"), Nonce: r.PostForm.Get("nonce")}, d.clock.Now())
	if err != nil {
		if msg := replyRefusal(s, err); msg != "" {
			return errs.New(errs.ValidationError, "%s", msg)
		}
		return err
	}
	if res.Repeat {
		d.redirect(w, r, back, "ok", s.Translate("This reply was already sent; it was not sent again."))
		return nil
	}
	d.redirect(w, r, back, "ok", s.Translate("Reply sent: it is on its way to the client."))
	return nil
}

// replyRefusal words a refused reply in the user's language ("" for an
// error that is not a refusal).
func replyRefusal(s *session, err error) string {
	switch relay.ReplyReason(err) {
	case relay.ReasonNoChannel:
		return s.Translate("This conversation did not come through a messaging channel, so the client cannot be reached from here. Nothing was sent.")
	case relay.ReasonInactive:
		return s.Translate("The conversation's channel is inactive. Nothing was sent.")
	case relay.ReasonOptedOut:
		return s.Translate("The client opted out of this channel (they replied STOP). Nothing was sent.")
	case relay.ReasonNoRecipient:
		return s.Translate("There is no address to reply to on this channel. Nothing was sent.")
	case relay.ReasonEmpty:
		return s.Translate("Write a message first.")
	case relay.ReasonTooLong:
		return s.Translate("The message is too long: at most %d characters.", chat.MaxReplyLength)
	case relay.ReasonNonce:
		return s.Translate("This form has expired. Reload the page and try again.")
	case relay.ReasonAlreadyRunning:
		return s.Translate("This reply was already sent; it was not sent again.")
	}
	return ""
}

// replyDeliveries words where each team reply of a transcript stands, by
// message id: a receptionist sees a reply that did not reach the client.
func (d *Dashboard) replyDeliveries(r *http.Request, s *session, msgs []chat.Message) (map[int64]string, error) {
	var ids []int64
	for _, m := range msgs {
		if m.Sender.Type == "user" {
			ids = append(ids, m.ID)
		}
	}
	got, err := relay.ReplyDeliveries(r.Context(), d.db, s.Account, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(got))
	for id, dl := range got {
		switch dl.Status {
		case "pending", "running":
			out[id] = s.Translate("Queued for sending")
		case "sent":
			out[id] = s.Translate("Sent")
		case "delivered":
			out[id] = s.Translate("Delivered")
		case "read":
			out[id] = s.Translate("Read by the client")
		case "failed", "suppressed", "cancelled":
			out[id] = s.Translate("Not sent: %s", dl.Error)
		default:
			out[id] = dl.Status
		}
	}
	return out, nil
}
