package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ChannelMessage is a message that crossed a channel: a patient's inbound
// message, or one Frontdesk sent (docs/contract.md, Provider
// callbacks).
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

// columns are the message's sender kind, message type, media (JSON) and
// provider id as the messages table stores them.
func (m ChannelMessage) columns() (kind, typ string, media, provider any) {
	kind, typ = "business_app", "text"
	if m.Inbound {
		kind = "client"
	}
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
	return kind, typ, media, provider
}

// sentAt is when the message was sent: its own time, or now when it has none.
func (m ChannelMessage) sentAt(now time.Time) time.Time {
	if m.At.IsZero() {
		return now
	}
	return m.At
}

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
	at := m.sentAt(now)
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
	kind, typ, media, provider := m.columns()
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

// RecordChannelMessages is RecordChannelMessage for many messages at once,
// with the same outcome as recording them one after another in order, in a
// handful of statements whatever their number: the job worker records the
// messages a batch of sends delivered this way.
func RecordChannelMessages(ctx context.Context, tx *db.Tx, acct account.Account, ms []ChannelMessage, now time.Time) error {
	type key struct {
		channel int64
		s       string // national digits, or a provider id
	}
	var order []key
	convs := map[key]int64{} // → the conversation a message joins
	for _, m := range ms {
		k := key{m.ChannelID, m.PhoneNational}
		if _, ok := convs[k]; !ok {
			convs[k] = 0
			order = append(order, k)
		}
	}
	if len(order) == 0 {
		return nil
	}
	if tx.Dialect().Engine == db.Postgres {
		// The locks RecordChannelMessage takes, in one statement and in a
		// fixed order (two batches never wait for each other in a circle).
		locks := make([]int64, len(order))
		for i, k := range order {
			h := fnv.New64a()
			fmt.Fprintf(h, "chat-channel/%d/%d/%s", acct.ID, k.channel, k.s)
			locks[i] = int64(h.Sum64())
		}
		slices.Sort(locks)
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(k) FROM unnest(CAST(? AS BIGINT[])) AS t(k) ORDER BY k`, locks); err != nil {
			return err
		}
	}
	// A provider id recorded before, or earlier in the batch, adds nothing.
	byChannel := map[int64][]string{}
	for _, m := range ms {
		if m.ProviderID != "" {
			byChannel[m.ChannelID] = append(byChannel[m.ChannelID], m.ProviderID)
		}
	}
	seen := map[key]bool{}
	for channel, ids := range byChannel {
		q, args := recordedQuery(acct.ID, channel, ids)
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("find provider messages: %w", err)
		}
		for rows.Next() {
			k := key{channel: channel}
			if err := rows.Scan(&k.s); err != nil {
				rows.Close()
				return err
			}
			seen[k] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	var record []ChannelMessage
	for _, m := range ms {
		if m.ProviderID != "" {
			if pk := (key{m.ChannelID, m.ProviderID}); seen[pk] {
				continue
			} else {
				seen[pk] = true
			}
		}
		record = append(record, m)
	}
	if len(record) == 0 {
		return nil
	}
	// The open conversations, per channel (the channel-and-phone index
	// answers each number; the newest conversation of a number wins).
	nationals := map[int64][]string{}
	for _, k := range order {
		nationals[k.channel] = append(nationals[k.channel], k.s)
	}
	newest := map[key][2]int64{} // last message, id
	for channel, list := range nationals {
		q, args := openQuery(acct.ID, channel, list, now.Add(-OpenWindow))
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("conversations for channel messages: %w", err)
		}
		for rows.Next() {
			var id, last int64
			k := key{channel: channel}
			if err := rows.Scan(&id, &k.s, &last); err != nil {
				rows.Close()
				return err
			}
			if cur, ok := newest[k]; !ok || last > cur[0] || last == cur[0] && id > cur[1] {
				newest[k] = [2]int64{last, id}
				convs[k] = id
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	// What the messages add to their conversations, by number.
	type added struct{ n, last int64 }
	adds := map[key]*added{}
	for _, m := range record {
		k := key{m.ChannelID, m.PhoneNational}
		a := adds[k]
		if a == nil {
			a = &added{}
			adds[k] = a
		}
		a.n++
		a.last = max(a.last, db.Micros(m.sentAt(now)))
	}
	// Open a conversation for each number whose first recorded message
	// finds none, as its direction says, already counting the messages
	// it gets below (one write per new conversation instead of two).
	var open []ChannelMessage
	for _, m := range record {
		k := key{m.ChannelID, m.PhoneNational}
		if convs[k] == 0 {
			convs[k] = -1 // opened below
			open = append(open, m)
		}
	}
	if len(open) > 0 {
		ids, err := tx.Dialect().ReserveIDs(ctx, tx, "conversations", len(open))
		if err != nil {
			return err
		}
		rows := make([][]any, len(open))
		for i, m := range open {
			direction := "outbound"
			if m.Inbound {
				direction = "inbound"
			}
			k := key{m.ChannelID, m.PhoneNational}
			convs[k] = ids[i]
			a := adds[k]
			rows[i] = []any{ids[i], acct.ID, m.Phone, m.PhoneNational, "new", direction, "", a.n, a.last, db.Micros(now), db.Micros(now), m.ChannelID}
			delete(adds, k) // counted
		}
		if err := db.InsertMany(ctx, tx, `INSERT INTO conversations (id, account_id, customer_phone_number, phone_national, status, direction, summary, message_count, last_message_at, created_at, updated_at, channel_id)`, rows, ""); err != nil {
			return fmt.Errorf("open conversations for channel messages: %w", err)
		}
	}
	msgs := make([][]any, len(record))
	for i, m := range record {
		conv := convs[key{m.ChannelID, m.PhoneNational}]
		kind, typ, media, provider := m.columns()
		msgs[i] = []any{acct.ID, conv, kind, typ, m.Content, media, db.Micros(m.sentAt(now)), db.Micros(now), m.ChannelID, provider}
	}
	if err := db.InsertMany(ctx, tx, `INSERT INTO messages (account_id, conversation_id, sender_kind, message_type, content, media, sent_at, created_at, channel_id, provider_message_id)`, msgs, ""); err != nil {
		return fmt.Errorf("record channel messages: %w", err)
	}
	// The conversations that were open already take their new messages.
	var values [][]any
	for _, k := range order {
		if a := adds[k]; a != nil {
			values = append(values, []any{convs[k], a.n, a.last})
		}
	}
	if len(values) == 0 {
		return nil
	}
	moved := db.Micros(now)
	if err := db.UpdateMany(ctx, tx, acct.ID, "conversations", []string{"id", "n", "last"}, []string{"BIGINT", "BIGINT", "BIGINT"},
		`message_count = message_count + v.n,
			last_message_at = CASE WHEN last_message_at IS NULL OR last_message_at < v.last THEN v.last ELSE last_message_at END,
			updated_at = CASE WHEN updated_at < CAST(? AS BIGINT) THEN CAST(? AS BIGINT) ELSE updated_at END`,
		[]any{moved, moved}, values); err != nil {
		return fmt.Errorf("count channel messages: %w", err)
	}
	return nil
}
