package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ChannelMessage is a message that crossed a channel: a patient's inbound
// message, or one Frontdesk sent (decisions.md §8 "Inbound into chat
// history").
type ChannelMessage struct {
	ChannelID     int64
	Phone         string // the customer's number, E.164
	PhoneNational string // its national digits (how conversations meet clients)
	Inbound       bool   // true: from the customer; false: sent by Frontdesk
	Content       string
	Media         any    // metadata of an attachment, or nil
	ProviderID    string // the provider's message id ("" for none)
	At            time.Time
}

// OpenWindow is how recent a conversation's last message must be for a new
// message on the same channel to join it instead of opening another.
const OpenWindow = 24 * time.Hour

// RecordChannelMessage appends m to the account's open conversation with
// that number on that channel (status not resolved or expired, last message
// within OpenWindow), or opens one (direction inbound or outbound after the
// first message, status new). A customer message is sender kind client; a
// message Frontdesk sent is business_app. A provider id already recorded
// for the channel adds nothing: duplicate is true and the ids are the
// existing message's.
func RecordChannelMessage(ctx context.Context, tx *db.Tx, acct account.Account, m ChannelMessage, now time.Time) (conversationID, messageID int64, duplicate bool, err error) {
	// Two messages of one number arriving together (a provider retrying, a
	// patient typing fast) must meet in one conversation: on PostgreSQL the
	// find-or-open is serialised per number and channel; SQLite's write
	// transactions already run one at a time.
	if tx.Dialect().Engine == db.Postgres {
		h := fnv.New64a()
		fmt.Fprintf(h, "chat-channel/%d/%d/%s", acct.ID, m.ChannelID, m.PhoneNational)
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(h.Sum64())); err != nil {
			return 0, 0, false, err
		}
	}
	if m.ProviderID != "" {
		err = tx.QueryRow(ctx, `SELECT conversation_id, id FROM messages WHERE channel_id = ? AND provider_message_id = ? AND account_id = ?`,
			m.ChannelID, m.ProviderID, acct.ID).Scan(&conversationID, &messageID)
		if err == nil {
			return conversationID, messageID, true, nil
		}
		if !db.IsNoRows(err) {
			return 0, 0, false, fmt.Errorf("find provider message: %w", err)
		}
	}
	at := m.At
	if at.IsZero() {
		at = now
	}
	err = tx.QueryRow(ctx, `SELECT id FROM conversations
		WHERE account_id = ? AND channel_id = ? AND phone_national = ? AND status NOT IN ('resolved', 'expired') AND last_message_at >= ?
		ORDER BY last_message_at DESC, id DESC LIMIT 1`,
		acct.ID, m.ChannelID, m.PhoneNational, db.Micros(now.Add(-OpenWindow))).Scan(&conversationID)
	if db.IsNoRows(err) {
		direction := "outbound"
		if m.Inbound {
			direction = "inbound"
		}
		err = tx.QueryRow(ctx, `INSERT INTO conversations (account_id, customer_phone_number, phone_national, status, direction,
				summary, message_count, created_at, updated_at, channel_id)
			VALUES (?, ?, ?, 'new', ?, '', 0, ?, ?, ?) RETURNING id`,
			acct.ID, m.Phone, m.PhoneNational, direction, db.Micros(now), db.Micros(now), m.ChannelID).Scan(&conversationID)
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("conversation for channel message: %w", err)
	}
	kind, typ := "business_app", "text"
	if m.Inbound {
		kind = "client"
	}
	var media, provider any
	if m.Media != nil {
		b, _ := json.Marshal(m.Media)
		media = string(b)
		if k, ok := m.Media.(interface{ MessageType() string }); ok {
			typ = k.MessageType()
		}
	}
	if m.ProviderID != "" {
		provider = m.ProviderID
	}
	err = tx.QueryRow(ctx, `INSERT INTO messages (account_id, conversation_id, sender_kind, message_type, content, media, sent_at, created_at,
			channel_id, provider_message_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		acct.ID, conversationID, kind, typ, m.Content, media, db.Micros(at), db.Micros(now), m.ChannelID, provider).Scan(&messageID)
	if err != nil {
		return 0, 0, false, fmt.Errorf("record channel message: %w", err)
	}
	sent, moved := db.Micros(at), db.Micros(now)
	if _, err := tx.Exec(ctx, `UPDATE conversations SET message_count = message_count + 1,
			last_message_at = CASE WHEN last_message_at IS NULL OR last_message_at < CAST(? AS BIGINT) THEN CAST(? AS BIGINT) ELSE last_message_at END,
			updated_at = CASE WHEN updated_at < CAST(? AS BIGINT) THEN CAST(? AS BIGINT) ELSE updated_at END
		WHERE account_id = ? AND id = ?`, sent, sent, moved, moved, acct.ID, conversationID); err != nil {
		return 0, 0, false, fmt.Errorf("count channel message: %w", err)
	}
	return conversationID, messageID, false, nil
}
