package httpapi

import (
	"net/http"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// handleListConversations handles "GET /api/v2/public/chat/conversations".
//
// Beyond the contract: in the updated_at order (either direction) every
// response carries next_cursor, and cursor=<next_cursor> continues strictly
// after the last session of the previous page (keyset paging, no offset
// drift). A cursor carries its order: it goes with offset 0 (or none) and
// with its own sort_by (or none, which then means the cursor's); anything
// else is a 422 on the conflicting parameter, and a cursor this endpoint
// did not issue is a 422 value_error on cursor. An empty cursor= is "not
// sent", as query builders emit empty parameters for unset fields.
func (s *Server) handleListConversations(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	q := rep.Query(r.URL.Query())
	var f chat.Filter
	f.CreatedAfter, _ = q.Time("created_after")
	f.CreatedBefore, _ = q.Time("created_before")
	f.UpdatedAfter, _ = q.Time("updated_after")
	f.ClientID, _ = q.Int("client_id", 1, 1<<62)
	f.Search, _ = q.Str("search", chat.MaxSearchLen)
	f.DispositionTagIDs = q.Ints("disposition_tag_ids", chat.MaxDispositionTags)
	f.IncludeUncategorized, _ = q.Bool("include_uncategorized")
	f.Status, _ = q.Enum("status", chat.Statuses...)
	f.Direction, _ = q.Enum("direction", chat.Directions...)
	sortBy, sortSent := q.Enum("sort_by", chat.SortValues()...)
	if sortSent {
		f.SortBy, f.Desc = chat.ParseSort(sortBy)
	} else {
		f.SortBy, f.Desc = "created_at", true
	}
	f.Limit = int(q.IntDefault("limit", chat.DefaultLimit, 1, chat.MaxLimit))
	f.Offset = int(q.IntDefault("offset", 0, 0, valid.MaxOffset))
	if raw, ok := q.Str("cursor", 0); ok && raw != "" {
		if c, err := chat.ParseCursor(raw); err != nil {
			rep.Add([]any{"query", "cursor"}, "value_error", "Value error, "+err.Error())
		} else {
			f.After = &c
			if f.Offset > 0 {
				valid.InRange(rep, int64(f.Offset), 0, 0, "query", "offset")
			}
			if sortSent {
				valid.Literal(rep, sortBy, []string{c.Order()}, "query", "sort_by")
			}
			f.SortBy, f.Desc = "updated_at", c.Desc
		}
	}
	f.IncludeMessages = true
	if v, ok := q.Bool("include_messages"); ok {
		f.IncludeMessages = v
	}
	f.MaxMessages = int(q.IntDefault("max_messages_per_session", chat.DefaultMaxMessages, 1, chat.MaxMaxMessages))
	if err := rep.Err(); err != nil {
		return err
	}
	page, err := chat.ListPage(r.Context(), s.db, accountFrom(r.Context()), f)
	if err != nil {
		return err
	}
	body := map[string]any{"status": "success", "data": page.Conversations, "count": page.Count, "limit": f.Limit, "offset": f.Offset}
	if f.Keyset() {
		var next any // null on the last page
		if page.NextCursor != nil {
			next = page.NextCursor.String()
		}
		body["next_cursor"] = next
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// handleListMessages handles "GET /api/v2/public/chat/conversations/{session_id}/messages".
func (s *Server) handleListMessages(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	id := rep.PathInt("session_id", r.PathValue("session_id"))
	q := rep.Query(r.URL.Query())
	limit := int(q.IntDefault("limit", chat.DefaultMessagesLimit, 1, chat.MaxMessagesLimit))
	offset := int(q.IntDefault("offset", 0, 0, valid.MaxOffset))
	order, _ := q.Enum("order", "asc", "desc")
	if err := rep.Err(); err != nil {
		return err
	}
	page, err := chat.ListMessages(r.Context(), s.db, accountFrom(r.Context()), id, limit, offset, order == "desc")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "session_id": page.SessionID, "data": page.Messages,
		"count": page.Count, "limit": limit, "offset": offset, "participants": page.Participants})
	return nil
}

// handleAppendMessage handles "POST /api/v2/admin/workspaces/{slug}/conversations/{session_id}/messages":
// what a messaging channel calls when a message arrives or is sent.
func (s *Server) handleAppendMessage(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	id := rep.PathInt("session_id", r.PathValue("session_id"))
	body, err := readJSON(w, r, false)
	if err != nil {
		return err
	}
	o := rep.Object(body, "model_type", "body")
	o.Require("from", "content")
	var m chat.NewMessage
	m.From, _ = o.Enum("from", chat.SenderKinds...)
	switch m.From {
	case "ai_agent":
		o.Require("agent")
	case "user":
		o.Require("user")
	}
	m.Agent, _ = o.Str("agent", 100)
	m.User, _ = o.Str("user", 100)
	m.Content, _ = o.Str("content", 0)
	if t, ok := o.Time("timestamp"); ok {
		m.Timestamp = t.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano)
	}
	m.MessageType, _ = o.Str("message_type", 50)
	if mo := o.Sub("media"); mo != nil {
		media := &chat.MediaInput{}
		media.Kind, _ = mo.Str("kind", 50)
		media.Mime, _ = mo.Str("mime", 255)
		media.Filename, _ = mo.Str("filename", 255)
		if c, ok := mo.Str("caption", 0); ok {
			media.Caption = &c
		}
		m.Media = media
	}
	if reply, ok := o.Int("reply_to_id"); ok {
		m.ReplyToID = reply
	}
	if err := rep.Err(); err != nil {
		return err
	}
	acct, err := account.BySlug(r.Context(), s.db, r.PathValue("slug"))
	if err != nil {
		return err
	}
	conv, err := chat.AppendMessage(r.Context(), s.db, acct, id, m, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": conv})
	return nil
}

// handleUpdateConversation handles "PATCH /api/v2/admin/workspaces/{slug}/conversations/{session_id}":
// status, disposition (a tag's workspace key or id; null clears), sentiment
// (null clears) and summary.
func (s *Server) handleUpdateConversation(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	id := rep.PathInt("session_id", r.PathValue("session_id"))
	body, err := readJSON(w, r, false)
	if err != nil {
		return err
	}
	o := rep.Object(body, "model_type", "body")
	var ch chat.Change
	if v, ok := o.Enum("status", chat.Statuses...); ok {
		ch.Status = &v
	}
	if o.Has("disposition") {
		ch.SetDisposition = true
		if raw, ok := o.Raw("disposition"); ok {
			if _, isStr := raw.(string); isStr {
				ch.DispositionKey, _ = o.Str("disposition", 100)
			} else {
				ch.DispositionID, _ = o.Int("disposition")
			}
		}
	}
	if o.Has("sentiment") {
		v, _ := o.Enum("sentiment", chat.Sentiments...)
		ch.Sentiment = &v
	}
	if o.Has("summary") {
		v, _ := o.Str("summary", 10000)
		ch.Summary = &v
	}
	if err := rep.Err(); err != nil {
		return err
	}
	acct, err := account.BySlug(r.Context(), s.db, r.PathValue("slug"))
	if err != nil {
		return err
	}
	conv, err := chat.UpdateConversation(r.Context(), s.db, acct, id, ch, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": conv})
	return nil
}
