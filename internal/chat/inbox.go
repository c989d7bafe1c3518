package chat

// The dashboard's inbox: which conversations the team has not read, who
// handles each one, and the messages a team member writes from it.

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// unreadCond holds for an open conversation (alias cv) with a client
// message stored after the team last read it. It compares created_at, the
// server's clock when the message arrived, with read_at, also the server's:
// a message whose own timestamp is older (a channel's skewed clock, a late
// import) still counts as new.
const unreadCond = `cv.status NOT IN ('resolved', 'expired') AND EXISTS (SELECT 1 FROM messages m
	WHERE m.account_id = cv.account_id AND m.conversation_id = cv.id AND m.sender_kind = 'client' AND m.created_at > COALESCE(cv.read_at, 0))`

// UnreadCount is how many open conversations hold a client message the
// team has not read.
func UnreadCount(ctx context.Context, q db.Querier, acct account.Account) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT COUNT(*) FROM conversations cv WHERE cv.account_id = ? AND `+unreadCond, acct.ID).Scan(&n)
	return n, err
}

// MarkRead records that the team read the conversation now. Another
// account's conversation is left alone (and reported as not found by the
// page that shows it).
func MarkRead(ctx context.Context, q db.Querier, acct account.Account, sessionID int64, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE conversations SET read_at = ? WHERE account_id = ? AND id = ?`, db.Micros(now), acct.ID, sessionID)
	return err
}

// InboxStatuses are the statuses a team member may set: expired is the
// system's (a conversation that ran out of its window), not a choice.
var InboxStatuses = []string{"new", "ai_handling", "human_handling", "resolved"}

// InboxItem is a conversation as the inbox shows it.
type InboxItem struct {
	Conversation
	Unread bool
	// Assignee is the team member who handles the conversation, or nil.
	Assignee *User
	// ChannelID and ChannelKey name the channel the conversation runs on
	// (0 and "" for a conversation from the API or the workspace file).
	ChannelID  int64
	ChannelKey string
}

// InboxConversation returns one conversation of the account as the inbox
// shows it, or NOT_FOUND (also for another account's conversation).
func InboxConversation(ctx context.Context, q db.Querier, acct account.Account, sessionID int64) (InboxItem, error) {
	c, err := Get(ctx, q, acct, sessionID, View{})
	if err != nil {
		return InboxItem{}, err
	}
	items, err := inboxItems(ctx, q, acct, []Conversation{c})
	if err != nil {
		return InboxItem{}, err
	}
	return items[0], nil
}

// inboxItems adds the inbox's columns to a page, in one query.
func inboxItems(ctx context.Context, q db.Querier, acct account.Account, page []Conversation) ([]InboxItem, error) {
	out := make([]InboxItem, len(page))
	at := make(map[int64]int, len(page))
	ids := make([]int64, len(page))
	for i, c := range page {
		out[i].Conversation = c
		at[c.SessionID] = i
		ids[i] = c.SessionID
	}
	if len(ids) == 0 {
		return out, nil
	}
	in, inArgs := db.In(ids)
	rows, err := q.Query(ctx, `SELECT cv.id, CASE WHEN `+unreadCond+` THEN 1 ELSE 0 END, u.id, u.name, u.email, ch.id, ch.file_key
		FROM conversations cv
		LEFT JOIN users u ON u.account_id = cv.account_id AND u.id = cv.assigned_user_id
		LEFT JOIN channels ch ON ch.account_id = cv.account_id AND ch.id = cv.channel_id
		WHERE cv.account_id = ? AND cv.id IN `+in, append([]any{acct.ID}, inArgs...)...)
	if err != nil {
		return nil, fmt.Errorf("inbox state: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id           int64
			unread       int
			uID, chID    sql.NullInt64
			uName, uMail sql.NullString
			chKey        sql.NullString
		)
		if err := rows.Scan(&id, &unread, &uID, &uName, &uMail, &chID, &chKey); err != nil {
			return nil, err
		}
		it := &out[at[id]]
		it.Unread = unread == 1
		if uID.Valid {
			it.Assignee = &User{ID: uID.Int64, Name: uName.String, Email: strOrNil(uMail.String)}
		}
		if chID.Valid {
			it.ChannelID, it.ChannelKey = chID.Int64, chKey.String
		}
	}
	return out, rows.Err()
}

// Assign hands one of the account's conversations to a team member (an
// active user of the same account), or to nobody with userID 0. Any other
// user, another account's included, is refused as unknown.
func Assign(ctx context.Context, store *db.DB, acct account.Account, sessionID, userID int64) error {
	return store.Transact(ctx, func(tx *db.Tx) error {
		if err := lockConversation(ctx, tx, acct, sessionID); err != nil {
			return err
		}
		var who any
		if userID != 0 {
			if err := activeUser(ctx, tx, acct, userID); err != nil {
				return err
			}
			who = userID
		}
		_, err := tx.Exec(ctx, `UPDATE conversations SET assigned_user_id = ? WHERE account_id = ? AND id = ?`, who, acct.ID, sessionID)
		return err
	})
}

// activeUser checks userID is an active team member of the account.
func activeUser(ctx context.Context, q db.Querier, acct account.Account, userID int64) error {
	var one int
	err := q.QueryRow(ctx, `SELECT 1 FROM users WHERE account_id = ? AND id = ? AND active = ?`, acct.ID, userID, true).Scan(&one)
	if db.IsNoRows(err) {
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "user_id"}, "No active team member %d in this workspace.", userID)
	}
	return err
}

// MaxReplyLength bounds a team member's message (WhatsApp's text limit).
const MaxReplyLength = 4096

// AppendUserMessage adds a text a team member wrote to one of the
// account's conversations, in the caller's transaction: sender kind user,
// timestamped now, on the conversation's channel. The conversation counts
// as read (its writer has it open) and its webhooks hear of the change, as
// with AppendMessage. It returns the new message's id.
func AppendUserMessage(ctx context.Context, tx *db.Tx, acct account.Account, sessionID, userID int64, content string, now time.Time) (int64, error) {
	if err := lockConversation(ctx, tx, acct, sessionID); err != nil {
		return 0, err
	}
	if err := activeUser(ctx, tx, acct, userID); err != nil {
		return 0, err
	}
	content = strings.TrimSpace(content)
	if content == "" {
		return 0, errs.WithDetails(errs.ValidationError, map[string]any{"field": "content"}, "Write a message first.")
	}
	if n := len([]rune(content)); n > MaxReplyLength {
		return 0, errs.WithDetails(errs.ValidationError, map[string]any{"field": "content"}, "The message is %d characters long; the limit is %d.", n, MaxReplyLength)
	}
	at := db.Micros(now)
	var id int64
	err := tx.QueryRow(ctx, `INSERT INTO messages (account_id, conversation_id, sender_kind, user_id, message_type, content, sent_at, created_at, channel_id)
		SELECT account_id, id, 'user', ?, 'text', ?, ?, ?, channel_id FROM conversations WHERE account_id = ? AND id = ? RETURNING id`,
		userID, content, at, at, acct.ID, sessionID).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("append user message: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE conversations SET message_count = message_count + 1, read_at = CAST(? AS BIGINT),
			last_message_at = CASE WHEN last_message_at IS NULL OR last_message_at < CAST(? AS BIGINT) THEN CAST(? AS BIGINT) ELSE last_message_at END,
			updated_at = CASE WHEN updated_at < CAST(? AS BIGINT) THEN CAST(? AS BIGINT) ELSE updated_at END
		WHERE account_id = ? AND id = ?`, at, at, at, at, at, acct.ID, sessionID); err != nil {
		return 0, fmt.Errorf("count user message: %w", err)
	}
	c, err := Get(ctx, tx, acct, sessionID, View{})
	if err != nil {
		return 0, err
	}
	return id, emitUpdated(ctx, tx, acct, c, now)
}

// AttachProviderID records the provider's id of a message the team wrote
// once its channel accepted it, so the provider's later reports and
// repeats meet the message (as they meet the ones RecordChannelMessage
// stores).
func AttachProviderID(ctx context.Context, tx *db.Tx, acct account.Account, messageID, channelID int64, providerID string) error {
	var provider any
	if providerID != "" {
		provider = providerID
	}
	_, err := tx.Exec(ctx, `UPDATE messages SET channel_id = ?, provider_message_id = ? WHERE account_id = ? AND id = ? AND sender_kind = 'user'`,
		channelID, provider, acct.ID, messageID)
	return err
}
