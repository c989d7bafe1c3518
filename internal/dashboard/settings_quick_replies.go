package dashboard

// Settings › Quick replies: the short texts the team inserts into a reply
// from a patient's thread (docs/inbox.md), owners only and audited.

import (
	"net/http"
	"strconv"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
)

// quickRepliesView is the account's quick replies and the form's limits.
type quickRepliesView struct {
	List   []chat.QuickReply
	MaxLen int
	Max    int
}

func (quickRepliesView) isPage() {}

// quickRepliesPage handles "GET /app/settings/quick-replies".
func (d *Dashboard) quickRepliesPage(w http.ResponseWriter, r *http.Request, s *session) error {
	list, err := chat.QuickReplies(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_quick_replies", "Quick replies", "settings-quick-replies",
		quickRepliesView{List: list, MaxLen: chat.MaxQuickReplyLength, Max: chat.MaxQuickReplies})
	return nil
}

// addQuickReply handles "POST /app/settings/quick-replies": body is the
// new text.
func (d *Dashboard) addQuickReply(w http.ResponseWriter, r *http.Request, s *session) error {
	err := d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		q, err := chat.AddQuickReply(r.Context(), tx, s.Account, r.PostForm.Get("body"), d.clock.Now())
		if err != nil {
			return "", "", "", "", err
		}
		return "created", "quick_reply", q.ID, strconv.Quote(chat.Truncate(q.Body, 60)), nil
	})
	if err != nil {
		return localize(s, err)
	}
	d.redirect(w, r, Prefix+"settings/quick-replies", "ok", s.Translate("Quick reply added."))
	return nil
}

// removeQuickReply handles "POST /app/settings/quick-replies/{reply_id}/remove".
func (d *Dashboard) removeQuickReply(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("reply_id")
	err := d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		q, err := chat.RemoveQuickReply(r.Context(), tx, s.Account, id)
		if err != nil {
			return "", "", "", "", err
		}
		return "deleted", "quick_reply", q.ID, strconv.Quote(chat.Truncate(q.Body, 60)), nil
	})
	if err != nil {
		return localize(s, err)
	}
	d.redirect(w, r, Prefix+"settings/quick-replies", "ok", s.Translate("Quick reply removed."))
	return nil
}
