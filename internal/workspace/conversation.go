package workspace

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// ConversationRefs resolves the file keys a conversation refers to. Keys not
// in the maps are looked up in the store (objects of an earlier apply).
type ConversationRefs struct {
	Agents, Users, Dispositions map[string]int64
}

func (r *ConversationRefs) id(ctx context.Context, q db.Querier, acct account.Account, table string, m *map[string]int64, key string) (int64, error) {
	if *m == nil {
		*m = map[string]int64{}
	}
	if id, ok := (*m)[key]; ok {
		return id, nil
	}
	var id int64
	err := q.QueryRow(ctx, fmt.Sprintf("SELECT id FROM %s WHERE account_id = ? AND file_key = ?", table), acct.ID, key).Scan(&id)
	if db.IsNoRows(err) {
		return 0, &Error{Problems: []string{fmt.Sprintf("unknown %s %q", table, key)}}
	}
	if err != nil {
		return 0, err
	}
	(*m)[key] = id
	return id, nil
}

// NormalizeCustomerPhone returns the E.164 form and the national digits
// conversations are matched to clients on. Validation refuses numbers that
// cannot be read; the raw text is returned only for rows stored before it
// did.
func NormalizeCustomerPhone(raw string, acct account.Account) (string, any) {
	n, err := phone.ParseWithRegion(raw, acct.DefaultRegion)
	if err != nil {
		return raw, nil
	}
	return n.E164(), n.National
}

func parseTime(s string, def time.Time) time.Time {
	if s == "" {
		return def
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return def
	}
	return t.UTC().Truncate(time.Microsecond)
}

// UpsertConversation creates or updates a conversation by its key and adds
// the messages it does not have yet (matched by their index in the file). A
// repeated import writes nothing; a changed one moves updated_at.
func UpsertConversation(ctx context.Context, tx *db.Tx, acct account.Account, cv ConversationSpec, refs ConversationRefs, now time.Time) (int64, error) {
	phoneText, national := NormalizeCustomerPhone(cv.CustomerPhoneNumber, acct)
	status, direction := cv.Status, cv.Direction
	if status == "" {
		status = "new"
	}
	if direction == "" {
		direction = "inbound"
	}
	var firstMsg time.Time
	if len(cv.Messages) > 0 {
		firstMsg = parseTime(cv.Messages[0].Timestamp, time.Time{})
	}
	created := parseTime(cv.CreatedAt, firstMsg)
	if created.IsZero() {
		created = now
	}
	var disposition, sentiment any
	if cv.Disposition != "" {
		id, err := refs.id(ctx, tx, acct, "disposition_tags", &refs.Dispositions, cv.Disposition)
		if err != nil {
			return 0, err
		}
		disposition = id
	}
	if cv.Sentiment != "" {
		sentiment = cv.Sentiment
	}

	var (
		id                                 int64
		curPhone, curStatus, curDir, curSm string
		curDisp                            sql.NullInt64
		curSent                            sql.NullString
		curCreated                         int64
	)
	err := tx.QueryRow(ctx, `SELECT id, customer_phone_number, status, direction, disposition_tag_id, sentiment, summary, created_at
		FROM conversations WHERE account_id = ? AND file_key = ?`, acct.ID, cv.Key).
		Scan(&id, &curPhone, &curStatus, &curDir, &curDisp, &curSent, &curSm, &curCreated)
	switch {
	case db.IsNoRows(err):
		err = tx.QueryRow(ctx, `INSERT INTO conversations (account_id, file_key, customer_phone_number, phone_national, status, direction,
			disposition_tag_id, sentiment, summary, message_count, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?) RETURNING id`,
			acct.ID, cv.Key, phoneText, national, status, direction, disposition, sentiment, cv.Summary,
			db.Micros(created), db.Micros(created)).Scan(&id)
		if err != nil {
			return 0, fmt.Errorf("insert conversation %q: %w", cv.Key, err)
		}
	case err != nil:
		return 0, err
	default:
		// A key the file leaves out keeps the stored value.
		has := cv.keys.has
		if !has("customer_phone_number") {
			phoneText, national = curPhone, nil
			if curPhone != "" {
				_, national = NormalizeCustomerPhone(curPhone, acct)
			}
		}
		if !has("status") {
			status = curStatus
		}
		if !has("direction") {
			direction = curDir
		}
		if !has("summary") {
			cv.Summary = curSm
		}
		if !has("created_at") {
			created = time.UnixMicro(curCreated).UTC()
		}
		if !has("sentiment") {
			cv.Sentiment, sentiment = curSent.String, nil
			if curSent.Valid {
				cv.Sentiment, sentiment = curSent.String, curSent.String
			}
		}
		if !has("disposition") {
			disposition = nil
			if curDisp.Valid {
				disposition = curDisp.Int64
			}
		}
		changed := curPhone != phoneText || curStatus != status || curDir != direction || curSm != cv.Summary ||
			curCreated != db.Micros(created) || curSent.String != cv.Sentiment || curSent.Valid != (cv.Sentiment != "") ||
			curDisp.Valid != (disposition != nil) || (disposition != nil && curDisp.Int64 != disposition.(int64))
		if changed {
			_, err := tx.Exec(ctx, `UPDATE conversations SET customer_phone_number = ?, phone_national = ?, status = ?, direction = ?,
				disposition_tag_id = ?, sentiment = ?, summary = ?, created_at = ?,
				updated_at = CASE WHEN updated_at > ? THEN updated_at ELSE ? END WHERE id = ?`,
				phoneText, national, status, direction, disposition, sentiment, cv.Summary, db.Micros(created),
				db.Micros(now), db.Micros(now), id)
			if err != nil {
				return 0, err
			}
		}
	}
	if len(cv.Messages) == 0 {
		return id, nil
	}
	rows := make([][]any, 0, len(cv.Messages))
	for i, m := range cv.Messages {
		r, err := messageRow(ctx, tx, acct, &refs, id, m, created, now)
		if err != nil {
			return 0, err
		}
		rows = append(rows, append(r, i))
	}
	var before int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM messages WHERE conversation_id = ?`, id).Scan(&before); err != nil {
		return 0, err
	}
	if err := db.InsertMany(ctx, tx, `INSERT INTO messages (account_id, conversation_id, sender_kind, ai_agent_id, user_id, message_type, content, media, sent_at, created_at, file_index)`,
		rows, `ON CONFLICT (conversation_id, file_index) WHERE file_index IS NOT NULL DO NOTHING`); err != nil {
		return 0, fmt.Errorf("insert messages of %q: %w", cv.Key, err)
	}
	return id, RefreshCounters(ctx, tx, id, before)
}

// RefreshCounters recomputes a conversation's message_count and
// last_message_at after messages were added, and moves updated_at to the
// newest message when that is later. It writes nothing when the count did
// not change from before.
func RefreshCounters(ctx context.Context, tx *db.Tx, conversationID int64, before int) error {
	var count int
	var last sql.NullInt64
	if err := tx.QueryRow(ctx, `SELECT COUNT(*), MAX(sent_at) FROM messages WHERE conversation_id = ?`, conversationID).Scan(&count, &last); err != nil {
		return err
	}
	if count == before {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE conversations SET message_count = ?, last_message_at = ?,
		updated_at = CASE WHEN updated_at > ? THEN updated_at ELSE ? END WHERE id = ?`,
		count, last, last.Int64, last.Int64, conversationID)
	return err
}

// messageRow resolves a file message into the messages columns
// (account_id … created_at).
func messageRow(ctx context.Context, q db.Querier, acct account.Account, refs *ConversationRefs, conversationID int64, m MessageSpec, def, now time.Time) ([]any, error) {
	var agent, user, media any
	switch m.From {
	case "ai_agent":
		id, err := refs.id(ctx, q, acct, "ai_agents", &refs.Agents, m.Agent)
		if err != nil {
			return nil, err
		}
		agent = id
	case "user":
		id, err := refs.id(ctx, q, acct, "users", &refs.Users, m.User)
		if err != nil {
			return nil, err
		}
		user = id
	}
	if m.Media != nil {
		media = jsonText(m.Media)
	}
	typ := m.MessageType
	if typ == "" {
		typ = "text"
	}
	sent := parseTime(m.Timestamp, def)
	return []any{acct.ID, conversationID, m.From, agent, user, typ, m.Content, media, db.Micros(sent), db.Micros(now)}, nil
}

// MessageRow is messageRow for callers outside a file (the admin append route).
func MessageRow(ctx context.Context, q db.Querier, acct account.Account, conversationID int64, m MessageSpec, now time.Time) ([]any, error) {
	return messageRow(ctx, q, acct, &ConversationRefs{}, conversationID, m, now, now)
}
